import { describe, expect, it } from 'vitest';
import { Keyspace, keyAfter, prefixRangeEnd } from './keyspace.ts';

describe('Keyspace', () => {
  it('prepends the prefix without its trailing slashes and strips it again', () => {
    const ks = new Keyspace('/tenant-a//');
    expect(ks.prefix).toBe('/tenant-a');
    const k = ks.encode('/registry/widgets/ns/x');
    expect(k.toString()).toBe('/tenant-a/registry/widgets/ns/x');
    expect(ks.decode(k)).toBe('/registry/widgets/ns/x');
  });

  it('handles an empty prefix and multi-byte characters', () => {
    expect(new Keyspace().encode('/a').toString()).toBe('/a');
    const ks = new Keyspace('/é');
    expect(ks.decode(ks.encode('/ü/ß'))).toBe('/ü/ß');
  });
});

describe('prefixRangeEnd', () => {
  it('increments the last byte: every key starting with the prefix sorts before the end', () => {
    expect(prefixRangeEnd(Buffer.from('/a/')).toString()).toBe('/a0');
    expect(prefixRangeEnd(Buffer.from('abc')).toString()).toBe('abd');
  });

  it('drops trailing 0xff bytes before incrementing', () => {
    expect(prefixRangeEnd(Buffer.from([0x61, 0xff, 0xff]))).toEqual(Buffer.from([0x62]));
  });

  it('has no end for a prefix of only 0xff bytes (or none): "\\0" means the rest of the keyspace', () => {
    expect(prefixRangeEnd(Buffer.from([0xff, 0xff]))).toEqual(Buffer.from([0]));
    expect(prefixRangeEnd(Buffer.alloc(0))).toEqual(Buffer.from([0]));
  });

  it('does not change its input', () => {
    const p = Buffer.from('/x/');
    prefixRangeEnd(p);
    expect(p.toString()).toBe('/x/');
  });
});

describe('keyAfter', () => {
  it('is the key with a NUL appended', () => {
    expect(keyAfter(Buffer.from('/a'))).toEqual(Buffer.from('/a\u0000'));
  });
});
