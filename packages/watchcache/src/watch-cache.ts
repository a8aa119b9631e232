import type { Clock, KubeObject, TimerHandle } from '@kapi/apimachinery';
import { storageErrors } from '@kapi/storage';
import { CacheEvent, type ChangeType } from './cache-event.ts';
import { EventHistory, type EventHistoryOptions } from './event-history.ts';
import { type Indexers, WatchCacheStore } from './watch-cache-store.ts';

export interface WatchCacheOptions {
  clock: Clock;
  indexers?: Indexers;
  /** The resource's key prefix (no trailing slash), when every key starts with it: the store indexes less. */
  prefix?: string;
  history?: EventHistoryOptions;
  /** Called for every change once the cache reflects it (the Cacher dispatches it to watchers). */
  onChange: (ev: CacheEvent) => void;
}

interface Waiter {
  rev: number;
  resolve: () => void;
  reject: (err: Error) => void;
  timer: TimerHandle;
}

/**
 * The cache's state (watch_cache.go): the current objects, the recent history, and the revision the cache is at
 * (the last change it applied, or a newer revision the backend said it is complete up to). Readers that need a
 * newer revision wait for it here.
 */
export class WatchCache {
  readonly store: WatchCacheStore;
  readonly history: EventHistory;
  readonly #clock: Clock;
  readonly #onChange: (ev: CacheEvent) => void;
  readonly #waiters = new Set<Waiter>();
  #rev = 0;

  constructor(opts: WatchCacheOptions) {
    this.#clock = opts.clock;
    this.#onChange = opts.onChange;
    this.store = new WatchCacheStore(opts.indexers, opts.prefix);
    this.history = new EventHistory(opts.history);
  }

  /** The revision the cache reflects: every change up to it has been applied. */
  get revision(): number {
    return this.#rev;
  }

  /** A fresh list at `rev`: the cache holds exactly `items`, and history starts over. */
  replace(items: readonly { key: string; obj: KubeObject }[], rev: number): void {
    this.store.replace(items);
    this.history.reset(rev);
    this.#rev = rev;
    this.#wake();
  }

  /**
   * Applies one change at `rev` to `key`. `obj` is the new object, or for a delete the last state the backend sent.
   * A change at or below the cache's revision is already reflected and is ignored.
   */
  apply(type: ChangeType, key: string, obj: KubeObject, rev: number): void {
    if (rev <= this.#rev) return;
    const prev = this.store.get(key) ?? null;
    let ev: CacheEvent | undefined;
    const now = this.#clock.now();
    if (type === 'DELETED') {
      // Deleting what the cache never held changes nothing a watcher has seen.
      if (prev) {
        this.store.delete(key);
        ev = new CacheEvent('DELETED', key, rev, { obj: null, prev, deleted: obj });
      }
    } else {
      this.store.set(key, obj);
      ev = new CacheEvent(prev ? 'MODIFIED' : 'ADDED', key, rev, { obj, prev });
    }
    this.#rev = rev;
    if (ev) {
      this.history.add(ev, now);
      this.#onChange(ev);
    }
    this.#wake();
  }

  /** The backend says every change up to `rev` has been delivered (a progress BOOKMARK). */
  progress(rev: number): void {
    if (rev <= this.#rev) return;
    this.#rev = rev;
    this.#wake();
  }

  /** Resolves once the cache reaches `rev`; after `timeoutMs` rejects with TooLargeResourceVersion (504, retry after 1 s). */
  waitUntilFresh(rev: number, timeoutMs: number): Promise<void> {
    if (this.#rev >= rev) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        rev,
        resolve,
        reject,
        timer: this.#clock.setTimeout(() => {
          this.#waiters.delete(w);
          reject(storageErrors.tooLargeResourceVersion(rev, this.#rev));
        }, timeoutMs),
      };
      w.timer.unref?.();
      this.#waiters.add(w);
    });
  }

  /** Fails every pending wait (the cache is stopping). */
  abortWaits(err: Error): void {
    for (const w of this.#waiters) {
      this.#clock.clearTimeout(w.timer);
      w.reject(err);
    }
    this.#waiters.clear();
  }

  #wake(): void {
    if (this.#waiters.size === 0) return;
    for (const w of this.#waiters) {
      if (w.rev > this.#rev) continue;
      this.#waiters.delete(w);
      this.#clock.clearTimeout(w.timer);
      w.resolve();
    }
  }
}
