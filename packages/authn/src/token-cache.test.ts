import type { Clock } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { AuthenticationResult } from './authenticator.ts';
import type { TokenAuthenticator } from './bearer-token.ts';
import { DEFAULT_TOKEN_CACHE_TTL_MS, TokenCache } from './token-cache.ts';

function manualClock(): Clock & { advance(ms: number): void } {
  let now = 1_000_000;
  return {
    now: () => now,
    setTimeout: () => ({}),
    clearTimeout: () => {},
    advance: (ms) => {
      now += ms;
    },
  };
}

/** A token authenticator that counts its calls: `good` is alice, `boom` throws, anything else is unknown. */
function counting(): TokenAuthenticator & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async authenticateToken(token, audiences): Promise<AuthenticationResult | null> {
      calls.push(`${token}@${audiences?.join(',') ?? '-'}`);
      await new Promise((r) => setTimeout(r, 5));
      if (token === 'boom') throw new Error('backend down');
      return token === 'good' ? { user: { name: 'alice', groups: ['dev'] }, ...(audiences ? { audiences } : {}) } : null;
    },
  };
}

describe('TokenCache', () => {
  it('uses kube-apiserver’s webhook cache TTL by default (2 minutes, for successes and denials)', () => {
    expect(DEFAULT_TOKEN_CACHE_TTL_MS).toBe(120_000);
  });

  it('answers a success from the cache until the success TTL passes', async () => {
    const clock = manualClock();
    const inner = counting();
    const cache = new TokenCache(inner, { clock, successTtlMs: 10_000, failureTtlMs: 1_000 });
    expect((await cache.authenticateToken('good'))?.user.name).toBe('alice');
    expect((await cache.authenticateToken('good'))?.user.name).toBe('alice');
    expect(inner.calls).toEqual(['good@-']);
    clock.advance(9_999);
    await cache.authenticateToken('good');
    expect(inner.calls).toHaveLength(1);
    clock.advance(1);
    await cache.authenticateToken('good');
    expect(inner.calls).toHaveLength(2);
    expect(cache.stats).toMatchObject({ hits: 2, misses: 2 });
  });

  it('keeps a denial for the failure TTL only, and never keeps an error', async () => {
    const clock = manualClock();
    const inner = counting();
    const cache = new TokenCache(inner, { clock, successTtlMs: 10_000, failureTtlMs: 1_000 });
    expect(await cache.authenticateToken('bad')).toBeNull();
    expect(await cache.authenticateToken('bad')).toBeNull();
    expect(inner.calls).toEqual(['bad@-']);
    clock.advance(1_000);
    expect(await cache.authenticateToken('bad')).toBeNull();
    expect(inner.calls).toEqual(['bad@-', 'bad@-']);
    await expect(cache.authenticateToken('boom')).rejects.toThrow('backend down');
    await expect(cache.authenticateToken('boom')).rejects.toThrow('backend down');
    expect(inner.calls.filter((c) => c.startsWith('boom'))).toHaveLength(2);
  });

  it('keys by token and audiences: the same token for other audiences is asked again', async () => {
    const inner = counting();
    const cache = new TokenCache(inner);
    expect((await cache.authenticateToken('good', ['api']))?.audiences).toEqual(['api']);
    expect((await cache.authenticateToken('good', ['vault']))?.audiences).toEqual(['vault']);
    expect((await cache.authenticateToken('good', ['api']))?.audiences).toEqual(['api']);
    await cache.authenticateToken('good');
    expect(inner.calls).toEqual(['good@api', 'good@vault', 'good@-']);
  });

  it('coalesces concurrent lookups of one key into one call', async () => {
    const inner = counting();
    const cache = new TokenCache(inner);
    const results = await Promise.all(Array.from({ length: 20 }, () => cache.authenticateToken('good')));
    expect(results.every((r) => r?.user.name === 'alice')).toBe(true);
    expect(inner.calls).toEqual(['good@-']);
    const errors = await Promise.allSettled(Array.from({ length: 5 }, () => cache.authenticateToken('boom')));
    expect(errors.every((e) => e.status === 'rejected')).toBe(true);
    expect(inner.calls.filter((c) => c.startsWith('boom'))).toHaveLength(1);
  });

  it('never holds the token itself: keys are salted SHA-256 hashes', async () => {
    const secret = 'very-secret-token-value-123456';
    const inner: TokenAuthenticator = { authenticateToken: async () => ({ user: { name: 'x', groups: [] } }) };
    const cache = new TokenCache(inner);
    await cache.authenticateToken(secret, ['aud']);
    const keys = [...cache.keys()];
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(secret);
    expect(keys[0]).not.toContain(Buffer.from(secret).toString('base64url'));
    expect(keys[0]).toMatch(/^[A-Za-z0-9_-]{43}$/); // a base64url SHA-256
  });

  it('evicts the least recently used entry past max', async () => {
    const inner = counting();
    const cache = new TokenCache(inner, { max: 2 });
    await cache.authenticateToken('a');
    await cache.authenticateToken('b');
    await cache.authenticateToken('a');
    await cache.authenticateToken('c'); // evicts b
    await cache.authenticateToken('a');
    await cache.authenticateToken('b');
    expect(inner.calls).toEqual(['a@-', 'b@-', 'c@-', 'b@-']);
  });
});
