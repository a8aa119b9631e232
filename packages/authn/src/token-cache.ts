import { hash, randomBytes } from 'node:crypto';
import { type Clock, realClock } from '@kapi/apimachinery';
import { LRUCache } from 'lru-cache';
import type { AuthenticationResult } from './authenticator.ts';
import type { TokenAuthenticator } from './bearer-token.ts';

/** kube-apiserver's --authentication-token-webhook-cache-ttl default; it caches denials for as long. */
export const DEFAULT_TOKEN_CACHE_TTL_MS = 2 * 60 * 1000;

export interface TokenCacheOptions {
  /** How long a success is served from the cache. Default 2 minutes. */
  successTtlMs?: number;
  /** How long a "not mine" (denial) is served from the cache. Default 2 minutes, as kube-apiserver's webhook. */
  failureTtlMs?: number;
  /** Entries kept; the least recently used go first. Default 4096. */
  max?: number;
  clock?: Clock;
}

interface Entry {
  readonly result: AuthenticationResult | null;
  readonly expiresAt: number;
}

/**
 * kube's cached token authenticator (authentication/token/cache): answers of `tokens` are kept per token and audiences,
 * a success for `successTtlMs`, a denial (`null`) for `failureTtlMs`; an error is never kept, so the next request asks
 * again. The key is a SHA-256 of the token salted with a value made for this cache, never the token itself, so a heap
 * dump or a cache listing reveals no credential. Concurrent lookups of one key share a single call (kube's singleflight).
 *
 * @example
 * const cached = new TokenCache(new WebhookTokenAuthenticator(config), { successTtlMs: 60_000 });
 */
export class TokenCache implements TokenAuthenticator {
  readonly #tokens: TokenAuthenticator;
  readonly #clock: Clock;
  readonly #successTtl: number;
  readonly #failureTtl: number;
  readonly #cache: LRUCache<string, Entry>;
  readonly #inFlight = new Map<string, Promise<AuthenticationResult | null>>();
  readonly #salt = randomBytes(32).toString('base64');
  #hits = 0;
  #misses = 0;

  constructor(tokens: TokenAuthenticator, options: TokenCacheOptions = {}) {
    this.#tokens = tokens;
    this.#clock = options.clock ?? realClock;
    this.#successTtl = options.successTtlMs ?? DEFAULT_TOKEN_CACHE_TTL_MS;
    this.#failureTtl = options.failureTtlMs ?? DEFAULT_TOKEN_CACHE_TTL_MS;
    this.#cache = new LRUCache({ max: options.max ?? 4096 });
  }

  /** Lookups answered from the cache (or joined to one in flight), and those that called the wrapped authenticator. */
  get stats(): { hits: number; misses: number; size: number } {
    return { hits: this.#hits, misses: this.#misses, size: this.#cache.size };
  }

  /** The keys held (salted hashes of token and audiences), for diagnostics. */
  keys(): IterableIterator<string> {
    return this.#cache.keys();
  }

  #key(token: string, audiences: readonly string[] | undefined): string {
    // SHA-256 of a per-cache random salt, the audiences (length-prefixed, so no two lists run together) and the token:
    // one-shot hashing costs ~2 µs where an HMAC object costs ~20-50 µs, and a salted hash of a high-entropy token
    // reveals it no more than an HMAC would (the key only needs to be one-way and collision-free).
    const auds = audiences === undefined ? '-' : audiences.map((a) => `${a.length}:${a}`).join('');
    return hash('sha256', `${this.#salt}${auds}|${token}`, 'base64url');
  }

  authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationResult | null> {
    const key = this.#key(token, audiences);
    const entry = this.#cache.get(key);
    if (entry) {
      if (entry.expiresAt > this.#clock.now()) {
        this.#hits++;
        return Promise.resolve(entry.result);
      }
      this.#cache.delete(key);
    }
    const pending = this.#inFlight.get(key);
    if (pending) {
      this.#hits++;
      return pending;
    }
    this.#misses++;
    const lookup = this.#tokens.authenticateToken(token, audiences).then(
      (result) => {
        this.#inFlight.delete(key);
        const ttl = result ? this.#successTtl : this.#failureTtl;
        if (ttl > 0) this.#cache.set(key, { result, expiresAt: this.#clock.now() + ttl });
        return result;
      },
      (err: unknown) => {
        this.#inFlight.delete(key);
        throw err;
      },
    );
    this.#inFlight.set(key, lookup);
    return lookup;
  }
}
