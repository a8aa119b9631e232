import type { Clock } from '@kapi/apimachinery';

/** workqueue.DefaultControllerRateLimiter's per-item backoff: 5ms doubling, at most 1000s (or `maxMs`). */
const backoffMs = (failures: number, maxMs: number): number => Math.min(5 * 2 ** failures, maxMs);

/**
 * A controller's work queue (client-go's rate-limited workqueue, one worker): names handled one at a time in the order
 * queued, a name queued again while waiting handled once, a failed one queued again after a per-name backoff. Names
 * queued before start() wait for it.
 */
export class WorkQueue {
  readonly #handle: (name: string) => Promise<void>;
  readonly #clock: Clock;
  readonly #onError: (err: unknown) => void;
  readonly #queue = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #maxBackoffMs: number;
  #running = false;
  #draining = false;

  /** `maxBackoffMs`: the longest wait before a failed name is handled again (kube's default 1000 s). */
  constructor(handle: (name: string) => Promise<void>, clock: Clock, onError: (err: unknown) => void, maxBackoffMs = 1_000_000) {
    this.#handle = handle;
    this.#clock = clock;
    this.#onError = onError;
    this.#maxBackoffMs = maxBackoffMs;
  }

  add(name: string): void {
    this.#queue.add(name);
    this.#drain();
  }

  start(): void {
    this.#running = true;
    this.#drain();
  }

  stop(): void {
    this.#running = false;
  }

  #drain(): void {
    if (!this.#running || this.#draining) return;
    this.#draining = true;
    void (async () => {
      while (this.#running && this.#queue.size > 0) {
        const name = this.#queue.values().next().value as string;
        this.#queue.delete(name);
        try {
          await this.#handle(name);
          this.#failures.delete(name);
        } catch (err) {
          this.#onError(err);
          const failures = this.#failures.get(name) ?? 0;
          this.#failures.set(name, failures + 1);
          this.#clock.setTimeout(() => this.add(name), backoffMs(failures, this.#maxBackoffMs));
        }
      }
    })().finally(() => {
      this.#draining = false;
      if (this.#running && this.#queue.size > 0) this.#drain();
    });
  }
}
