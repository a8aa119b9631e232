export interface LeaseManagerOptions {
  /** Grants a lease of `ttlSeconds` and returns its ID. */
  grant: (ttlSeconds: number) => Promise<number>;
  /** Longest extra life a key may get from sharing a lease (kube-apiserver's --lease-reuse-duration-seconds, 60). */
  reuseDurationSeconds?: number;
  /** Share of the TTL a key may outlive it by when sharing a lease (kube-apiserver: 5%). */
  reusePercent?: number;
  /** Most keys on one lease. */
  maxAttachedKeys?: number;
  /** Milliseconds clock (tests inject one). */
  now?: () => number;
}

/**
 * Hands out etcd leases for TTL'd writes, reusing the last one while it expires close enough to what a new key
 * asks for, as kube-apiserver's etcd3 lease manager does: a key with TTL t gets a lease expiring in
 * [t, t + min(5% of t, 60 s)]. Short TTLs (under 20 s) always get a fresh lease; a burst of events with a long TTL
 * shares one instead of creating thousands.
 */
export class LeaseManager {
  readonly #grant: (ttlSeconds: number) => Promise<number>;
  readonly #reuseCapSeconds: number;
  readonly #reusePercent: number;
  readonly #maxAttached: number;
  readonly #now: () => number;
  #prev: { id: number; expiresAt: number; attached: number } | undefined;

  constructor(options: LeaseManagerOptions) {
    this.#grant = options.grant;
    this.#reuseCapSeconds = options.reuseDurationSeconds ?? 60;
    this.#reusePercent = options.reusePercent ?? 0.05;
    this.#maxAttached = options.maxAttachedKeys ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /** Stops handing out lease `id` (etcd no longer knows it: revoked, or the cluster restored from a backup). */
  forget(id: number): void {
    if (this.#prev?.id === id) this.#prev = undefined;
  }

  /** A lease ID for a key that should live `ttlSeconds` (whole seconds, > 0). */
  async leaseFor(ttlSeconds: number): Promise<number> {
    const now = this.#now();
    const extra = Math.min(Math.floor(this.#reusePercent * ttlSeconds), this.#reuseCapSeconds);
    const prev = this.#prev;
    if (prev) {
      prev.attached++;
      const outlivesTtl = prev.expiresAt > now + ttlSeconds * 1000;
      const notTooLong = prev.expiresAt <= now + (ttlSeconds + extra) * 1000;
      if (outlivesTtl && notTooLong && prev.attached <= this.#maxAttached) return prev.id;
    }
    const ttl = ttlSeconds + extra;
    const id = await this.#grant(ttl);
    this.#prev = { id, expiresAt: now + ttl * 1000, attached: 1 };
    return id;
  }
}
