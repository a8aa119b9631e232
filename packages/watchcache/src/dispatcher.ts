import type { Clock, KubeObject, TimerHandle, WatchEvent } from '@kapi/apimachinery';
import { bookmarkObject } from '@kapi/storage';
import type { CacheEvent } from './cache-event.ts';
import type { BlockedGroup, CacheWatcher } from './cache-watcher.ts';
import type { MetricsRecorder } from './metrics.ts';
import type { TimeBudget } from './time-budget.ts';

export interface DispatcherOptions {
  clock: Clock;
  budget: TimeBudget;
  metrics: MetricsRecorder;
  /** A watcher's index value for an object (for watchers with a trigger). */
  indexValue: (index: string, obj: KubeObject) => string | undefined;
  /** The cache's revision: what periodic bookmarks carry. */
  revision: () => number;
  /** About how often a watcher that allows bookmarks gets one (default 60 s, as kube-apiserver). */
  bookmarkIntervalMs: number;
}

/**
 * The Cacher's watchers and how changes reach them (the dispatch side of cacher.go): each change goes only to the
 * watchers whose range — and, for watchers selecting on an indexed field, whose index bucket — it touches; each gets
 * the event its selector implies, as one shared event object. Dispatch never waits for a reader: watchers whose
 * buffers are full share one slice of the time budget, and those still full when it runs out are terminated.
 * Periodic BOOKMARKs carry the cache's revision to watchers that allow them.
 */
export class Dispatcher {
  readonly #opts: DispatcherOptions;
  readonly #all = new Set<CacheWatcher>();
  readonly #unindexed = new Set<CacheWatcher>();
  /** index name → value → watchers whose field selector requires that value. */
  readonly #indexed = new Map<string, Map<string, Set<CacheWatcher>>>();
  readonly #bookmarking = new Set<CacheWatcher>();
  #bookmarkTimer: TimerHandle | undefined;
  #bookmarkAt = Number.POSITIVE_INFINITY;

  constructor(opts: DispatcherOptions) {
    this.#opts = opts;
  }

  get size(): number {
    return this.#all.size;
  }

  /** Registers a watcher (its initial events are already queued). */
  add(w: CacheWatcher): void {
    if (w.ended) return;
    this.#all.add(w);
    const t = w.trigger;
    if (t) {
      let buckets = this.#indexed.get(t.index);
      if (!buckets) {
        buckets = new Map();
        this.#indexed.set(t.index, buckets);
      }
      let set = buckets.get(t.value);
      if (!set) {
        set = new Set();
        buckets.set(t.value, set);
      }
      set.add(w);
    } else {
      this.#unindexed.add(w);
    }
    if (w.allowBookmarks) {
      w.nextBookmarkAt = this.#nextBookmarkTime(this.#opts.clock.now());
      this.#bookmarking.add(w);
      this.#scheduleBookmarks(w.nextBookmarkAt);
    }
    this.#opts.metrics.watchers(this.#all.size);
  }

