import type { Status, WatchEvent } from '@kapi/apimachinery';
import { Fifo, type Watch } from '@kapi/storage';
import type { Matcher } from './object-matcher.ts';

/** Watchers whose buffers filled up during one dispatch: they share one slice of the time budget. */
export interface BlockedGroup {
  readonly timeoutMs: number;
  readonly startedAt: number;
  readonly members: Set<CacheWatcher>;
  timer?: { cancel(): void };
}

export interface CacheWatcherOptions {
  /** The range watched: a prefix ending in "/" (recursive) or one key. */
  key: string;
  recursive: boolean;
  matches: Matcher;
  allowBookmarks: boolean;
  /** Live events held for a reader that is behind (initial events do not count). */
  bufferSize: number;
  signal?: AbortSignal;
  /** Called once when the watch ends, however it ends. */
  onClose: (w: CacheWatcher) => void;
  /** Called when a blocked watcher's reader caught up: everything fits in its buffer again. */
  onUnblocked: (w: CacheWatcher, group: BlockedGroup) => void;
}

/**
 * One watch served by the Cacher (cache_watcher.go). Its reader gets initial events first (the snapshot or history
 * replay, unbounded), then live events through a bounded buffer. When the buffer is full the dispatcher does not
 * wait: the watcher becomes blocked, holds the overflow, and either its reader catches up within the time the
 * dispatcher granted or the watcher is terminated — its stream ends without an error after what it already buffered,
 * and its client re-watches from the last resourceVersion it saw.
 */
export class CacheWatcher implements Watch {
  readonly key: string;
  readonly recursive: boolean;
  readonly matches: Matcher;
  readonly allowBookmarks: boolean;
  /** Revision of the last event queued for this watcher (or where it started): older changes are not sent. */
  lastRev = 0;
  /** A BOOKMARK at lastRev has been queued. */
  bookmarkedAtLastRev = false;
  /** When this watcher is due a periodic BOOKMARK (clock ms). */
  nextBookmarkAt = Number.POSITIVE_INFINITY;
  /** Where the dispatcher keeps it: an index bucket, or undefined for the unindexed set. */
  trigger: { index: string; value: string } | undefined;
  readonly #bufferSize: number;
  readonly #signal: AbortSignal | undefined;
  readonly #onClose: (w: CacheWatcher) => void;
  readonly #onUnblocked: (w: CacheWatcher, group: BlockedGroup) => void;
  readonly #initial = new Fifo<WatchEvent>();
  readonly #buf = new Fifo<WatchEvent>();
  #overflow: WatchEvent[] = [];
  #group: BlockedGroup | undefined;
  #waiter: ((r: IteratorResult<WatchEvent>) => void) | undefined;
  #ended = false;
  #closed = false;
  #abort: (() => void) | undefined;

