import { type Clock, realClock, type TimerHandle } from '@kapi/apimachinery';

export interface WorkQueueOptions {
  /** Times the retry backoff; tests pass the test server's clock. Default: the real clock. */
  clock?: Clock;
  /** First retry delay of a failing key, doubled per failure (client-go's ItemExponentialFailureRateLimiter). Default 5 ms. */
  baseDelayMs?: number;
  /** The cap of that delay. Default 60 s (client-go: 1000 s; a test-friendly example keeps it short). */
  maxDelayMs?: number;
}

/**
 * client-go's rate-limited work queue, as controllers use it: a key is queued once however often it is added, is never
 * handed to two workers at once (added again while processing, it is queued again when done), and a failing key comes
 * back after an exponentially growing delay until `forget` resets it.
 */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #queue: string[] = [];
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #delayed = new Map<string, { timer: TimerHandle; at: number }>();
  #waiters: ((key: string | undefined) => void)[] = [];
  #shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#baseDelayMs = options.baseDelayMs ?? 5;
    this.#maxDelayMs = options.maxDelayMs ?? 60_000;
  }

  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return; // queued again by done()
    const waiter = this.#waiters.shift();
    if (waiter) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      waiter(key);
    } else {
      this.#queue.push(key);
    }
  }

  /** Adds the key after `ms`; a key already waiting is added at the earlier of its two times (client-go's delaying queue). */
  addAfter(key: string, ms: number): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.#clock.now() + ms;
    const waiting = this.#delayed.get(key);
    if (waiting) {
      if (waiting.at <= at) return;
      this.#clock.clearTimeout(waiting.timer);
    }
    const timer = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, ms);
    timer.unref?.();
    this.#delayed.set(key, { timer, at });
  }

  /** Adds the key after its backoff: base · 2^failures, capped. */
  addRateLimited(key: string): void {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    this.addAfter(key, Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** failures));
  }

  /** Clears the key's failure count (after a success). */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** How often the key failed since it was last forgotten. */
  retries(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** The next key, or undefined once the queue shuts down. The caller must call done(key). */
  get(): Promise<string | undefined> {
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      return Promise.resolve(key);
    }
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key)) {
      this.#dirty.delete(key);
      this.add(key);
    }
  }

  get length(): number {
    return this.#queue.length;
  }

  /** Keys handed out and not yet done. */
  get processing(): number {
    return this.#processing.size;
  }

  /** Stops handing out keys: pending get() calls resolve undefined, timers are cancelled. */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const { timer } of this.#delayed.values()) this.#clock.clearTimeout(timer);
    this.#delayed.clear();
    for (const waiter of this.#waiters) waiter(undefined);
    this.#waiters = [];
  }
}
