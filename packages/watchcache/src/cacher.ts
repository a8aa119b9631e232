import {
  type Clock,
  type KubeObject,
  newTooManyRequests,
  type ObjectList,
  parseResourceVersion,
  realClock,
  type StatusError,
  toStatusError,
  type WatchEvent,
} from '@kapi/apimachinery';
import {
  type AttrFunc,
  bookmarkObject,
  type CreateOptions,
  type DeleteOptions,
  deepFreeze,
  type GetOptions,
  hasPromptWatchProgress,
  isStorageError,
  type ListOptions,
  type ListPlan,
  normalizeKey,
  planList,
  prefixOf,
  recordStorageKey,
  type SelectionPredicate,
  type Storage,
  storageErrors,
  storageKeyOf,
  supports,
  type UpdateFunc,
  type UpdateOptions,
  type Watch,
  type WatchOptions,
} from '@kapi/storage';
import { CacheWatcher } from './cache-watcher.ts';
import { Dispatcher } from './dispatcher.ts';
import type { EventHistoryOptions } from './event-history.ts';
import { type CacherMetrics, type CacherStats, MetricsRecorder } from './metrics.ts';
import { ObjectMatcher } from './object-matcher.ts';
import { ProgressRequester } from './progress-requester.ts';
import { Ready } from './ready.ts';
import { type BackoffOptions, Reflector } from './reflector.ts';
import { TimeBudget, type TimeBudgetOptions } from './time-budget.ts';
import { WatchCache } from './watch-cache.ts';
import type { Indexers } from './watch-cache-store.ts';

export interface CacherOptions {
  /** The backend the cache reads from and every write goes to. */
  storage: Storage;
  /** The cached subtree, e.g. "/registry/example.kapi.dev/widgets": keys outside it go straight to the backend. */
  resourcePrefix: string;
  /**
   * Only a fallback: the storage key of an object from a backend that records no key for it (every kapi backend
   * does, see `storageKeyOf`). Default: `<resourcePrefix>/<namespace>/<name>`, or `<resourcePrefix>/<name>` without a
   * namespace.
   */
  keyFunc?: (obj: KubeObject) => string;
  /** Labels and fields selectors see (default: labels, metadata.name, metadata.namespace). */
  getAttrs?: AttrFunc;
  /**
   * Field indexes, e.g. `{ 'spec.nodeName': (o) => o.spec.nodeName }`: lists and watches whose field selector requires
   * an exact value of an indexed field look only at that value's objects. An indexer must agree with getAttrs.
   * metadata.namespace is built in.
   */
  indexers?: Indexers;
  /** Time source for waits, bookmarks, budgets and backoff (default: the real clock; FakeClock in tests). */
  clock?: Clock;
  /** Observability callbacks. */
  metrics?: CacherMetrics;
  /** How long a read waits for the cache to reach a revision before 504 / falling back (default 3000, kube-apiserver's). */
  freshnessTimeoutMs?: number;
  /** How often the backend is asked for progress while a read waits (default 100). */
  progressRequestIntervalMs?: number;
  /** About how often watchers that allow bookmarks get one (default 60000). */
  bookmarkIntervalMs?: number;
  /** Live events held per watcher whose reader is behind, before it is judged slow (default 10000). */
  watcherBufferSize?: number;
  /** The shared time budget full watchers may hold dispatch for (default max 100 ms, refilled 50 ms per second). */
  dispatchBudget?: TimeBudgetOptions;
  /** Event history sizing (default 100 to 100·1024 events, kept while younger than 75 s, at most 64 MiB of objects). */
  history?: EventHistoryOptions;
  /** Page size of the reflector's lists (default 10000). */
  listPageSize?: number;
  /** Backoff of the reflector after failures (default 250 ms doubling to 30 s). */
  relistBackoff?: BackoffOptions;
}

const INITIALIZING = 'storage is (re)initializing';

