import { type Clock, realClock } from '@kapi/apimachinery';
import type { ListAndWatchOptions } from './list-and-watch.ts';
import { WorkQueue } from './work-queue.ts';

export interface ControllerLoopOptions {
  /** Timers of retries (default: the real clock). */
  clock?: Clock;
  /** How long before a key whose sync failed (or asked for it), or a watch that failed, is tried again. Default 1000. */
  retryAfterMs?: number;
  /** Told of every failed sync or list; the work is retried. */
  onError?: (err: unknown, key?: string) => void;
}

/** What listAndWatch needs besides the handlers, as one start of the loop gives it. */
export type InformerLoop = Pick<ListAndWatchOptions, 'signal' | 'clock' | 'retryAfterMs' | 'onError'>;

/**
 * What an in-process controller runs on: a work queue syncing keys one at a time, and the informers
 * (listAndWatch) that fill it, started together and stopped together. The controller keeps its own sync and handlers.
 */
export class ControllerLoop {
  readonly clock: Clock;
  readonly retryAfterMs: number;
  readonly onError: (err: unknown, key?: string) => void;
  readonly queue: WorkQueue;
  #abort: AbortController | undefined;

  constructor(options: ControllerLoopOptions, sync: (key: string) => Promise<unknown>) {
    this.clock = options.clock ?? realClock;
    this.retryAfterMs = options.retryAfterMs ?? 1000;
    this.onError = options.onError ?? (() => {});
    this.queue = new WorkQueue({ sync, clock: this.clock, retryAfterMs: this.retryAfterMs, onError: this.onError });
  }

  get running(): boolean {
    return this.#abort !== undefined;
  }

  /** Opens the queue and calls `informers` to start the list-and-watch loops, which end when `stop` is called; nothing when running. */
  start(informers: (loop: InformerLoop) => void): void {
    if (this.#abort) return;
    const abort = new AbortController();
    this.#abort = abort;
    this.queue.open();
    informers({ signal: abort.signal, clock: this.clock, retryAfterMs: this.retryAfterMs, onError: this.onError });
  }

  /** Stops watching and drops pending work and retries; a sync under way finishes. */
  stop(): void {
    this.#abort?.abort();
    this.#abort = undefined;
    this.queue.close();
  }
}