  /** Unregisters a watcher that ended. */
  remove(w: CacheWatcher): void {
    if (!this.#all.delete(w)) return;
    const t = w.trigger;
    if (t) {
      const buckets = this.#indexed.get(t.index);
      const set = buckets?.get(t.value);
      set?.delete(w);
      if (set?.size === 0) buckets?.delete(t.value);
      if (buckets?.size === 0) this.#indexed.delete(t.index);
    } else {
      this.#unindexed.delete(w);
    }
    this.#bookmarking.delete(w);
    const g = w.blockedIn;
    if (g) this.unblocked(w, g);
    this.#opts.metrics.watchers(this.#all.size);
  }

  /** Sends a change to every watcher that should see it; returns how many did. */
  dispatch(ev: CacheEvent): number {
    let delivered = 0;
    let blocked: [CacheWatcher, WatchEvent][] | undefined;
    const visit = (w: CacheWatcher): void => {
      if (ev.rev <= w.lastRev || !w.covers(ev.key)) return;
      const view = ev.viewFor(w.matches);
      if (!view) return;
      w.lastRev = ev.rev;
      w.bookmarkedAtLastRev = false;
      delivered++;
      if (w.tryPush(view)) return;
      blocked ??= [];
      blocked.push([w, view]);
    };
    for (const w of this.#unindexed) visit(w);
    if (this.#indexed.size > 0) {
      const before = ev.prev ?? ev.deleted;
      for (const [index, buckets] of this.#indexed) {
        const now = ev.obj ? this.#opts.indexValue(index, ev.obj) : undefined;
        const was = before ? this.#opts.indexValue(index, before) : undefined;
        if (now !== undefined) for (const w of buckets.get(now) ?? []) visit(w);
        if (was !== undefined && was !== now) for (const w of buckets.get(was) ?? []) visit(w);
      }
    }
    if (blocked) this.#block(blocked);
    // The watchers hold their event now; the history need not (40 bytes an event, two events an updated object).
    ev.forgetView();
    this.#opts.metrics.dispatched(ev.type, ev.rev, delivered);
    return delivered;
  }

  /** A blocked watcher caught up: once its whole group has, the time it did not use goes back to the budget. */
  unblocked(w: CacheWatcher, group: BlockedGroup): void {
    if (!group.members.delete(w) || group.members.size > 0) return;
    group.timer?.cancel();
    this.#opts.budget.returnUnused(group.timeoutMs - (this.#opts.clock.now() - group.startedAt));
  }

  /** Ends every watcher's stream without an error (the cache lost history; their clients re-watch). */
  endAll(reason: 'relist' | 'stop'): void {
    for (const w of [...this.#all]) {
      if (reason === 'relist') this.#opts.metrics.terminated('relist');
      w.terminate();
    }
  }

  stop(): void {
    this.endAll('stop');
    if (this.#bookmarkTimer) this.#opts.clock.clearTimeout(this.#bookmarkTimer);
    this.#bookmarkTimer = undefined;
    this.#bookmarkAt = Number.POSITIVE_INFINITY;
  }

  #block(blocked: [CacheWatcher, WatchEvent][]): void {
    const { clock, budget } = this.#opts;
    const group: BlockedGroup = { timeoutMs: budget.takeAvailable(), startedAt: clock.now(), members: new Set() };
    for (const [w, view] of blocked) {
      w.block(view, group);
      group.members.add(w);
    }
    if (group.timeoutMs <= 0) {
      this.#expire(group);
      return;
    }
    const timer = clock.setTimeout(() => this.#expire(group), group.timeoutMs);
    timer.unref?.();
    group.timer = { cancel: () => clock.clearTimeout(timer) };
  }

  /** The group's time ran out: whoever is still blocked is too slow. */
  #expire(group: BlockedGroup): void {
    for (const w of [...group.members]) {
      group.members.delete(w);
      if (w.ended) continue;
      this.#opts.metrics.terminated('slow');
      w.terminate();
    }
  }

  /** About one interval from now; k8s jitters its bookmark tick so watchers do not all get theirs at once. */
  #nextBookmarkTime(now: number): number {
    const interval = this.#opts.bookmarkIntervalMs;
    return now + interval + Math.random() * Math.min(1000, interval / 4);
  }

  #scheduleBookmarks(at: number): void {
    if (at >= this.#bookmarkAt) return;
    const clock = this.#opts.clock;
    if (this.#bookmarkTimer) clock.clearTimeout(this.#bookmarkTimer);
    this.#bookmarkAt = at;
    this.#bookmarkTimer = clock.setTimeout(
      () => {
        this.#bookmarkTimer = undefined;
        this.#bookmarkAt = Number.POSITIVE_INFINITY;
        this.#sendBookmarks();
      },
      Math.max(0, at - clock.now()),
    );
    this.#bookmarkTimer.unref?.();
  }

  /** A BOOKMARK at the cache's revision to every watcher that is due one and has not had that revision yet. */
  #sendBookmarks(): void {
    const now = this.#opts.clock.now();
    const rev = this.#opts.revision();
    let bookmark: WatchEvent | undefined;
    let next = Number.POSITIVE_INFINITY;
    for (const w of this.#bookmarking) {
      if (w.nextBookmarkAt <= now) {
        w.nextBookmarkAt = this.#nextBookmarkTime(now);
        if (rev > w.lastRev || (rev === w.lastRev && !w.bookmarkedAtLastRev)) {
          bookmark ??= Object.freeze({ type: 'BOOKMARK', object: bookmarkObject(rev) });
          if (w.tryBookmark(bookmark)) {
            w.lastRev = rev;
            w.bookmarkedAtLastRev = true;
          }
        }
      }
      if (w.nextBookmarkAt < next) next = w.nextBookmarkAt;
    }
    if (next < Number.POSITIVE_INFINITY) this.#scheduleBookmarks(next);
  }
}
