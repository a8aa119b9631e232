import { randomInt } from 'node:crypto';
import { type KubeObject, type ObjectList, parseResourceVersion } from '@kapi/apimachinery';
import {
  type Compactable,
  type CreateOptions,
  checkPreconditions,
  continueAfter,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type ListPlan,
  listExpiredError,
  MESSAGES,
  normalizeKey,
  planList,
  predicateMatches,
  prefixOf,
  type Storage,
  storageErrors,
  type UpdateFunc,
  type UpdateOptions,
  type Watch,
  type WatchOptions,
  type WatchProgressRequester,
} from '@kapi/storage';
import { EtcdClient } from './client/etcd-client.ts';
import type { KeyValue, RangeRequest, RangeResponse, TxnRequest, TxnResponse } from './client/messages.ts';
import type { EtcdTLSOptions } from './client/tls-credentials.ts';
import { decodeObject, encodeObject } from './codec.ts';
import { classifyEtcdError, toStorageError } from './etcd-errors.ts';
import { Keyspace, keyAfter, prefixRangeEnd } from './keyspace.ts';
import { LeaseManager } from './lease-manager.ts';
import { ProgressRequestSupport } from './progress-request-support.ts';
import { EtcdWatch, type WatchContext } from './watch/etcd-watch.ts';
import { WatchMux } from './watch/watch-mux.ts';

export interface EtcdStorageOptions {
  /**
   * etcd client URLs, e.g. ['http://127.0.0.1:2379'] (kube-apiserver's --etcd-servers); several are failed over
   * between. `https://` endpoints are dialled with TLS (all of them or none).
   */
  endpoints: string[];
  /**
   * For https:// endpoints: the CA bundle etcd's serving certificates chain to (default: Node's trusted roots) and a
   * client certificate and key for etcd's --client-cert-auth, as PEM (kube-apiserver's --etcd-cafile,
   * --etcd-certfile, --etcd-keyfile).
   */
  tls?: EtcdTLSOptions;
  /** Prepended to every key, so several stores can share one etcd (default ''). */
  prefix?: string;
  /** Deadline of every etcd request; a server that does not answer fails the call with Unreachable (default 10000). */
  requestTimeoutMs?: number;
  /** Writes larger than this (key + encoded object) fail with RequestTooLarge without being sent (default 1.5 MiB, etcd's --max-request-bytes). */
  maxRequestBytes?: number;
  /**
   * A watcher that asked for progressNotify gets etcd's progress notifications as BOOKMARKs, but only after it has
   * been quiet (no event, no BOOKMARK) this long (default 1000). etcd sends them every
   * --experimental-watch-progress-notify-interval (10 minutes by default).
   */
  progressIntervalMs?: number;
  /** How long watches wait for a lost etcd to come back before they end with an ERROR (default 30000). */
  watchReconnectTimeoutMs?: number;
  /** Events held for a watcher that is not reading before its watch is ended (default 100000). */
  watchQueueLimit?: number;
  /** Longest extra life a TTL'd key may get from sharing a lease with other keys (kube-apiserver's default: 60). */
  leaseReuseDurationSeconds?: number;
}

/** etcd's default --max-request-bytes. */
const DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;
/** Largest page a filtered list asks etcd for while filling a page (kube-apiserver's maxLimit). */
const MAX_LIST_PAGE = 10_000;

/** An object as read for a write: what it is, the revision to compare against, the bytes stored. */
interface ObjState {
  obj: KubeObject | null;
  /** mod_revision; 0 for a missing key (etcd compares a missing key's mod_revision as 0). */
  rev: number;
  data: Buffer | undefined;
}

const MISSING: ObjState = { obj: null, rev: 0, data: undefined };

/**
 * Storage on etcd v3, following kube-apiserver's etcd3 store: an object's resourceVersion is its mod_revision (stored
 * JSON leaves it out), create and update are transactions on create_revision / mod_revision, lists read at one
 * revision and page through it with continue tokens, TTLs are leases, watches share one gRPC stream and survive etcd
 * restarts, history is etcd's until `compact()`.
 *
 * @example
 * const storage = new EtcdStorage({ endpoints: ['http://127.0.0.1:2379'], prefix: '/kapi' });
 * await storage.create('/registry/widgets/default/a', { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'a' } });
 */
