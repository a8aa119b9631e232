import type { Clock } from '@kapi/apimachinery';

export interface TimeBudgetOptions {
  /** Most time the budget holds (default 100 ms, as kube-apiserver's time_budget.go). */
  maxMs?: number;
  /** Time added per second that passes (default 50 ms). */
  refillMsPerSecond?: number;
}

/**
 * A budget of time shared by everything it is given to, refilled as time passes (k8s.io/apiserver's timeBudget):
 * take what is available, spend at most that, give back what was not spent. The Cacher takes from it when watchers'
 * buffers are full, so slow watchers together cannot hold events for longer than the budget allows.
 */
export class TimeBudget {
  readonly #clock: Clock;
  readonly #max: number;
  readonly #refill: number;
  #budget: number;
  #last: number;

  constructor(clock: Clock, opts: TimeBudgetOptions = {}) {
    this.#clock = clock;
    this.#max = opts.maxMs ?? 100;
    this.#refill = opts.refillMsPerSecond ?? 50;
    // k8s starts empty; a fresh cache starting full lets its first burst be judged like any later one.
    this.#budget = this.#max;
    this.#last = clock.now();
  }

  /** Everything available now (ms); the budget is empty until time passes or unused time is returned. */
  takeAvailable(): number {
    const now = this.#clock.now();
    const acc = Math.max(0, ((now - this.#last) / 1000) * this.#refill);
    this.#budget = Math.min(this.#max, this.#budget + acc);
    this.#last = now;
    const out = this.#budget;
    this.#budget = 0;
    return out;
  }

  /** Gives back time taken but not spent. */
  returnUnused(ms: number): void {
    if (ms <= 0) return;
    this.#budget = Math.min(this.#max, this.#budget + ms);
  }
}
