import { describe, expect, it } from 'vitest';
import { cleanPath, decodeContinue, encodeContinue } from './continue-token.ts';
import { StatusError } from './status-error.ts';

const PREFIX = '/registry/pods/';
const b64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

function decodeError(token: string): StatusError {
  try {
    decodeContinue(token, PREFIX);
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    const err = e as StatusError;
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.message.startsWith('invalid continue token: ')).toBe(true);
    return err;
  }
  throw new Error(`decodeContinue(${JSON.stringify(token)}) did not throw`);
}

describe('encodeContinue', () => {
  it('writes base64url without padding of {"v","rv","start"} with the key after the prefix', () => {
    const token = encodeContinue('/registry/pods/ns1/web-0\u0000', PREFIX, 42);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token, 'base64url').toString('utf8')).toBe('{"v":"meta.k8s.io/v1","rv":42,"start":"ns1/web-0\\u0000"}');
    expect(token).toBe(b64url('{"v":"meta.k8s.io/v1","rv":42,"start":"ns1/web-0\\u0000"}'));
  });

  it('matches the token client-go users see for a simple key', () => {
    // base64url("{"v":"meta.k8s.io/v1","rv":5,"start":"a\u0000"}"), no "=" padding.
    expect(encodeContinue('/registry/pods/a\u0000', PREFIX, 5)).toBe('eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiJhXHUwMDAwIn0');
  });

  it('refuses a key outside the prefix, or the prefix itself', () => {
    expect(() => encodeContinue('/registry/nodes/a', PREFIX, 1)).toThrow(
      'unable to encode next field: the key and key prefix do not match /registry/pods/ /registry/nodes/a',
    );
    expect(() => encodeContinue(PREFIX, PREFIX, 1)).toThrow(/key prefix do not match/);
  });
});

describe('decodeContinue', () => {
  it('round trips the key and revision', () => {
    for (const [key, rv] of [
      ['/registry/pods/ns1/web-0\u0000', 42],
      ['/registry/pods/a\u0000', 1],
      ['/registry/pods/ns/with space & <angle>\u0000', Number.MAX_SAFE_INTEGER],
    ] as const) {
      expect(decodeContinue(encodeContinue(key, PREFIX, rv), PREFIX)).toEqual({ fromKey: key, rv });
    }
  });

  it('keeps rv -1 (continue at the latest revision)', () => {
    expect(decodeContinue(encodeContinue('/registry/pods/x\u0000', PREFIX, -1), PREFIX)).toEqual({
      fromKey: '/registry/pods/x\u0000',
      rv: -1,
    });
  });

  it('accepts a start key with a leading slash', () => {
    expect(decodeContinue(b64url('{"v":"meta.k8s.io/v1","rv":3,"start":"/ns/a"}'), PREFIX)).toEqual({
      fromKey: '/registry/pods/ns/a',
      rv: 3,
    });
  });

  it('rejects bad base64', () => {
    for (const token of ['abc$', 'a', 'eyJ2Ijo=', 'ab+/']) {
      expect(decodeError(token).message).toBe('invalid continue token: continue key is not valid: illegal base64 data');
    }
  });

  it('rejects bad JSON and JSON that is not an object', () => {
    expect(decodeError(b64url('not json')).message).toMatch(/^invalid continue token: continue key is not valid: /);
    expect(decodeError('').message).toMatch(/^invalid continue token: continue key is not valid: /);
    expect(decodeError(b64url('[1]')).message).toBe('invalid continue token: continue key is not valid: not a JSON object');
    expect(decodeError(b64url('"s"')).message).toBe('invalid continue token: continue key is not valid: not a JSON object');
    expect(decodeError(b64url('{"v":"meta.k8s.io/v1","rv":"5","start":"a"}')).message).toBe(
      'invalid continue token: continue key is not valid: rv is not an integer',
    );
    expect(decodeError(b64url('{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}')).message).toMatch(/rv is not an integer/);
    expect(decodeError(b64url('{"v":"meta.k8s.io/v1","rv":5,"start":7}')).message).toBe(
      'invalid continue token: continue key is not valid: start is not a string',
    );
  });

  it('rejects rv 0 or a missing rv', () => {
    const msg = 'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)';
    expect(decodeError(b64url('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}')).message).toBe(msg);
    expect(decodeError(b64url('{"v":"meta.k8s.io/v1","start":"a"}')).message).toBe(msg);
  });

  it('rejects an empty or missing start', () => {
    const msg = 'invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)';
    expect(decodeError(b64url('{"v":"meta.k8s.io/v1","rv":5,"start":""}')).message).toBe(msg);
    expect(decodeError(b64url('{"v":"meta.k8s.io/v1","rv":5}')).message).toBe(msg);
  });

  it('rejects a start key that path cleaning would change', () => {
    for (const start of ['../x', 'a/./b', 'a//b', 'a/../b', 'a/', '/../../registry/secrets/x', '.']) {
      const token = b64url(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 5, start }));
      expect(decodeError(token).message).toBe(`invalid continue token: continue key is not valid: ${start}`);
    }
  });

  it('rejects an unknown or missing version', () => {
    expect(decodeError(b64url('{"v":"meta.k8s.io/v2","rv":5,"start":"a"}')).message).toBe(
      'invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2',
    );
    expect(decodeError(b64url('{"rv":5,"start":"a"}')).message).toBe(
      'invalid continue token: continue key is not valid: server does not recognize this encoded version ',
    );
  });
});

describe('cleanPath (Go path.Clean)', () => {
  const cases: [string, string][] = [
    ['', '.'],
    ['.', '.'],
    ['/', '/'],
    ['//', '/'],
    ['a/b', 'a/b'],
    ['a//b', 'a/b'],
    ['a/./b', 'a/b'],
    ['a/b/', 'a/b'],
    ['a/../b', 'b'],
    ['a/b/../..', '.'],
    ['a/b/../../..', '..'],
    ['..', '..'],
    ['../x', '../x'],
    ['../../a', '../../a'],
    ['/../x', '/x'],
    ['/a/b/..', '/a'],
    ['/a/./b/../c//d/', '/a/c/d'],
    ['abc\u0000', 'abc\u0000'],
  ];
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(want)}`, () => {
      expect(cleanPath(input)).toBe(want);
    });
  }
});
