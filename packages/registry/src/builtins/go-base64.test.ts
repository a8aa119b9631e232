import { describe, expect, it } from 'vitest';
import { decodeGoBase64, illegalBase64Message } from './go-base64.ts';

describe('decodeGoBase64', () => {
  it('accepts what Go decodes and counts the bytes', () => {
    expect(decodeGoBase64('')).toEqual({ ok: true, length: 0 });
    expect(decodeGoBase64('aGVsbG8=')).toEqual({ ok: true, length: 5 });
    expect(decodeGoBase64('aGk=')).toEqual({ ok: true, length: 2 });
    expect(decodeGoBase64('aA==')).toEqual({ ok: true, length: 1 });
    expect(decodeGoBase64('aGVs\nbG8=\r\n')).toEqual({ ok: true, length: 5 });
  });

  it("reports the offset Go's CorruptInputError names", () => {
    expect(decodeGoBase64('not base64!')).toEqual({ ok: false, offset: 3 });
    expect(decodeGoBase64('aGVsbG8')).toEqual({ ok: false, offset: 4 });
    expect(decodeGoBase64('a')).toEqual({ ok: false, offset: 0 });
    expect(decodeGoBase64('aA=')).toEqual({ ok: false, offset: 3 });
    expect(decodeGoBase64('a===')).toEqual({ ok: false, offset: 1 });
    expect(decodeGoBase64('aA==aA==')).toEqual({ ok: false, offset: 4 });
    expect(decodeGoBase64('aGVsbG8-')).toEqual({ ok: false, offset: 7 });
    expect(illegalBase64Message(3)).toBe('illegal base64 data at input byte 3');
  });
});
