/** The clock an {@link ExpiringLRU} reads; tests inject one they move by hand. */
export interface NowClock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/**
 * kube's cache.LRUExpireCache: at most `size` entries, each with its own TTL; the least recently used goes first when
 * full, and an entry read after its expiry is dropped (at the expiry instant it is still served, as kube's).
 */
export class ExpiringLRU<V> {
  readonly #size: number;
  readonly #clock: NowClock;
  readonly #entries = new Map<string, { value: V; expires: number }>();

  constructor(size: number, clock: NowClock) {
    this.#size = size;
    this.#clock = clock;
  }

  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    this.#entries.delete(key);
    if (this.#clock.now() > e.expires) return undefined; // kube: expired once now is after the expiry
    this.#entries.set(key, e); // most recently used last
    return e.value;
  }

  add(key: string, value: V, ttlMs: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: this.#clock.now() + ttlMs });
    if (this.#entries.size > this.#size) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
