import {
  type Clock,
  type KubeObject,
  newResourceExpired,
  type ObjectList,
  parseResourceVersion,
  realClock,
  type TimerHandle,
} from '@kapi/apimachinery';
import { recordCommitted } from '../committed-encoding.ts';
import { sameStoredObject } from '../deep-equal.ts';
import { freezeForStorage } from '../freeze-for-storage.ts';
import type {
  Compactable,
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  Storage,
  UpdateFunc,
  UpdateOptions,
  Watch,
  WatchOptions,
  WatchProgressRequester,
} from '../interfaces.ts';
import { normalizeKey, prefixOf } from '../keys.ts';
import { continueAfter, planList, resolveReadRevision } from '../list-plan.ts';
import { checkPreconditions } from '../preconditions.ts';
import { predicateMatches, type SelectionPredicate } from '../selection-predicate.ts';
import { shareUnchanged } from '../share-unchanged.ts';
import { MESSAGES, storageErrors } from '../storage-error.ts';
import { recordStorageKey, storageKeyOf } from '../storage-key.ts';
import { copyForStorage, markStoredEntries } from '../stored-entries.ts';
import { bookmarkObject, lastStateAt, watchEventFor } from '../watch-event.ts';
import { WatchQueue } from '../watch-queue.ts';
import { type Change, MvccStore } from './mvcc-store.ts';

export interface MemoryCompactionPolicy {
  /** Keep at least this many revisions of history. */
  keepRevisions?: number;
  /** Keep history younger than this. */
  keepSeconds?: number;
  /** How often the policy runs (default 60 s). */
  intervalMs?: number;
  /**
   * Whatever the rules above keep, history (the superseded versions, weighed by their JSON size) never holds more
   * than this: a write that takes it past compacts at once from the oldest change on, down to three quarters of it
   * (default 64 MiB). A count or an age alone lets a history of large objects grow without measure.
   */
  maxHistoryBytes?: number;
}

export interface MemoryStorageOptions {
  /** Time source for TTLs, progress notifications and compaction (default: the real clock). */
  clock?: Clock;
  /** How often idle watchers that asked for progressNotify get a BOOKMARK (default 5000 ms, kube-apiserver's etcd setting). */
  progressNotifyIntervalMs?: number;
  /**
   * Automatic compaction: history is kept while within `keepRevisions` of the head OR younger than `keepSeconds`, and
   * never past `maxHistoryBytes`. Default: 5 minutes, checked every minute (kube-apiserver compacts etcd every 5
   * minutes), at most 64 MiB. `false` keeps all history.
   */
  compaction?: MemoryCompactionPolicy | false;
  /** Events held for a watcher that is not reading before it is ended (default 100,000). */
  watchQueueLimit?: number;
}

interface Watcher {
  queue: WatchQueue;
  /** Range for recursive watches, the exact key otherwise. */
  key: string;
  recursive: boolean;
  pred: SelectionPredicate | undefined;
  progressNotify: boolean;
  /** Something was sent since the last progress tick. */
  active: boolean;
}

const DEFAULT_COMPACTION: MemoryCompactionPolicy = { keepSeconds: 300, intervalMs: 60_000 };
const DEFAULT_MAX_HISTORY_BYTES = 64 * 2 ** 20;

/**
 * The in-memory Storage: one store-wide revision, MVCC history until compaction, Exact reads and snapshot
 * pagination from history, watches from any retained revision, TTLs and progress notifications on an injectable
 * clock. Objects it returns are shared and frozen.
 *
 * @example
 * const storage = new MemoryStorage();
 * await storage.create('/registry/widgets/default/a', { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'a' } });
 */
export class MemoryStorage implements Storage, Compactable, WatchProgressRequester {
  readonly #clock: Clock;
  readonly #store = new MvccStore();
  readonly #watchers = new Set<Watcher>();
  readonly #ttlTimers = new Set<TimerHandle>();
  readonly #progressMs: number;
  readonly #queueLimit: number;
  readonly #policy: MemoryCompactionPolicy | false;
  readonly #maxHistoryBytes: number;
  /** Reused out-parameter of copyForStorage (one write at a time). */
  readonly #size: { bytes: number; text?: string | undefined } = { bytes: 0 };
  #progressTimer: TimerHandle | undefined;
  #compactionTimer: TimerHandle | undefined;
  #closed = false;

  constructor(options: MemoryStorageOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#progressMs = options.progressNotifyIntervalMs ?? 5000;
    this.#queueLimit = options.watchQueueLimit ?? 100_000;
    this.#policy = options.compaction === undefined ? DEFAULT_COMPACTION : options.compaction;
    this.#maxHistoryBytes = this.#policy ? (this.#policy.maxHistoryBytes ?? DEFAULT_MAX_HISTORY_BYTES) : Number.POSITIVE_INFINITY;
    this.#scheduleCompaction();
  }

