import { type KubeObject, newResourceExpired, type ObjectList, parseResourceVersion } from '@kapi/apimachinery';
import {
  bookmarkObject,
  type Compactable,
  type CreateOptions,
  checkPreconditions,
  type DeleteOptions,
  deepFreeze,
  type GetOptions,
  type ListOptions,
  MESSAGES,
  matchesEverything,
  normalizeKey,
  planList,
  prefixOf,
  type SelectionPredicate,
  type Storage,
  sameStoredObject,
  storageErrors,
  type UpdateFunc,
  type UpdateOptions,
  type Watch,
  type WatchOptions,
  type WatchProgressRequester,
  WatchQueue,
  watchStatusOf,
} from '@kapi/storage';
import { Redis, type RedisOptions } from 'ioredis';
import { type KeyLayout, keyLayout } from './key-layout.ts';
import { readList } from './list-reader.ts';
import { COMPACT, COUNT, CREATE, DELETE, GET, REV, SWEEP, UPDATE } from './lua-scripts.ts';
import { DEFAULT_MAX_VALUE_BYTES, decodeFrozen, decodeObject, encodeObject } from './object-codec.ts';
import { RecentWrites } from './recent-writes.ts';
import { ScriptRunner } from './script-runner.ts';
import { WatchHub } from './watch-hub.ts';
import type { Watcher } from './watcher.ts';

export interface RedisStorageOptions {
  /** The Redis server when no `client` is given (default `redis://127.0.0.1:6379`). */
  url?: string;
  /**
   * An ioredis client to run commands on instead of one the storage opens (the storage never closes it). The watch
   * reader is a duplicate of it. Give it `enableOfflineQueue: false` and `maxRetriesPerRequest: 0` to fail fast when
   * Redis is down; the storage bounds every call by requestTimeoutMs either way.
   */
  client?: Redis;
  /** Namespace of every Redis key of this store (default `kapi`): `<prefix>:rev`, `<prefix>:o:<key>`, … */
  prefix?: string;
  /** Longest wait for a reply, or for the first connection, before an operation fails with Unreachable (default 5000). */
  requestTimeoutMs?: number;
  /** How long one XREAD of the watch reader blocks waiting for new log entries (default 2000). */
  watchPollBlockMs?: number;
  /** How often idle watchers that asked for progressNotify get a BOOKMARK (default 5000, as kube-apiserver asks etcd). */
  progressNotifyIntervalMs?: number;
  /** Watches end with an Unreachable ERROR once the reader has been unable to reach Redis this long (default 30000). */
  watchReconnectTimeoutMs?: number;
  /** Largest object stored, in bytes of JSON (default 1.5 MiB, etcd's request limit): above it RequestTooLarge. */
  maxValueBytes?: number;
  /** How often keys whose TTL has passed are deleted (default 500). */
  ttlSweepIntervalMs?: number;
  /**
   * Automatic compaction: every interval, compact to the revision seen one interval earlier (kube-apiserver compacts
   * etcd every 5 minutes). Default 300000; 0 turns it off (compact() still works).
   */
  compactionIntervalMs?: number;
  /** Most objects one list round trip reads (default 1000). */
  listBatchSize?: number;
  /** Events held for a watcher that does not read before its watch is ended (default 100000). */
  watchQueueLimit?: number;
}

/** A version read for a write: the object (frozen: tryUpdate must not change it), its mod revision, its stored JSON. */
interface Current {
  obj: KubeObject;
  rev: number;
  raw: string | undefined;
}

/**
 * Whether `next` (encoded as `json`) is what is stored: same bytes, or the same JSON with keys in another order.
 * Equal JSON values serialize to the same length, so a different length settles it without a deep compare.
 */
function sameAsStored(json: string, next: KubeObject, cur: Current): boolean {
  if (cur.raw !== undefined && json.length !== cur.raw.length) return false;
  return json === cur.raw || sameStoredObject(next, cur.obj);
}

const LOG_BATCH = 1000;
const SWEEP_BATCH = 100;
const COMPACT_BATCH = 1000;

/** Reconnect quickly (a restarted Redis is found within half a second) without hammering a server that is down. */
const retryStrategy = (times: number): number => Math.min(times * 50, 500);

/**
 * Storage on Redis, built like an MVCC store (as kine builds one over SQL): one revision counter for every write, each
 * write a Lua script that compares-and-sets on the key's mod revision, a version history per key for reads at past
 * revisions, and an event log (a stream with one entry per revision) for watches. Same semantics as MemoryStorage.
 *
 * @example
 * const storage = new RedisStorage({ url: 'redis://127.0.0.1:6379', prefix: 'myapp' });
 * await storage.create('/registry/widgets/default/a', { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'a' } });
 */