/**
 * A Storage that serves get, list and watch from memory, in front of any backend (kube-apiserver's Cacher). A
 * reflector lists the resource prefix and watches it; reads are answered from the cache with the backend's
 * semantics; writes go straight to the backend and come back through the watch. One backend watch serves any number
 * of watchers, each event encoded once for all of them (`encodedEvent`).
 *
 * @example
 * const cacher = new Cacher({ storage, resourcePrefix: '/registry/example.kapi.dev/widgets' });
 * await cacher.ready();
 * const list = await cacher.list('/registry/example.kapi.dev/widgets/default', { resourceVersion: '0' });
 */
export class Cacher implements Storage {
  /** Compacts the backend (present when the backend has compact). */
  compact?: (revision: number) => Promise<void>;
  /** Asks the backend for a progress notification (present when the backend can). */
  requestWatchProgress?: () => Promise<void>;

  readonly #storage: Storage;
  readonly #prefix: string;
  /** Keys the cache holds start with this: the prefix and a slash. */
  readonly #range: string;
  readonly #clock: Clock;
  readonly #keyFunc: (obj: KubeObject) => string;
  readonly #freshnessMs: number;
  readonly #bufferSize: number;
  readonly #matcher: ObjectMatcher;
  readonly #metrics: MetricsRecorder;
  readonly #cache: WatchCache;
  readonly #dispatcher: Dispatcher;
  readonly #reflector: Reflector;
  readonly #ready = new Ready();
  readonly #progress: ProgressRequester;
  #stopped = false;