  constructor(opts: CacheWatcherOptions) {
    this.key = opts.key;
    this.recursive = opts.recursive;
    this.matches = opts.matches;
    this.allowBookmarks = opts.allowBookmarks;
    this.#bufferSize = Math.max(1, opts.bufferSize);
    this.#onClose = opts.onClose;
    this.#onUnblocked = opts.onUnblocked;
    this.#signal = opts.signal;
    if (opts.signal) {
      if (opts.signal.aborted) this.stop();
      else {
        this.#abort = () => this.stop();
        opts.signal.addEventListener('abort', this.#abort, { once: true });
      }
    }
  }

  /** Nothing more will be accepted. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The dispatch group this watcher is blocked in, if any. */
  get blockedIn(): BlockedGroup | undefined {
    return this.#group;
  }

  /** Live events waiting to be read. */
  get buffered(): number {
    return this.#buf.length;
  }

  /** Whether a change to `key` is in this watcher's range. */
  covers(key: string): boolean {
    return this.recursive ? key.startsWith(this.key) : key === this.key;
  }

  /** Queues an initial event (snapshot or history replay): not limited by the buffer. */
  sendInitial(ev: WatchEvent): void {
    if (this.#ended) return;
    if (this.#deliver(ev)) return;
    this.#initial.push(ev);
  }

  /**
   * Queues a live event. False when the buffer is full and the watcher is not blocked yet: the dispatcher then
   * decides how long it may stay blocked (`block`). A blocked watcher takes the event into its overflow.
   */
  tryPush(ev: WatchEvent): boolean {
    if (this.#ended) return true;
    if (this.#group) {
      this.#overflow.push(ev);
      return true;
    }
    if (this.#deliver(ev)) return true;
    if (this.buffered >= this.#bufferSize) return false;
    this.#buf.push(ev);
    return true;
  }

  /** Holds `ev` beyond the full buffer while the group's time lasts. */
  block(ev: WatchEvent, group: BlockedGroup): void {
    this.#group = group;
    this.#overflow.push(ev);
  }

  /** Queues a BOOKMARK if there is room; a full or blocked watcher simply misses it. */
  tryBookmark(ev: WatchEvent): boolean {
    if (this.#ended || this.#group) return false;
    if (this.#deliver(ev)) return true;
    if (this.buffered >= this.#bufferSize) return false;
    this.#buf.push(ev);
    return true;
  }

  /** Ends the stream for being too slow: the reader gets what is buffered (not the overflow), then the end. */
  terminate(): void {
    this.#overflow = [];
    // The dispatcher sees which group it leaves while it unregisters it (end → onClose).
    this.end();
    this.#group = undefined;
  }

  /** Delivers an ERROR event carrying `status`, then ends the stream. */
  fail(status: Status): void {
    if (this.#ended) return;
    const ev: WatchEvent = { type: 'ERROR', object: status };
    if (!this.#deliver(ev)) {
      // After everything already queued, whatever its kind.
      if (this.buffered > 0 || this.#overflow.length > 0) {
        for (const o of this.#overflow) this.#buf.push(o);
        this.#overflow = [];
        this.#buf.push(ev);
      } else this.#initial.push(ev);
    }
    this.#group = undefined;
    this.end();
  }

  /** No more events: the reader gets what is queued, then done. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#release();
    if (this.#queued() === 0) this.#finish();
  }

  /** Ends the watch now, dropping anything queued. */
  stop(): void {
    this.#initial.clear();
    this.#buf.clear();
    this.#overflow = [];
    this.#ended = true;
    this.#release();
    this.#finish();
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    let value = this.#initial.shift();
    if (!value) {
      value = this.#buf.shift();
      if (value) this.#refill();
    }
    if (value) {
      if (this.#ended && this.#queued() === 0) this.#finish();
      return Promise.resolve({ value, done: false });
    }
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    if (this.#waiter) return Promise.reject(new Error('CacheWatcher: concurrent next() calls'));
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

  /** Moves overflow into the buffer as room frees up; once it all fits, the watcher is no longer blocked. */
  #refill(): void {
    const group = this.#group;
    if (!group) return;
    const n = Math.min(this.#overflow.length, this.#bufferSize - this.buffered);
    for (let i = 0; i < n; i++) this.#buf.push(this.#overflow[i] as WatchEvent);
    if (n > 0) this.#overflow.splice(0, n);
    if (this.#overflow.length === 0) {
      this.#group = undefined;
      this.#onUnblocked(this, group);
    }
  }

  /** Hands `ev` straight to a waiting reader; false if no reader waits (or events are queued ahead of it). */
  #deliver(ev: WatchEvent): boolean {
    const w = this.#waiter;
    if (!w) return false;
    this.#waiter = undefined;
    w({ value: ev, done: false });
    return true;
  }

  #queued(): number {
    return this.#initial.length + this.buffered + this.#overflow.length;
  }

  #release(): void {
    if (this.#abort && this.#signal) this.#signal.removeEventListener('abort', this.#abort);
    this.#abort = undefined;
    if (!this.#closed) {
      this.#closed = true;
      this.#onClose(this);
    }
  }

  #finish(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.({ value: undefined, done: true });
  }
}
