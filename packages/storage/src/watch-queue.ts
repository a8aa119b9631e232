import type { Status, WatchEvent } from '@kapi/apimachinery';
import { Fifo } from './fifo.ts';
import type { Watch } from './interfaces.ts';

export interface WatchQueueOptions {
  signal?: AbortSignal;
  /** Called once when the watch ends, however it ends (stop, abort, error, overflow, end()). */
  onClose?: () => void;
  /**
   * Most events held for a reader that is not reading. Past it the watch ends (the reader re-watches from its last
   * resourceVersion) rather than growing without bound; the writer is never blocked.
   */
  maxQueued?: number;
}

/**
 * A Watch fed by a producer: `push` never blocks; the consumer iterates. Ending is idempotent; after an ERROR event
 * nothing more is delivered. One consumer at a time.
 */
export class WatchQueue implements Watch {
  readonly #events = new Fifo<WatchEvent>();
  #waiter: ((r: IteratorResult<WatchEvent>) => void) | undefined;
  #ended = false;
  #closed = false;
  #opts: WatchQueueOptions;
  #abort: (() => void) | undefined;

  constructor(opts: WatchQueueOptions = {}) {
    this.#opts = opts;
    const signal = opts.signal;
    if (signal) {
      if (signal.aborted) this.stop();
      else {
        this.#abort = () => this.stop();
        signal.addEventListener('abort', this.#abort, { once: true });
      }
    }
  }

  /** True once the watch has ended (nothing more will be accepted). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Events waiting to be read. */
  get queued(): number {
    return this.#events.length;
  }

  /** Delivers an event; returns false if the watch has ended. */
  push(event: WatchEvent): boolean {
    if (this.#ended) return false;
    const w = this.#waiter;
    if (w) {
      this.#waiter = undefined;
      w({ value: event, done: false });
      return true;
    }
    if (this.#opts.maxQueued !== undefined && this.queued >= this.#opts.maxQueued) {
      this.end();
      return false;
    }
    this.#events.push(event);
    return true;
  }

  /** Delivers an ERROR event carrying `status`, then ends the stream. */
  fail(status: Status): void {
    if (this.#ended) return;
    this.push({ type: 'ERROR', object: status });
    this.end();
  }

  /** No more events: the reader gets what is queued, then done. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#release();
    if (this.queued === 0) this.#finish();
  }

  /** Ends the watch now, dropping anything queued. */
  stop(): void {
    this.#events.clear();
    this.#ended = true;
    this.#release();
    this.#finish();
  }

  #release(): void {
    if (this.#abort && this.#opts.signal) this.#opts.signal.removeEventListener('abort', this.#abort);
    this.#abort = undefined;
    if (!this.#closed) {
      this.#closed = true;
      this.#opts.onClose?.();
    }
  }

  #finish(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    const value = this.#events.shift();
    if (value) return Promise.resolve({ value, done: false });
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    if (this.#waiter) return Promise.reject(new Error('WatchQueue: concurrent next() calls'));
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