  async create(key: string, obj: KubeObject, opts: CreateOptions = {}): Promise<KubeObject> {
    const k = normalizeKey(key);
    this.#assertOpen(k);
    if (obj.metadata?.resourceVersion) throw storageErrors.invalidObject(k, MESSAGES.rvOnCreate);
    const existing = this.#store.latest(k);
    if (existing?.obj) throw storageErrors.keyExists(k, existing.rev);
    const stored = this.#commit(k, obj);
    if (opts.ttlSeconds !== undefined && opts.ttlSeconds > 0)
      this.#expireLater(k, Number(stored.metadata.resourceVersion), opts.ttlSeconds);
    return stored;
  }

  async get(key: string, opts: GetOptions = {}): Promise<KubeObject | null> {
    const k = normalizeKey(key);
    const min = parseResourceVersion(opts.resourceVersion);
    if (min > this.#store.rev) throw storageErrors.tooLargeResourceVersion(min, this.#store.rev);
    const obj = this.#store.latest(k)?.obj ?? null;
    if (!obj) {
      if (opts.ignoreNotFound) return null;
      throw storageErrors.keyNotFound(k);
    }
    return obj;
  }

  async list(key: string, opts: ListOptions = {}): Promise<ObjectList> {
    const plan = planList(key, opts);
    const store = this.#store;
    const rev = resolveReadRevision(plan, store.rev, store.compacted);
    const latest = rev === store.rev;
    const read = (k: string): KubeObject | null => (latest ? (store.latest(k)?.obj ?? null) : store.at(k, rev));
    const pred = opts.predicate;
    const items: KubeObject[] = [];

    if (!plan.recursive) {
      const obj = read(plan.key);
      if (obj && predicateMatches(pred, obj)) items.push(obj);
      return { metadata: { resourceVersion: String(rev) }, items };
    }

    let lastKey = '';
    let more = false;
    let remaining = 0;
    const all = plan.unfiltered;
    for (const k of store.keysFrom(plan.startKey, plan.prefix)) {
      const obj = read(k);
      if (!obj) continue;
      if (plan.limit > 0 && items.length >= plan.limit) {
        more = true;
        if (!all) break;
        remaining++;
        continue;
      }
      lastKey = k;
      if (all || predicateMatches(pred, obj)) items.push(obj);
    }
    const metadata: ObjectList['metadata'] = { resourceVersion: String(rev) };
    if (more) {
      metadata.continue = continueAfter(plan, lastKey, rev);
      if (plan.unfiltered) metadata.remainingItemCount = remaining;
    }
    return { metadata, items };
  }

  async guaranteedUpdate(key: string, tryUpdate: UpdateFunc, opts: UpdateOptions = {}): Promise<KubeObject> {
    const k = normalizeKey(key);
    let cached = opts.cachedExisting;
    for (;;) {
      const { latest, current, stale } = this.#readForWrite(k, cached);
      cached = undefined;
      if (!current && !opts.ignoreNotFound) throw storageErrors.keyNotFound(k);
      const failed = current ? checkPreconditions(k, opts.preconditions, current) : undefined;
      if (failed) {
        if (stale) continue;
        throw failed;
      }
      let next: KubeObject;
      try {
        next = await tryUpdate(current);
      } catch (err) {
        if (stale) continue;
        throw err;
      }
      const now = this.#store.latest(k)?.obj ?? null;
      if (now !== latest || (stale && current !== now)) continue; // written meanwhile, or our view was stale: try again
      // Nothing to write: answer with the stored object (current may be the caller's cachedExisting, which is no copy of ours).
      if (current && sameStoredObject(next, current)) return now ?? current;
      const stored = this.#commit(k, next);
      return stored;
    }
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    const k = normalizeKey(key);
    let cached = opts.cachedExisting;
    for (;;) {
      const { latest, current, stale } = this.#readForWrite(k, cached);
      cached = undefined;
      if (!current) throw storageErrors.keyNotFound(k);
      const failed = checkPreconditions(k, opts.preconditions, current);
      if (failed) {
        if (stale) continue;
        throw failed;
      }
      if (opts.validateDeletion) {
        try {
          await opts.validateDeletion(current);
        } catch (err) {
          if (stale) continue;
          throw err;
        }
      }
      const now = this.#store.latest(k)?.obj ?? null;
      if (stale || now !== latest) continue;
      return this.#remove(k);
    }
  }

  watch(key: string, opts: WatchOptions = {}): Watch {
    const recursive = opts.recursive ?? true;
    const k = normalizeKey(key);
    const range = recursive ? prefixOf(k) : k;
    const rv = parseResourceVersion(opts.resourceVersion);
    // onClose may run inside the constructor (an already-aborted signal), before `w` exists: go through a holder.
    const holder: { w?: Watcher } = {};
    const w: Watcher = {
      queue: new WatchQueue({ signal: opts.signal, maxQueued: this.#queueLimit, onClose: () => holder.w && this.#unregister(holder.w) }),
      key: range,
      recursive,
      pred: opts.predicate,
      progressNotify: opts.progressNotify ?? false,
      active: false,
    };
    holder.w = w;
    if (w.queue.ended) return w.queue;
    if (this.#closed) {
      w.queue.end();
      return w.queue;
    }
    const store = this.#store;
    const initial = opts.sendInitialEvents ?? rv === 0;
    if (initial) {
      if (rv > store.rev) {
        w.queue.fail(storageErrors.tooLargeResourceVersion(rv, store.rev).toStatusError().status);
        return w.queue;
      }
      const at = store.rev;
      for (const key2 of recursive ? store.keysFrom(range, range) : [range]) {
        const obj = store.latest(key2)?.obj;
        if (obj && predicateMatches(w.pred, obj)) w.queue.push({ type: 'ADDED', object: obj });
      }
      if (opts.sendInitialEvents && opts.allowWatchBookmarks) {
        w.queue.push({ type: 'BOOKMARK', object: bookmarkObject(at, true) });
      }
    } else if (rv > 0) {
      // Watching from rv replays changes from rv+1; that needs history at rv+1 (etcd's rule).
      if (rv + 1 < store.compacted) {
        w.queue.fail(newResourceExpired(MESSAGES.watchExpired).status);
        return w.queue;
      }
      for (const change of store.changesAfter(rv)) this.#deliver(w, change);
    }
    this.#watchers.add(w);
    if (w.progressNotify) this.#scheduleProgress();
    return w.queue;
  }

  async count(key: string): Promise<number> {
    const k = normalizeKey(key);
    const prefix = prefixOf(k);
    const store = this.#store;
    let n = 0;
    for (const key2 of store.keysFrom(prefix, prefix)) if (store.latest(key2)?.obj) n++;
    return n;
  }

  async currentResourceVersion(): Promise<string> {
    return String(this.#store.rev);
  }

  /** requestWatchProgress answers at once, in order: a cache in front may serve consistent reads. */
  readonly promptWatchProgress = true;

  /** Every watch that asked for progressNotify gets a BOOKMARK at the current revision now (events are delivered synchronously, so none is pending). */
  async requestWatchProgress(): Promise<void> {
    const rev = this.#store.rev;
    for (const w of this.#watchers) if (w.progressNotify) w.queue.push({ type: 'BOOKMARK', object: bookmarkObject(rev) });
  }

  /** Drops history below `revision`; reads and watches at `revision` and later stay possible. */
  async compact(revision: number): Promise<void> {
    if (revision > this.#store.rev) throw storageErrors.tooLargeResourceVersion(revision, this.#store.rev);
    this.#store.compact(revision);
  }

  /** The revision below which history is gone. */
  get compactedRevision(): number {
    return this.#store.compacted;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#ttlTimers) this.#clock.clearTimeout(t);
    this.#ttlTimers.clear();
    if (this.#progressTimer) this.#clock.clearTimeout(this.#progressTimer);
    if (this.#compactionTimer) this.#clock.clearTimeout(this.#compactionTimer);
    this.#progressTimer = this.#compactionTimer = undefined;
    for (const w of [...this.#watchers]) w.queue.end();
  }

  /**
   * The state a write starts from: the caller's cached object if given, else the latest. A stale cached object gets
   * one fresh look before any error it caused is reported (the caller retries when `stale`).
   */
  #readForWrite(key: string, cached: KubeObject | undefined): { latest: KubeObject | null; current: KubeObject | null; stale: boolean } {
    this.#assertOpen(key);
    const latest = this.#store.latest(key)?.obj ?? null;
    if (cached === undefined) return { latest, current: latest, stale: false };
    return { latest, current: cached, stale: cached !== latest && cached.metadata.resourceVersion !== latest?.metadata.resourceVersion };
  }

  #assertOpen(key: string): void {
    if (this.#closed) throw storageErrors.unreachable(key, new Error('storage is closed'));
  }

  /** Writes `obj` (a private frozen copy with the new revision) at `key` and tells watchers. */
  #commit(given: string, obj: KubeObject): KubeObject {
    const rev = this.#store.nextRev;
    const prev = this.#store.latest(given)?.obj;
    // One key string per object, whatever string each write was called with: the versions, the change log, the key
    // record and every cache above hold that one.
    const key = (prev && storageKeyOf(prev)) || given;
    let copy: KubeObject;
    try {
      // stringifyJson, not JSON.stringify: an accepted object may nest deeper than the native encoder's recursion reaches.
      copy = copyForStorage(obj, this.#size, String(rev)) as KubeObject;
    } catch (err) {
      throw storageErrors.invalidObject(key, `object cannot be encoded as JSON: ${(err as Error).message}`);
    }
    if (typeof copy !== 'object' || copy === null || Array.isArray(copy))
      throw storageErrors.invalidObject(key, 'object must be a JSON object');
    // What did not change is shared with the version this one replaces: history then holds only what changed.
    if (prev) shareUnchanged(copy, prev);
    markStoredEntries(copy);
    // Every reader shares this frozen version: recording its key once covers gets, lists and watch events (before
    // the freeze, so that the key is a property of the copy rather than an entry in a weak table).
    recordStorageKey(copy, key);
    freezeForStorage(copy);
    // The text the copy was parsed from is its encoding, and its length the size: the response and the watch cache
    // need not encode or measure it again. Sharing with the previous version keeps it so: only members equal in key
    // order too are shared.
    recordCommitted(copy, this.#size.text, this.#size.bytes);
    this.#size.text = undefined;
    const change = this.#store.write(key, copy, this.#clock.now(), this.#size.bytes);
    this.#dispatch(change);
    this.#boundHistory();
    return copy;
  }

  /** Past maxHistoryBytes of history: compacts from the oldest change on, down to three quarters of the bound. */
  #boundHistory(): void {
    const store = this.#store;
    if (store.historyBytes <= this.#maxHistoryBytes) return;
    const target = store.revisionForHistoryBytes(Math.floor(this.#maxHistoryBytes * 0.75));
    if (target > store.compacted) store.compact(target);
  }

  /** Writes a tombstone at `key`; returns the last state at the deletion's revision. */
  #remove(key: string): KubeObject {
    const change = this.#store.write(key, null, this.#clock.now());
    this.#dispatch(change);
    this.#boundHistory();
    return lastStateAt(change.prev as KubeObject, change.rev);
  }

  #dispatch(change: Change): void {
    for (const w of this.#watchers) this.#deliver(w, change);
  }

  /** Sends `change` to `w` as its predicate sees it: ADDED / MODIFIED / DELETED, or nothing. */
  #deliver(w: Watcher, change: Change): void {
    if (w.recursive ? !change.key.startsWith(w.key) : change.key !== w.key) return;
    const event = watchEventFor(w.pred, change);
    if (!event) return;
    w.active = true;
    w.queue.push(event);
  }

  #unregister(w: Watcher): void {
    this.#watchers.delete(w);
  }

  #expireLater(key: string, rev: number, ttlSeconds: number): void {
    const timer = this.#clock.setTimeout(() => {
      this.#ttlTimers.delete(timer);
      // Only the write that carried the TTL expires; a later update replaced it (as a put without the lease does).
      if (!this.#closed && this.#store.latest(key)?.rev === rev) this.#remove(key);
    }, ttlSeconds * 1000);
    timer.unref?.();
    this.#ttlTimers.add(timer);
  }

  #scheduleProgress(): void {
    if (this.#progressTimer || this.#closed) return;
    const tick = () => {
      this.#progressTimer = undefined;
      let any = false;
      for (const w of this.#watchers) {
        if (!w.progressNotify) continue;
        any = true;
        if (!w.active) w.queue.push({ type: 'BOOKMARK', object: bookmarkObject(this.#store.rev) });
        w.active = false;
      }
      if (any) this.#scheduleProgress();
    };
    this.#progressTimer = this.#clock.setTimeout(tick, this.#progressMs);
    this.#progressTimer.unref?.();
  }

  #scheduleCompaction(): void {
    const policy = this.#policy;
    if (!policy || this.#closed) return;
    this.#compactionTimer = this.#clock.setTimeout(() => {
      this.#compactionTimer = undefined;
      this.#compactByPolicy(policy);
      this.#scheduleCompaction();
    }, policy.intervalMs ?? 60_000);
    this.#compactionTimer.unref?.();
  }

  #compactByPolicy(policy: MemoryCompactionPolicy): void {
    const store = this.#store;
    const targets: number[] = [];
    if (policy.keepRevisions !== undefined) targets.push(store.rev - policy.keepRevisions);
    if (policy.keepSeconds !== undefined) targets.push(store.revisionAtTime(this.#clock.now() - policy.keepSeconds * 1000));
    if (targets.length === 0) return;
    // Keep what either rule wants to keep: compact only below both targets.
    const target = Math.min(...targets);
    if (target > store.compacted) store.compact(target);
  }
}