export class EtcdStorage implements Storage, Compactable, WatchProgressRequester {
  readonly #client: EtcdClient;
  readonly #keys: Keyspace;
  readonly #maxRequestBytes: number;
  readonly #leases: LeaseManager;
  readonly #mux: WatchMux;
  readonly #watchContext: WatchContext;
  readonly #watches = new Set<EtcdWatch>();
  readonly #progressSupport: ProgressRequestSupport;
  #closed = false;

  constructor(options: EtcdStorageOptions) {
    this.#client = new EtcdClient({
      endpoints: options.endpoints,
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      tls: options.tls,
    });
    this.#keys = new Keyspace(options.prefix);
    this.#maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    this.#leases = new LeaseManager({
      grant: (ttl) => this.#grantLease(ttl),
      reuseDurationSeconds: options.leaseReuseDurationSeconds,
    });
    this.#mux = new WatchMux(this.#client, { reconnectTimeoutMs: options.watchReconnectTimeoutMs ?? 30_000 });
    const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.#progressSupport = new ProgressRequestSupport(options.endpoints, async (endpoint) => {
      // Each member on its own: the shared channel talks to one member at a time.
      const member = new EtcdClient({ endpoints: [endpoint], requestTimeoutMs, tls: options.tls });
      try {
        return (await member.status()).version;
      } finally {
        member.close();
      }
    });
    this.#watchContext = {
      mux: this.#mux,
      keys: this.#keys,
      range: (key, req) => this.#range(key, req),
      currentRevision: () => this.#currentRevision(),
      progressIntervalMs: options.progressIntervalMs ?? 1000,
      queueLimit: options.watchQueueLimit ?? 100_000,
    };
  }

  async create(key: string, obj: KubeObject, opts: CreateOptions = {}): Promise<KubeObject> {
    const k = normalizeKey(key);
    this.#assertOpen(k);
    if (obj?.metadata?.resourceVersion) throw storageErrors.invalidObject(k, MESSAGES.rvOnCreate);
    const ek = this.#keys.encode(k);
    const data = encodeObject(k, obj);
    this.#checkSize(k, ek, data);
    const ttl = opts.ttlSeconds ?? 0;
    const put = async (lease: number) =>
      this.#txn(
        k,
        {
          compare: [{ key: ek, target: 'CREATE', result: 'EQUAL', create_revision: 0 }],
          success: [{ request_put: { key: ek, value: data, lease } }],
        },
        data.length,
      );
    let res: TxnResponse;
    if (ttl > 0) {
      const lease = await this.#leaseFor(k, Math.ceil(ttl));
      try {
        res = await put(lease);
      } catch (err) {
        // The shared lease is gone from etcd (revoked, a restored backup): the txn failed whole; once on a new lease.
        if (!String((err as Error)?.message).includes('requested lease not found')) throw err;
        this.#leases.forget(lease);
        res = await put(await this.#leaseFor(k, Math.ceil(ttl)));
      }
    } else {
      res = await put(0);
    }
    if (!res.succeeded) throw storageErrors.keyExists(k);
    return decodeObject(k, data, res.header.revision);
  }

  async get(key: string, opts: GetOptions = {}): Promise<KubeObject | null> {
    const k = normalizeKey(key);
    const min = parseResourceVersion(opts.resourceVersion);
    this.#assertOpen(k);
    const res = await this.#range(k, { key: this.#keys.encode(k) });
    if (min > res.header.revision) throw storageErrors.tooLargeResourceVersion(min, res.header.revision);
    const kv = res.kvs[0];
    if (!kv) {
      if (opts.ignoreNotFound) return null;
      throw storageErrors.keyNotFound(k);
    }
    return decodeObject(k, kv.value, kv.mod_revision);
  }

  async list(key: string, opts: ListOptions = {}): Promise<ObjectList> {
    const plan = planList(key, opts);
    const pred = opts.predicate;
    const items: KubeObject[] = [];

    if (!plan.recursive) {
      const res = await this.#listRange(plan, { key: this.#keys.encode(plan.key), revision: plan.readAt ?? 0 });
      const rev = this.#listRevision(plan, res);
      const kv = res.kvs[0];
      if (kv) {
        const obj = decodeObject(plan.key, kv.value, kv.mod_revision);
        if (predicateMatches(pred, obj)) items.push(obj);
      }
      return { metadata: { resourceVersion: String(rev) }, items };
    }

    // As kube-apiserver's etcd3 GetList: read pages at one revision until the page is full or the range ends;
    // with a selector, ask for more keys each round (up to MAX_LIST_PAGE) since some do not match.
    const rangeEnd = prefixRangeEnd(this.#keys.encode(plan.prefix));
    const paging = plan.limit > 0;
    let start = this.#keys.encode(plan.startKey);
    let rev = plan.readAt ?? 0;
    let pageSize = plan.limit;
    let lastKey: Buffer | undefined;
    let hasMore = false;
    let count = 0;
    for (;;) {
      const res = await this.#listRange(plan, { key: start, range_end: rangeEnd, limit: pageSize, revision: rev });
      if (rev === 0) rev = this.#listRevision(plan, res);
      hasMore = res.more;
      count = res.count;
      for (const kv of res.kvs) {
        if (paging && items.length >= plan.limit) {
          hasMore = true;
          break;
        }
        lastKey = kv.key;
        const obj = decodeObject(this.#keys.decode(kv.key), kv.value, kv.mod_revision);
        if (plan.unfiltered || predicateMatches(pred, obj)) items.push(obj);
      }
      if (!hasMore || !paging || items.length >= plan.limit || !lastKey) break;
      if (pageSize < MAX_LIST_PAGE) pageSize = Math.min(pageSize * 2, MAX_LIST_PAGE);
      start = keyAfter(lastKey);
    }
    const metadata: ObjectList['metadata'] = { resourceVersion: String(rev) };
    if (hasMore && lastKey) {
      metadata.continue = continueAfter(plan, this.#keys.decode(lastKey), rev);
      // etcd's count covers every key from this page's start, matching or not: exact only without a selector.
      if (plan.unfiltered) metadata.remainingItemCount = count - plan.limit;
    }
    return { metadata, items };
  }

  async guaranteedUpdate(key: string, tryUpdate: UpdateFunc, opts: UpdateOptions = {}): Promise<KubeObject> {
    const k = normalizeKey(key);
    this.#assertOpen(k);
    const ek = this.#keys.encode(k);
    const ignoreNotFound = opts.ignoreNotFound ?? false;
    const fresh = () => this.#currentState(k, ek, ignoreNotFound);
    // kube-apiserver's etcd3 GuaranteedUpdate: start from the cached object if given (a read saved), and check
    // anything that fails on it against a fresh read before reporting it.
    let state = opts.cachedExisting ? this.#stateOf(k, opts.cachedExisting) : await fresh();
    let isCurrent = !opts.cachedExisting;
    for (;;) {
      const failed = state.obj ? checkPreconditions(k, opts.preconditions, state.obj) : undefined;
      if (failed) {
        if (isCurrent) throw failed;
        state = await fresh();
        isCurrent = true;
        continue;
      }
      let next: KubeObject;
      try {
        next = await tryUpdate(state.obj);
      } catch (err) {
        if (isCurrent) throw err;
        const cachedRev = state.rev;
        state = await fresh();
        isCurrent = true;
        if (state.rev === cachedRev) throw err;
        continue;
      }
      const data = encodeObject(k, next);
      if (state.obj && state.data?.equals(data)) {
        // Nothing to write; but a cached object must first be confirmed current.
        if (isCurrent) return state.obj;
        state = await fresh();
        isCurrent = true;
        if (state.obj && state.data?.equals(data)) return state.obj;
        continue;
      }
      this.#checkSize(k, ek, data);
      const res = await this.#txn(
        k,
        {
          compare: [{ key: ek, target: 'MOD', result: 'EQUAL', mod_revision: state.rev }],
          success: [{ request_put: { key: ek, value: data } }],
          failure: [{ request_range: { key: ek } }],
        },
        data.length,
      );
      if (res.succeeded) return decodeObject(k, data, res.header.revision);
      // Someone wrote first: the failure branch read the key, so retry from that without another round trip.
      state = this.#stateFrom(k, res.responses[0]?.response_range?.kvs[0], ignoreNotFound);
      isCurrent = true;
    }
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    const k = normalizeKey(key);
    this.#assertOpen(k);
    const ek = this.#keys.encode(k);
    const fresh = () => this.#currentState(k, ek, false);
    let state = opts.cachedExisting ? this.#stateOf(k, opts.cachedExisting) : await fresh();
    let isCurrent = !opts.cachedExisting;
    for (;;) {
      const current = state.obj as KubeObject;
      let refusal: unknown;
      try {
        const failed = checkPreconditions(k, opts.preconditions, current);
        if (failed) throw failed;
        await opts.validateDeletion?.(current);
      } catch (err) {
        refusal = err;
      }
      if (refusal !== undefined) {
        if (isCurrent) throw refusal;
        // The cached object may be stale: report the refusal only if a fresh read shows the same revision.
        const cachedRev = state.rev;
        state = await fresh();
        isCurrent = true;
        if (state.rev === cachedRev) throw refusal;
        continue;
      }
      const res = await this.#txn(k, {
        compare: [{ key: ek, target: 'MOD', result: 'EQUAL', mod_revision: state.rev }],
        success: [{ request_delete_range: { key: ek, prev_kv: true } }],
        failure: [{ request_range: { key: ek } }],
      });
      if (!res.succeeded) {
        state = this.#stateFrom(k, res.responses[0]?.response_range?.kvs[0], false);
        isCurrent = true;
        continue;
      }
      const last = res.responses[0]?.response_delete_range?.prev_kvs[0];
      if (!last) throw storageErrors.keyNotFound(k);
      return decodeObject(k, last.value, res.header.revision);
    }
  }

  watch(key: string, opts: WatchOptions = {}): Watch {
    const w = new EtcdWatch(this.#watchContext, key, opts, (ended) => this.#watches.delete(ended));
    if (this.#closed) w.queue.end();
    if (w.queue.ended) return w.queue;
    this.#watches.add(w);
    w.start();
    return w.queue;
  }

  async count(key: string): Promise<number> {
    const k = normalizeKey(key);
    this.#assertOpen(k);
    const start = this.#keys.encode(prefixOf(k));
    const res = await this.#range(k, { key: start, range_end: prefixRangeEnd(start), count_only: true });
    return res.count;
  }

  async currentResourceVersion(): Promise<string> {
    return String(await this.#currentRevision());
  }

  /**
   * Whether requestWatchProgress is answered promptly: every etcd member is 3.4.31+ / 3.5.13+ (asked at start, see
   * `checkPromptWatchProgress`). False until known, and on older etcd, where a cache reads consistent reads from etcd.
   */
  get promptWatchProgress(): boolean {
    return this.#progressSupport.supported;
  }

  /** Resolves once every member's version is known: whether requestWatchProgress is prompt (`promptWatchProgress`). */
  checkPromptWatchProgress(): Promise<boolean> {
    return this.#progressSupport.check();
  }

  /**
   * Every progressNotify watch gets a BOOKMARK at or above the store's current revision R once it has delivered every
   * event up to R.
   *
   * On etcd 3.4.31+ / 3.5.13+ this is etcd's own WatchProgressRequest on the shared stream: etcd answers it behind
   * every event up to its revision, within about a round trip. Older etcd (etcdserver/api/v3rpc/watch.go, recvLoop)
   * answers it on the stream's control channel, and sendLoop selects between that channel and the event channel, so
   * the answer can overtake events still queued, in a victim batch or unsynced (etcd-io/etcd#15220). There the
   * BOOKMARK comes at once if the watch already delivered R, else right after its next event at or above R or etcd's
   * next timed progress notification to it (every --experimental-watch-progress-notify-interval while idle), which is
   * safe: mvcc's watchableStore.progress() sends it only to a synced watcher, on the same channel as its events, and
   * a write queues its events (notify) before the revision it raises becomes visible.
   */
  async requestWatchProgress(): Promise<void> {
    this.#assertOpen('');
    if (![...this.#watches].some((w) => w.progressNotify)) return;
    if (this.#progressSupport.supported && this.#mux.requestProgress()) return;
    const rev = await this.#currentRevision();
    for (const w of this.#watches) w.requestProgress(rev);
  }

  /** Compacts etcd's history below `revision` (reads at `revision` stay possible); an already compacted revision is fine. */
  async compact(revision: number): Promise<void> {
    this.#assertOpen('');
    try {
      await this.#client.compact({ revision });
    } catch (err) {
      const kind = classifyEtcdError(err);
      if (kind === 'compacted') return;
      if (kind === 'futureRevision') throw storageErrors.tooLargeResourceVersion(revision, await this.#currentRevision());
      throw toStorageError(err, '');
    }
  }

  /** Ends every watch and closes the connection; calls after this fail with Unreachable. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const w of [...this.#watches]) w.queue.end();
    this.#mux.close();
    this.#client.close();
  }

  #assertOpen(key: string): void {
    if (this.#closed) throw storageErrors.unreachable(key, new Error('storage is closed'));
  }

  /** etcd refuses requests over --max-request-bytes; refuse them here first so nothing is sent. */
  #checkSize(key: string, etcdKey: Buffer, data: Buffer): void {
    const bytes = etcdKey.length + data.length;
    if (bytes > this.#maxRequestBytes) throw storageErrors.requestTooLarge(key, bytes, this.#maxRequestBytes);
  }

  async #currentRevision(): Promise<number> {
    this.#assertOpen('');
    // The cheapest linearizable read: one key, count only; its header carries the store's revision.
    const res = await this.#range('', { key: this.#keys.encode('/'), count_only: true });
    return res.header.revision;
  }

  async #currentState(key: string, etcdKey: Buffer, ignoreNotFound: boolean): Promise<ObjState> {
    const res = await this.#range(key, { key: etcdKey });
    return this.#stateFrom(key, res.kvs[0], ignoreNotFound);
  }

  #stateFrom(key: string, kv: KeyValue | undefined, ignoreNotFound: boolean): ObjState {
    if (!kv) {
      if (ignoreNotFound) return MISSING;
      throw storageErrors.keyNotFound(key);
    }
    return { obj: decodeObject(key, kv.value, kv.mod_revision), rev: kv.mod_revision, data: kv.value };
  }

  /** The state a caller's cached object claims (its bytes re-encoded, as the etcd3 store does). */
  #stateOf(key: string, cached: KubeObject): ObjState {
    const rv = cached.metadata?.resourceVersion ?? '';
    return { obj: cached, rev: /^[0-9]+$/.test(rv) ? Number(rv) : 0, data: encodeObject(key, cached) };
  }

  /** The revision a list page reports: the pinned one, or the one etcd read at (checked against NotOlderThan). */
  #listRevision(plan: ListPlan, res: RangeResponse): number {
    if (plan.readAt !== undefined) return plan.readAt;
    const rev = res.header.revision;
    if (plan.minRevision > rev) throw storageErrors.tooLargeResourceVersion(plan.minRevision, rev);
    return rev;
  }

  /** A list's Range: compaction and future revisions become the errors resolveReadRevision words for every backend. */
  async #listRange(plan: ListPlan, req: RangeRequest): Promise<RangeResponse> {
    this.#assertOpen(plan.key);
    try {
      return await this.#client.range(req);
    } catch (err) {
      const kind = classifyEtcdError(err);
      if (kind === 'compacted') throw listExpiredError(plan);
      if (kind === 'futureRevision') throw storageErrors.tooLargeResourceVersion(plan.readAt ?? 0, await this.#currentRevision());
      throw toStorageError(err, plan.key);
    }
  }

  async #range(key: string, req: RangeRequest): Promise<RangeResponse> {
    this.#assertOpen(key);
    try {
      return await this.#client.range(req);
    } catch (err) {
      throw toStorageError(err, key);
    }
  }

  async #txn(key: string, req: TxnRequest, bytes = 0): Promise<TxnResponse> {
    this.#assertOpen(key);
    try {
      return await this.#client.txn(req);
    } catch (err) {
      throw toStorageError(err, key, { bytes, limit: this.#maxRequestBytes });
    }
  }

  async #leaseFor(key: string, ttlSeconds: number): Promise<number> {
    this.#assertOpen(key);
    try {
      return await this.#leases.leaseFor(ttlSeconds);
    } catch (err) {
      throw toStorageError(err, key);
    }
  }

  /** Grants a lease with an ID chosen here (below 2^48, so it survives the number decoding of int64). */
  async #grantLease(ttlSeconds: number): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const id = randomInt(1, 2 ** 48);
      try {
        const res = await this.#client.leaseGrant({ TTL: ttlSeconds, ID: id });
        if (res.error) throw new Error(`etcd refused the lease: ${res.error}`);
        return res.ID;
      } catch (err) {
        if (attempt < 3 && String((err as Error)?.message).includes('lease already exists')) continue;
        throw err;
      }
    }
  }
}