export class RedisStorage implements Storage, Compactable, WatchProgressRequester {
  readonly #client: Redis;
  readonly #ownsClient: boolean;
  readonly #layout: KeyLayout;
  readonly #runner: ScriptRunner;
  readonly #hub: WatchHub;
  readonly #recent = new RecentWrites();
  readonly #maxBytes: number;
  readonly #listBatch: number;
  readonly #queueLimit: number;
  readonly #timers: NodeJS.Timeout[] = [];
  /** The revision seen at the previous compaction tick. */
  #compactTo = 0;
  #closed = false;

  constructor(options: RedisStorageOptions = {}) {
    const timeoutMs = options.requestTimeoutMs ?? 5000;
    const prefix = options.prefix ?? 'kapi';
    this.#layout = keyLayout(prefix);
    this.#maxBytes = options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
    this.#listBatch = Math.max(1, options.listBatchSize ?? 1000);
    this.#queueLimit = options.watchQueueLimit ?? 100_000;
    if (options.client) {
      this.#client = options.client;
      this.#ownsClient = false;
    } else {
      // Fail fast: no queueing while disconnected, no resending after a reconnect (a write's outcome is then unknown
      // and the caller decides); replies are bounded by the runner's watchdog.
      this.#client = new Redis(options.url ?? 'redis://127.0.0.1:6379', {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
        connectTimeout: timeoutMs,
        // A connection the watchdog cuts is to a peer that stopped answering: do not wait 2 s for its FIN.
        disconnectTimeout: 50,
        retryStrategy,
        connectionName: 'kapi',
      });
      // Connection errors reach callers as Unreachable; without a listener ioredis would also print them.
      this.#client.on('error', () => {});
      this.#ownsClient = true;
    }
    this.#runner = new ScriptRunner({
      client: this.#client,
      prefix,
      timeoutMs,
      ownsClient: this.#ownsClient,
      onEpochChange: (rev) => this.#hub.onEpochChange(rev),
    });
    const readerOptions: Partial<RedisOptions> = {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // XREAD BLOCK outlasts any command timeout; the hub has its own watchdog.
      commandTimeout: undefined,
      blockingTimeout: undefined,
      enableAutoPipelining: false,
      // The reader names its keys in full (a caller's client may carry a keyPrefix; the scripts ignore it too).
      keyPrefix: '',
      disconnectTimeout: 50,
      retryStrategy,
      connectionName: 'kapi-watch',
    };
    this.#hub = new WatchHub({
      runner: this.#runner,
      layout: this.#layout,
      blockMs: options.watchPollBlockMs ?? 2000,
      progressMs: options.progressNotifyIntervalMs ?? 5000,
      reconnectTimeoutMs: options.watchReconnectTimeoutMs ?? 30_000,
      timeoutMs,
      batch: LOG_BATCH,
      readerOptions,
      recent: this.#recent,
    });
    this.#every(options.ttlSweepIntervalMs ?? 500, () => this.#sweep());
    const compactionMs = options.compactionIntervalMs ?? 300_000;
    if (compactionMs > 0) this.#every(compactionMs, () => this.#compactByPolicy());
  }

  /** The Redis key names of this store (for tools and tests that inspect it). */
  get layout(): KeyLayout {
    return this.#layout;
  }

  async create(key: string, obj: KubeObject, opts: CreateOptions = {}): Promise<KubeObject> {
    const k = normalizeKey(key);
    if (obj.metadata?.resourceVersion) throw storageErrors.invalidObject(k, MESSAGES.rvOnCreate);
    const json = encodeObject(k, obj, this.#maxBytes);
    const ttlMs = opts.ttlSeconds !== undefined && opts.ttlSeconds > 0 ? Math.ceil(opts.ttlSeconds * 1000) : 0;
    const r = await this.#runner.run(CREATE, [k, json, ttlMs], k);
    const rev = Number(r[1]);
    this.#runner.observe(rev);
    if (r[0] !== 1) throw storageErrors.keyExists(k, rev);
    return this.#written(k, json, rev);
  }

  async get(key: string, opts: GetOptions = {}): Promise<KubeObject | null> {
    const k = normalizeKey(key);
    const min = parseResourceVersion(opts.resourceVersion);
    const r = await this.#runner.run(GET, [k, 0, min], k);
    if (r[0] === -1) throw storageErrors.tooLargeResourceVersion(min, Number(r[1]));
    this.#runner.observe(Number(r[1]));
    if (r.length < 4) {
      if (opts.ignoreNotFound) return null;
      throw storageErrors.keyNotFound(k);
    }
    return decodeObject(k, r[3] as string, r[2] as number);
  }

  async list(key: string, opts: ListOptions = {}): Promise<ObjectList> {
    return readList(this.#runner, planList(key, opts), opts.predicate, this.#listBatch);
  }

  async guaranteedUpdate(key: string, tryUpdate: UpdateFunc, opts: UpdateOptions = {}): Promise<KubeObject> {
    const k = normalizeKey(key);
    const cached = opts.cachedExisting;
    // A cached object may be stale: every error or no-op it leads to is checked again against a fresh read.
    let fromCache = cached !== undefined;
    let cur: Current | null = cached ? { obj: cached, rev: Number(cached.metadata.resourceVersion), raw: undefined } : await this.#read(k);
    for (;;) {
      if (!cur && !opts.ignoreNotFound) throw storageErrors.keyNotFound(k);
      const current = cur?.obj ?? null;
      const failed = current ? checkPreconditions(k, opts.preconditions, current) : undefined;
      if (failed) {
        if (!fromCache) throw failed;
        cur = await this.#read(k);
        fromCache = false;
        continue;
      }
      let next: KubeObject;
      try {
        next = await tryUpdate(current);
      } catch (err) {
        if (!fromCache) throw err;
        cur = await this.#read(k);
        fromCache = false;
        continue;
      }
      const json = encodeObject(k, next, this.#maxBytes);
      if (cur && sameAsStored(json, next, cur)) {
        if (!fromCache) return cur.obj;
        cur = await this.#read(k);
        fromCache = false;
        continue;
      }
      const r = await this.#runner.run(UPDATE, [k, cur ? cur.rev : 0, json], k);
      const rev = Number(r[1]);
      this.#runner.observe(rev);
      if (r[0] === 1) return this.#written(k, json, rev);
      // Someone wrote first: the script handed back what is there now.
      cur = rev > 0 ? { obj: decodeFrozen(k, r[2] as string, rev), rev, raw: r[2] as string } : null;
      fromCache = false;
    }
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    const k = normalizeKey(key);
    const cached = opts.cachedExisting;
    let fromCache = cached !== undefined;
    let cur: Current | null = cached ? { obj: cached, rev: Number(cached.metadata.resourceVersion), raw: undefined } : await this.#read(k);
    for (;;) {
      if (!cur) throw storageErrors.keyNotFound(k);
      const failed = checkPreconditions(k, opts.preconditions, cur.obj);
      if (failed) {
        if (!fromCache) throw failed;
        cur = await this.#read(k);
        fromCache = false;
        continue;
      }
      if (opts.validateDeletion) {
        try {
          await opts.validateDeletion(cur.obj);
        } catch (err) {
          if (!fromCache) throw err;
          cur = await this.#read(k);
          fromCache = false;
          continue;
        }
      }
      const r = await this.#runner.run(DELETE, [k, cur.rev], k);
      if (r[0] === -1) throw storageErrors.keyNotFound(k);
      const rev = Number(r[1]);
      this.#runner.observe(rev);
      // The last stored state, stamped with the deletion's revision.
      if (r[0] === 1) return decodeObject(k, r[2] as string, rev);
      cur = { obj: decodeFrozen(k, r[2] as string, rev), rev, raw: r[2] as string };
      fromCache = false;
    }
  }

  watch(key: string, opts: WatchOptions = {}): Watch {
    const recursive = opts.recursive ?? true;
    const k = normalizeKey(key);
    const range = recursive ? prefixOf(k) : k;
    const rv = parseResourceVersion(opts.resourceVersion);
    // onClose may run inside the constructor (an already-aborted signal), before `w` exists: go through a holder.
    const holder: { w?: Watcher } = {};
    const queue = new WatchQueue({
      signal: opts.signal,
      maxQueued: this.#queueLimit,
      onClose: () => holder.w && this.#hub.remove(holder.w),
    });
    const w: Watcher = {
      queue,
      key: range,
      recursive,
      pred: opts.predicate,
      filtered: !matchesEverything(opts.predicate),
      progressNotify: opts.progressNotify ?? false,
      lastRev: 0,
      state: 'starting',
      buffer: undefined,
      lastSentAt: Date.now(),
    };
    holder.w = w;
    if (queue.ended) return queue;
    if (this.#closed) {
      queue.end();
      return queue;
    }
    this.#hub.add(w);
    this.#startWatch(w, k, rv, opts).catch((err: unknown) => queue.fail(watchStatusOf(err)));
    return queue;
  }

  async count(key: string): Promise<number> {
    const k = normalizeKey(key);
    const r = await this.#runner.run(COUNT, [prefixOf(k)], k);
    return Number(r[0]);
  }

  async currentResourceVersion(): Promise<string> {
    const r = await this.#runner.run(REV, []);
    const rev = Number(r[0]);
    this.#runner.observe(rev);
    return String(rev);
  }

  /** requestWatchProgress is answered as soon as the watch reader has the revision (no timer): a cache may serve consistent reads. */
  readonly promptWatchProgress = true;

  /**
   * Every progressNotify watch gets a BOOKMARK at or above the store's current revision, after every change up to it:
   * as soon as the watch reader has dispatched that revision (at once if it already has).
   */
  async requestWatchProgress(): Promise<void> {
    if (this.#closed) throw storageErrors.unreachable('', new Error('storage is closed'));
    if (!this.#hub.hasProgressWatchers) return;
    this.#hub.requestProgress(Number(await this.currentResourceVersion()));
  }

  /**
   * Drops history below `revision`: versions superseded at or below it, tombstones at or below it, and log entries
   * below it. Reads at `revision` and later, and watches from `revision - 1` on, stay possible.
   */
  async compact(revision: number): Promise<void> {
    for (;;) {
      const r = await this.#runner.run(COMPACT, [revision, COMPACT_BATCH]);
      if (r[0] === -1) throw storageErrors.tooLargeResourceVersion(revision, Number(r[1]));
      if (Number(r[1]) < COMPACT_BATCH || Number(r[2]) >= revision) return;
    }
  }

  /** Ends all watches and stops timers; closes the connection the storage opened (never a client it was given). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    this.#hub.close();
    this.#runner.detach();
    if (this.#ownsClient) this.#client.disconnect();
  }

  /**
   * What a write of `json` at `rev` answers: the object, frozen (as MemoryStorage answers), and remembered so that the
   * write's own watch event takes it rather than parsing the same JSON again.
   */
  #written(k: string, json: string, rev: number): KubeObject {
    const obj = decodeFrozen(k, json, rev);
    this.#recent.remember(rev, k, json, obj);
    return obj;
  }

  /** The latest version of `key` (null if absent), frozen for tryUpdate and validateDeletion. */
  async #read(k: string): Promise<Current | null> {
    const r = await this.#runner.run(GET, [k, 0, 0], k);
    this.#runner.observe(Number(r[1]));
    if (r.length < 4) return null;
    const raw = r[3] as string;
    const rev = Number(r[2]);
    return { obj: decodeFrozen(k, raw, rev), rev, raw };
  }

  async #startWatch(w: Watcher, k: string, rv: number, opts: WatchOptions): Promise<void> {
    const initial = opts.sendInitialEvents ?? rv === 0;
    let from: number;
    if (initial) {
      const pred = opts.predicate;
      const selectors: SelectionPredicate | undefined = pred && { label: pred.label, field: pred.field, getAttrs: pred.getAttrs };
      const listed = await this.list(k, { recursive: w.recursive, predicate: selectors });
      from = Number(listed.metadata.resourceVersion);
      if (rv > from) throw storageErrors.tooLargeResourceVersion(rv, from);
      if (w.queue.ended) return;
      for (const obj of listed.items) w.queue.push({ type: 'ADDED', object: deepFreeze(obj) });
      if (opts.sendInitialEvents && opts.allowWatchBookmarks) w.queue.push({ type: 'BOOKMARK', object: bookmarkObject(from, true) });
      w.lastSentAt = Date.now();
    } else {
      const r = await this.#runner.run(REV, [], k);
      const [current, compacted] = [Number(r[0]), Number(r[1])];
      this.#runner.observe(current);
      // Watching from rv replays changes from rv+1; that needs history at rv+1 (etcd's rule).
      if (rv > 0 && rv + 1 < compacted) {
        w.queue.fail(newResourceExpired(MESSAGES.watchExpired).status);
        return;
      }
      from = rv > 0 ? rv : current;
    }
    if (w.queue.ended) return;
    await this.#hub.join(w, from);
  }

  #every(ms: number, fn: () => Promise<void>): void {
    let running = false;
    const t = setInterval(() => {
      if (running || this.#closed) return;
      running = true;
      fn()
        .catch(() => {})
        .finally(() => {
          running = false;
        });
    }, ms);
    t.unref();
    this.#timers.push(t);
  }

  /** Deletes keys whose TTL has passed, each with its own revision and DELETED event. */
  async #sweep(): Promise<void> {
    // Nothing to do for a store this instance never used (and no reason to connect for it).
    if (this.#runner.epoch === '' || this.#client.status !== 'ready') return;
    for (;;) {
      const r = await this.#runner.run(SWEEP, [SWEEP_BATCH]);
      if (Number(r[1]) < SWEEP_BATCH) return;
    }
  }

  async #compactByPolicy(): Promise<void> {
    if (this.#runner.epoch === '' || this.#client.status !== 'ready') return;
    const target = this.#compactTo;
    this.#compactTo = Number(await this.currentResourceVersion());
    if (target > 0) await this.compact(target);
  }
}
