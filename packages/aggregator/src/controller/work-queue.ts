import type { Clock } from '@kapi/apimachinery';

/** workqueue.DefaultControllerRateLimiter's per-item backoff: 5ms doubling, at most 1000s (or `maxMs`). */
const backoffMs = (failures: number, maxMs: number): number => Math.min(5 * 2 ** failures, maxMs);

/**
 * A controller's work queue (client-go's rate-limited workqueue): names handled in the order queued by up to
 * `workers` at once, never one name by two workers (a name queued again while handled waits for it), a name queued
 * again while waiting handled once, a failed one queued again after a per-name backoff. Names queued before start()
 * wait for it.
 */
export class WorkQueue {
  readonly #handle: (name: string) => Promise<void>;
  readonly #clock: Clock;
  readonly #onError: (err: unknown) => void;
  readonly #queue = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #maxBackoffMs: number;
  readonly #workers: number;
  #running = false;

  /**
   * `maxBackoffMs`: the longest wait before a failed name is handled again (kube's default 1000 s). `workers`: how
   * many names are handled at once (kube runs several, so one slow remote does not hold the others).
   */
  constructor(
    handle: (name: string) => Promise<void>,
    clock: Clock,
    onError: (err: unknown) => void,
    maxBackoffMs = 1_000_000,
    workers = 1,
  ) {
    this.#handle = handle;
    this.#clock = clock;
    this.#onError = onError;
    this.#maxBackoffMs = maxBackoffMs;
    this.#workers = workers;
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
    while (this.#running && this.#processing.size < this.#workers) {
      let next: string | undefined;
      for (const name of this.#queue)
        if (!this.#processing.has(name)) {
          next = name;
          break;
        }
      if (next === undefined) return;
      this.#queue.delete(next);
      this.#processing.add(next);
      void this.#run(next);
    }
  }

  async #run(name: string): Promise<void> {
    try {
      await this.#handle(name);
      this.#failures.delete(name);
    } catch (err) {
      this.#onError(err);
      const failures = this.#failures.get(name) ?? 0;
      this.#failures.set(name, failures + 1);
      this.#clock.setTimeout(() => this.add(name), backoffMs(failures, this.#maxBackoffMs));
    } finally {
      this.#processing.delete(name);
      this.#drain();
    }
  }
}
