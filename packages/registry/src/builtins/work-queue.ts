import type { Clock, TimerHandle } from '@kapi/apimachinery';

export interface WorkQueueOptions {
  /** Syncs one key; a true result: it is to be looked at again after `retryAfterMs`. */
  sync: (key: string) => Promise<unknown>;
  clock: Clock;
  /** How long before a key whose sync failed (or asked for it) is synced again. */
  retryAfterMs: number;
  /** Told of every failed sync; the key is retried. */
  onError: (err: unknown, key: string) => void;
}

/**
 * A controller's work queue (client-go's rate-limited workqueue, with a fixed delay): keys added while it is open
 * are synced by one worker, so a key is never synced twice at once, and a key added while its sync runs is synced
 * again after. A failed sync is retried later, at most one timer per key.
 */
export class WorkQueue {
  readonly #options: WorkQueueOptions;
  readonly #queue = new Set<string>();
  readonly #timers = new Map<string, TimerHandle>();
  #worker: Promise<void> | undefined;
  #open = false;

  constructor(options: WorkQueueOptions) {
    this.#options = options;
  }

  open(): void {
    this.#open = true;
  }

  /** Takes no more keys and drops pending ones and retries; a sync under way finishes. */
  close(): void {
    this.#open = false;
    for (const t of this.#timers.values()) this.#options.clock.clearTimeout(t);
    this.#timers.clear();
    this.#queue.clear();
  }

  add(key: string): void {
    if (!this.#open) return;
    this.#queue.add(key);
    // Never inline: a caller adding keys while it fills its cache (an informer's list) finishes first, as kube's
    // workers run apart from the handlers that add.
    this.#worker ??= Promise.resolve().then(() => this.#work());
  }

  /** Whether `key` waits in the queue (not one syncing now, nor one waiting to be retried). */
  has(key: string): boolean {
    return this.#queue.has(key);
  }

  /** Resolves once no key is queued or syncing (keys waiting to be retried do not count). */
  async idle(): Promise<void> {
    while (this.#worker) await this.#worker;
  }

  async #work(): Promise<void> {
    try {
      for (let key = first(this.#queue); key !== undefined && this.#open; key = first(this.#queue)) {
        this.#queue.delete(key);
        try {
          if (await this.#options.sync(key)) this.#retryLater(key);
        } catch (err) {
          this.#options.onError(err, key);
          this.#retryLater(key);
        }
      }
    } finally {
      this.#worker = undefined;
    }
    // Something queued between the loop's last check and now.
    if (this.#queue.size && this.#open) this.#worker ??= Promise.resolve().then(() => this.#work());
  }

  #retryLater(key: string): void {
    if (!this.#open || this.#timers.has(key)) return;
    this.#timers.set(
      key,
      this.#options.clock.setTimeout(() => {
        this.#timers.delete(key);
        this.add(key);
      }, this.#options.retryAfterMs),
    );
  }
}

function first(set: Set<string>): string | undefined {
  for (const v of set) return v;
  return undefined;
}
