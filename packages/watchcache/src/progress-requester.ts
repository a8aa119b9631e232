import type { Clock, TimerHandle } from '@kapi/apimachinery';

/**
 * Asks the backend for a progress notification while someone waits for the cache to catch up (k8s'
 * conditionalProgressRequester): once when a wait starts, then every `intervalMs` until no one waits. Requests never
 * overlap; one asked for while another is in flight follows it.
 */
export class ProgressRequester {
  readonly #clock: Clock;
  readonly #request: (() => Promise<void>) | undefined;
  readonly #intervalMs: number;
  #waiting = 0;
  #timer: TimerHandle | undefined;
  #inFlight = false;
  #again = false;
  #stopped = false;

  constructor(clock: Clock, request: (() => Promise<void>) | undefined, intervalMs: number) {
    this.#clock = clock;
    this.#request = request;
    this.#intervalMs = intervalMs;
  }

  /** A wait started. */
  add(): void {
    this.#waiting++;
    if (!this.#request || this.#stopped) return;
    this.#fire();
    this.#schedule();
  }

  /** A wait ended. */
  remove(): void {
    this.#waiting = Math.max(0, this.#waiting - 1);
    if (this.#waiting === 0 && this.#timer) {
      this.#clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#timer || this.#waiting === 0 || this.#stopped) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      if (this.#waiting === 0 || this.#stopped) return;
      this.#fire();
      this.#schedule();
    }, this.#intervalMs);
    this.#timer.unref?.();
  }

  #fire(): void {
    const request = this.#request;
    if (!request) return;
    if (this.#inFlight) {
      this.#again = true;
      return;
    }
    this.#inFlight = true;
    request()
      .catch(() => {
        // The backend could not be asked now; the wait ends by its own deadline or a later request.
      })
      .finally(() => {
        this.#inFlight = false;
        if (this.#again && this.#waiting > 0 && !this.#stopped) {
          this.#again = false;
          this.#fire();
        }
      });
  }
}