  constructor(options: CacherOptions) {
    const storage = options.storage;
    this.#storage = storage;
    this.#prefix = normalizeKey(options.resourcePrefix).replace(/\/+$/, '');
    this.#range = prefixOf(this.#prefix);
    this.#clock = options.clock ?? realClock;
    this.#keyFunc = options.keyFunc ?? ((o) => this.#defaultKey(o));
    this.#freshnessMs = options.freshnessTimeoutMs ?? 3000;
    this.#bufferSize = options.watcherBufferSize ?? 10_000;
    this.#matcher = new ObjectMatcher(options.getAttrs);
    this.#metrics = new MetricsRecorder(options.metrics);
    this.#cache = new WatchCache({
      clock: this.#clock,
      indexers: options.indexers,
      prefix: this.#prefix,
      history: options.history,
      onChange: (ev) => this.#dispatcher.dispatch(ev),
    });
    this.#dispatcher = new Dispatcher({
      clock: this.#clock,
      budget: new TimeBudget(this.#clock, options.dispatchBudget),
      metrics: this.#metrics,
      indexValue: (index, obj) => this.#cache.store.indexValue(index, obj),
      revision: () => this.#cache.revision,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    });
    if (supports(storage, 'compact')) this.compact = (revision) => storage.compact(revision);
    const progress = supports(storage, 'requestWatchProgress') ? () => storage.requestWatchProgress() : undefined;
    if (progress) this.requestWatchProgress = progress;
    this.#progress = new ProgressRequester(this.#clock, progress, options.progressRequestIntervalMs ?? 100);
    this.#reflector = new Reflector({
      storage,
      prefix: this.#prefix,
      clock: this.#clock,
      pageSize: options.listPageSize,
      backoff: options.relistBackoff,
      sink: {
        replace: (items, rev) => this.#replace(items, rev),
        change: (ev) => this.#change(ev),
        progress: (rev) => this.#cache.progress(rev),
        expired: () => this.#expired(),
      },
    });
    this.#reflector.start();
  }

  /** Resolves once the cache has listed the backend and serves reads (rejects if the Cacher is stopped first). */
  ready(): Promise<void> {
    return this.#ready.wait();
  }

  /** Straight to the backend; the cache learns the object from its watch. */
  create(key: string, obj: KubeObject, opts?: CreateOptions): Promise<KubeObject> {
    return this.#storage.create(key, obj, opts);
  }

  /**
   * Served from the cache: "0" as the cache is; "N" once the cache reaches N (else 504 after the freshness timeout);
   * "" once the cache reaches the backend's current revision, when the backend confirms that promptly
   * (`promptWatchProgress`) — else, or if it cannot catch up in time, from the backend. Before the first sync every
   * get goes to the backend.
   */
  async get(key: string, opts: GetOptions = {}): Promise<KubeObject | null> {
    const k = normalizeKey(key);
    const rv = parseResourceVersion(opts.resourceVersion);
    if (!this.#holds(k) || !this.#serving()) return this.#storage.get(key, opts);
    if ((opts.resourceVersion ?? '') === '') {
      if (!this.#consistentFromCache() || !(await this.#catchUpToBackend())) return this.#storage.get(key, opts);
    } else if (rv > 0) {
      await this.#waitFresh(rv);
    }
    const obj = this.#cache.store.get(k);
    if (obj) return obj;
    if (opts.ignoreNotFound) return null;
    throw storageErrors.keyNotFound(k);
  }

  /**
   * Served from the cache, at the cache's revision, in key order: "0" as the cache is; "N" (NotOlderThan) once the
   * cache reaches N (else 504 after the freshness timeout); "" once the cache reaches the backend's current revision —
   * asking the backend for progress meanwhile — when the backend confirms that promptly (`promptWatchProgress`), else
   * (or if it cannot catch up in time) from the backend. Exact reads and paginated lists (limit, continue) go to the
   * backend. Before the first sync: 429.
   */
  async list(key: string, opts: ListOptions = {}): Promise<ObjectList> {
    const plan = planList(key, opts);
    const paged = plan.continuing || plan.limit > 0;
    if (!this.#covers(plan.recursive ? plan.prefix : plan.key) || paged || opts.resourceVersionMatch === 'Exact' || this.#stopped) {
      return this.#storage.list(key, opts);
    }
    if (!this.#ready.check()) throw initializing();
    if ((opts.resourceVersion ?? '') === '') {
      if (!this.#consistentFromCache() || !(await this.#catchUpToBackend())) return this.#storage.list(key, opts);
    } else if (plan.minRevision > 0) {
      await this.#waitFresh(plan.minRevision);
    }
    return this.#listFromCache(plan, opts.predicate);
  }

  async guaranteedUpdate(key: string, tryUpdate: UpdateFunc, opts: UpdateOptions = {}): Promise<KubeObject> {
    const k = normalizeKey(key);
    if (!this.#holds(k)) return this.#storage.guaranteedUpdate(key, tryUpdate, opts);
    return this.#storage.guaranteedUpdate(key, tryUpdate, { ...opts, cachedExisting: this.#freshest(k, opts.cachedExisting) });
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    const k = normalizeKey(key);
    if (!this.#holds(k)) return this.#storage.delete(key, opts);
    return this.#storage.delete(key, { ...opts, cachedExisting: this.#freshest(k, opts.cachedExisting) });
  }

  /**
   * Initial events come from the cache (in key order), changes from its history and then live. "" starts from the
   * backend's current revision (waiting for the cache to reach it) when the backend confirms freshness promptly, else
   * it is the backend's watch; "0" from the cache as it is; "N" replays the history after N, once the cache reached N
   * (410 "too old resource version" when N predates it). Before the first sync: 429.
   */
  watch(key: string, opts: WatchOptions = {}): Watch {
    const k = normalizeKey(key);
    const rv = parseResourceVersion(opts.resourceVersion);
    const recursive = opts.recursive ?? true;
    const range = recursive ? prefixOf(k) : k;
    const consistent = (opts.resourceVersion ?? '') === '';
    if (!this.#covers(range) || (consistent && this.#serving() && !this.#consistentFromCache())) return this.#storage.watch(key, opts);
    if (!this.#stopped && !this.#ready.check()) throw initializing();
    const w = new CacheWatcher({
      key: range,
      recursive,
      matches: this.#matcher.compile(opts.predicate),
      allowBookmarks: opts.allowWatchBookmarks ?? false,
      bufferSize: this.#bufferSize,
      signal: opts.signal,
      onClose: (x) => this.#dispatcher.remove(x),
      onUnblocked: (x, group) => this.#dispatcher.unblocked(x, group),
    });
    if (w.ended) return w;
    if (this.#stopped) {
      w.end();
      return w;
    }
    w.trigger = this.#triggerFor(opts.predicate);
    const initial = opts.sendInitialEvents ?? rv === 0;
    if (consistent) {
      this.#startConsistent(w, opts, initial).catch((err: unknown) => w.fail(toStatusError(err).status));
    } else if (rv > this.#cache.revision) {
      // kube's waitUntilFreshAndBlock: a revision the cache has not reached yet is waited for (504 if it never comes),
      // so the watcher starts from the cache's history like any other, with every change after `rv`.
      this.#waitFresh(rv)
        .then(() => this.#attach(w, opts, rv, initial))
        .catch((err: unknown) => w.fail(toStatusError(err).status));
    } else {
      this.#attach(w, opts, rv, initial);
    }
    return w;
  }

  count(key: string): Promise<number> {
    return this.#storage.count(key);
  }

  currentResourceVersion(): Promise<string> {
    return this.#storage.currentResourceVersion();
  }

  /**
   * Forgets the cache's history up to `revision` (default the backend's current one): a watch from an older
   * resourceVersion then gets 410 "too old resource version", as when kube's cache window has moved past it; watches
   * open now, and lists (served from the cache as it is), are not affected. It does not wait for the cache to reach
   * `revision` (which, over a backend without progress notifications, waits on the clock): changes up to it that
   * arrive later are not replayed to a watch from `revision` on, and one from before it is 410 all the same. kube's
   * Cacher has no such call (its window moves as events arrive): this is for tests that need a resumed watch to expire
   * now, e.g. after compacting the backend.
   */
  async compactHistory(revision?: number): Promise<void> {
    const target = revision ?? Number(await this.#storage.currentResourceVersion());
    if (this.#serving()) this.#cache.history.forgetThrough(target);
  }

  /** Asks the backend for its revision and reports how far the cache is behind it (also to metrics.lagObserved). */
  async measureLag(): Promise<number> {
    const backend = Number(await this.#storage.currentResourceVersion());
    this.#metrics.observedBackend(this.#cache.revision, backend);
    return this.#metrics.lag ?? 0;
  }

  stats(): CacherStats {
    const m = this.#metrics;
    return {
      ready: this.#ready.check(),
      resourceVersion: this.#cache.revision,
      objects: this.#cache.store.size,
      watchers: this.#dispatcher.size,
      eventsDispatched: m.eventsDispatched,
      eventsDelivered: m.eventsDelivered,
      slowWatchersTerminated: m.slowWatchersTerminated,
      lists: this.#reflector.lists,
      consistentReadFallbacks: m.consistentReadFallbacks,
      consistentReadsDelegated: m.consistentReadsDelegated,
      historySize: this.#cache.history.size,
      historyCapacity: this.#cache.history.capacity,
      lag: m.lag,
    };
  }

  /** Stops the reflector and timers and ends every watch. The backend stays open: it belongs to whoever made it. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#ready.stop();
    this.#reflector.stop();
    this.#progress.stop();
    this.#dispatcher.stop();
    this.#cache.abortWaits(storageErrors.unreachable(this.#prefix, new Error('cacher stopped')));
  }

  /** stop(), as a Storage closes. */
  async close(): Promise<void> {
    this.stop();
  }

  // ---- reads ----

  /** Whether the cache may answer reads (synced, not stopped). */
  #serving(): boolean {
    return !this.#stopped && this.#ready.check();
  }

  /** A key the cache holds. */
  #holds(key: string): boolean {
    return key.startsWith(this.#range);
  }

  /** A list or watch range (a prefix ending in "/", or one key) that lies within the cache. */
  #covers(range: string): boolean {
    return range.startsWith(this.#range);
  }

  /** Waits until the cache reaches `rev`, asking the backend for progress meanwhile; TooLargeResourceVersion on timeout. */
  async #waitFresh(rev: number): Promise<void> {
    if (this.#cache.revision >= rev) return;
    this.#progress.add();
    try {
      await this.#cache.waitUntilFresh(rev, this.#freshnessMs);
    } finally {
      this.#progress.remove();
    }
  }

  /**
   * Whether a consistent read may wait for the cache: only when the backend confirms freshness on request promptly.
   * Otherwise the read goes to the backend (one round trip), as kube-apiserver does over etcd before 3.4.31 / 3.5.13,
   * where a quiet resource would wait for etcd's timed progress notification or the freshness timeout.
   */
  #consistentFromCache(): boolean {
    if (hasPromptWatchProgress(this.#storage)) return true;
    this.#metrics.delegated();
    return false;
  }

  /** A consistent read's wait: true once the cache reached the backend's current revision, false if it could not in time. */
  async #catchUpToBackend(): Promise<boolean> {
    const target = Number(await this.#storage.currentResourceVersion());
    this.#metrics.observedBackend(this.#cache.revision, target);
    try {
      await this.#waitFresh(target);
      return true;
    } catch (err) {
      if (!isStorageError(err, 'TooLargeResourceVersion')) throw err;
      this.#metrics.fallback();
      return false;
    }
  }

  #listFromCache(plan: ListPlan, pred: SelectionPredicate | undefined): ObjectList {
    const rev = this.#cache.revision;
    const matches = this.#matcher.compile(pred);
    const items: KubeObject[] = [];
    for (const obj of this.#entries(plan.recursive ? plan.prefix : plan.key, plan.recursive, pred)) if (matches(obj)) items.push(obj);
    return { metadata: { resourceVersion: String(rev) }, items };
  }

  /** Candidate entries for a range: the index bucket when the selector pins an indexed field, else the key range. */
  #entries(range: string, recursive: boolean, pred: SelectionPredicate | undefined): readonly KubeObject[] {
    const store = this.#cache.store;
    if (!recursive) {
      const obj = store.get(range);
      return obj ? [obj] : [];
    }
    const t = this.#triggerFor(pred);
    return (t && store.byIndex(t.index, t.value, range)) || store.range(range);
  }

  /** The index a selector pins to one value (custom indexers first), if any. */
  #triggerFor(pred: SelectionPredicate | undefined): { index: string; value: string } | undefined {
    const field = pred?.field;
    if (!field || field.empty()) return undefined;
    for (const index of this.#cache.store.indexNames) {
      const value = field.requiresExactMatch(index);
      if (value !== undefined) return { index, value };
    }
    return undefined;
  }

  // ---- watches ----

  /** A watch from "": from the backend's current revision, once the cache has reached it. */
  async #startConsistent(w: CacheWatcher, opts: WatchOptions, initial: boolean): Promise<void> {
    const target = Number(await this.#storage.currentResourceVersion());
    if (w.ended) return;
    try {
      await this.#waitFresh(target);
    } catch (err) {
      // A legacy watch from "" is served from the cache as it is (kube-apiserver always does); a watch list is not.
      if (!isStorageError(err, 'TooLargeResourceVersion') || opts.sendInitialEvents) throw err;
    }
    this.#attach(w, opts, 0, initial);
  }

  /** Queues a watcher's initial events (snapshot, or history after `rv`) and registers it, in one synchronous step. */
  #attach(w: CacheWatcher, opts: WatchOptions, rv: number, initial: boolean): void {
    if (w.ended) return;
    if (!this.#serving()) {
      if (this.#stopped) w.end();
      else w.fail(initializing().status);
      return;
    }
    const rev = this.#cache.revision;
    if (initial) {
      const store = this.#cache.store;
      for (const obj of this.#entries(w.key, w.recursive, opts.predicate)) if (w.matches(obj)) w.sendInitial(store.addedEvent(obj));
      w.lastRev = rev;
      if (opts.sendInitialEvents && opts.allowWatchBookmarks) {
        w.sendInitial(Object.freeze({ type: 'BOOKMARK', object: bookmarkObject(rev, true) }));
        w.bookmarkedAtLastRev = true;
      }
    } else if (rv > 0) {
      let events: ReturnType<WatchCache['history']['since']>;
      try {
        events = this.#cache.history.since(rv);
      } catch (err) {
        w.fail(toStatusError(err).status);
        return;
      }
      for (const ev of events) {
        if (!w.covers(ev.key)) continue;
        const view = ev.viewFor(w.matches);
        if (view) w.sendInitial(view);
      }
      w.lastRev = Math.max(rv, rev);
    } else {
      w.lastRev = rev;
    }
    this.#dispatcher.add(w);
  }

  // ---- writes ----

  /** The newer of the caller's cachedExisting and the cache's object (k8s passes the cache's down to the backend). */
  #freshest(key: string, given: KubeObject | undefined): KubeObject | undefined {
    const mine = this.#cache.store.get(key);
    if (!mine || !given) return mine ?? given;
    return Number(given.metadata.resourceVersion) > Number(mine.metadata.resourceVersion) ? given : mine;
  }

  // ---- the reflector's side ----

  #replace(items: KubeObject[], rev: number): void {
    // A relist does not end watches by itself (kube's): after lost history #expired already ended them. Only a list
    // past what the cache has seen would hide changes from its watchers, and only then must they re-watch.
    if (rev > this.#cache.revision && this.#dispatcher.size > 0) this.#dispatcher.endAll('relist');
    const keyed: { key: string; obj: KubeObject }[] = [];
    for (const obj of items) {
      const key = this.#keyOf(obj);
      if (this.#holds(key)) keyed.push({ key, obj: deepFreeze(obj) });
    }
    this.#cache.replace(keyed, rev);
    this.#ready.set(true);
    this.#metrics.relisted(rev, keyed.length);
  }

  /** The backend lost the history the cache's watch needs: watchers cannot be continued; serve nothing until relisted. */
  #expired(): void {
    this.#ready.set(false);
    this.#dispatcher.endAll('relist');
  }

  /** Applies one change from the backend's watch (in revision order; one the cache already reflects is skipped). */
  #change(ev: WatchEvent): void {
    const cache = this.#cache;
    const obj = ev.object as KubeObject;
    const rev = Number(obj.metadata.resourceVersion);
    if (rev <= cache.revision) return;
    const key = this.#keyOf(obj);
    if (this.#holds(key)) cache.apply(ev.type as 'ADDED' | 'MODIFIED' | 'DELETED', key, deepFreeze(obj), rev);
    else cache.progress(rev);
  }

  /**
   * The storage key of an object from the backend: the one it recorded, else (a backend that records none) the key
   * function's, recorded on the object so that what the Cacher hands out carries its key too.
   */
  #keyOf(obj: KubeObject): string {
    const recorded = storageKeyOf(obj);
    if (recorded !== undefined) return recorded;
    const key = this.#keyFunc(obj);
    recordStorageKey(obj, key);
    return key;
  }

  #defaultKey(obj: KubeObject): string {
    const { namespace, name = '' } = obj.metadata;
    return namespace ? `${this.#prefix}/${namespace}/${name}` : `${this.#prefix}/${name}`;
  }
}

function initializing(): StatusError {
  return newTooManyRequests(INITIALIZING, 1);
}
