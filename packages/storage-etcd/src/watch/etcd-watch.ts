import { newResourceExpired, parseResourceVersion, type WatchEvent } from '@kapi/apimachinery';
import {
  bookmarkObject,
  MESSAGES,
  normalizeKey,
  predicateMatches,
  prefixOf,
  storageErrors,
  type WatchOptions,
  WatchQueue,
  watchStatusOf,
} from '@kapi/storage';
import type { RangeRequest, RangeResponse, WatchEventMessage } from '../client/messages.ts';
import { decodeObject } from '../codec.ts';
import { type Keyspace, keyAfter, prefixRangeEnd } from '../keyspace.ts';
import { translateEvent } from './translate-event.ts';
import type { WatchHandler, WatchMux, WatchTarget } from './watch-mux.ts';

/** What a watch needs from its EtcdStorage. */
export interface WatchContext {
  readonly mux: WatchMux;
  readonly keys: Keyspace;
  /** A Range whose errors are already StorageErrors. */
  range(key: string, req: RangeRequest): Promise<RangeResponse>;
  currentRevision(): Promise<number>;
  /** Least time between a watcher's start, last event or last progress BOOKMARK and its next progress BOOKMARK. */
  readonly progressIntervalMs: number;
  readonly queueLimit: number;
}

/** Page size of the initial listing (kube-apiserver's etcd3 watcher reads 10,000 at a time). */
const INITIAL_PAGE = 10_000;

/**
 * One Storage.watch on etcd: optional initial ADDED events from a Range at the current revision (and the
 * initial-events-end BOOKMARK), then a watcher on the shared stream from the next revision, its events translated
 * for the predicate, progress notifications as BOOKMARKs, compaction as one 410 ERROR.
 */
export class EtcdWatch implements WatchHandler {
  readonly queue: WatchQueue;
  readonly #ctx: WatchContext;
  readonly #key: string;
  readonly #rv: number;
  readonly #opts: WatchOptions;
  #cancel: (() => void) | undefined;
  /** When the watcher last got something (or started): progress BOOKMARKs wait for this much quiet. */
  #lastActivity = Date.now();
  /** Every change up to this revision has been delivered (undefined until the watcher is on the stream). */
  #through: number | undefined;
  /** The highest revision a requestWatchProgress still owes this watch a BOOKMARK at or above. */
  #owed: number | undefined;

  /** Validates `key` and the resourceVersion (they throw); start() does the rest. */
  constructor(ctx: WatchContext, key: string, opts: WatchOptions, onEnd: (w: EtcdWatch) => void) {
    this.#key = normalizeKey(key);
    this.#rv = parseResourceVersion(opts.resourceVersion);
    this.#opts = opts;
    this.#ctx = ctx;
    this.queue = new WatchQueue({
      signal: opts.signal,
      maxQueued: ctx.queueLimit,
      onClose: () => {
        this.#cancel?.();
        onEnd(this);
      },
    });
  }

  /** The watch asked for progress notifications (and so for requested BOOKMARKs). */
  get progressNotify(): boolean {
    return this.#opts.progressNotify ?? false;
  }

  /** Sends the initial events, if any, and registers the watcher, in the background; a failure ends it with an ERROR. */
  start(): void {
    if (this.queue.ended) return;
    this.#start().catch((err: unknown) => this.queue.fail(watchStatusOf(err)));
  }

  async #start(): Promise<void> {
    const { recursive = true, sendInitialEvents, allowWatchBookmarks, progressNotify = false } = this.#opts;
    const rv = this.#rv;
    const etcdKey = this.#ctx.keys.encode(recursive ? prefixOf(this.#key) : this.#key);
    const rangeEnd = recursive ? prefixRangeEnd(etcdKey) : undefined;
    let from: number;
    if (sendInitialEvents ?? rv === 0) {
      from = await this.#initialEvents(etcdKey, rangeEnd);
      if (sendInitialEvents && allowWatchBookmarks) this.queue.push({ type: 'BOOKMARK', object: bookmarkObject(from, true) });
    } else {
      from = rv > 0 ? rv : await this.#ctx.currentRevision();
    }
    if (this.queue.ended) return;
    const target: WatchTarget = { key: etcdKey, rangeEnd, progressNotify };
    this.#cancel = this.#ctx.mux.add(target, from + 1, this);
    this.#advance(from);
  }

  /**
   * Owes this watch (if it asked for progressNotify) a BOOKMARK at `revision` or later, sent once everything up to
   * it has been delivered. etcd 3.4 answers a WatchProgressRequest outside the event order (see requestWatchProgress
   * in etcd-storage.ts), so only what arrives in order proves that: an event at or above `revision`, or etcd's own
   * per-watcher progress notification, which it sends only to synced watchers, behind their events.
   */
  requestProgress(revision: number): void {
    if (!this.progressNotify || this.queue.ended) return;
    this.#owed = Math.max(this.#owed ?? 0, revision);
    if (this.#through !== undefined) this.#advance(this.#through);
  }

  /** ADDED for every matching object at the current revision, in key order; returns that revision. */
  async #initialEvents(etcdKey: Buffer, rangeEnd: Buffer | undefined): Promise<number> {
    const key = this.#key;
    const rv = this.#rv;
    let start = etcdKey;
    let revision = 0;
    for (;;) {
      const res = await this.#ctx.range(key, { key: start, range_end: rangeEnd, limit: rangeEnd ? INITIAL_PAGE : 0, revision });
      if (revision === 0) {
        revision = res.header.revision;
        if (rv > revision) throw storageErrors.tooLargeResourceVersion(rv, revision);
      }
      if (this.queue.ended) return revision;
      for (const kv of res.kvs) {
        const obj = decodeObject(this.#ctx.keys.decode(kv.key), kv.value, kv.mod_revision);
        if (predicateMatches(this.#opts.predicate, obj)) this.queue.push({ type: 'ADDED', object: obj });
      }
      const last = res.kvs[res.kvs.length - 1];
      if (!res.more || !last) return revision;
      start = keyAfter(last.key);
    }
  }

  events(events: WatchEventMessage[]): void {
    for (const ev of events) {
      let out: WatchEvent | undefined;
      try {
        out = translateEvent(this.#ctx.keys.decode(ev.kv.key), ev, this.#opts.predicate);
      } catch (err) {
        this.queue.fail(watchStatusOf(err));
        return;
      }
      if (out) {
        this.#lastActivity = Date.now();
        this.queue.push(out);
      }
    }
    // A response holds whole revisions, in order: its last event's revision is complete.
    const last = events[events.length - 1];
    if (last) this.#advance(last.kv.mod_revision);
  }

  progress(revision: number, requested = false): void {
    if (!this.#opts.progressNotify) return;
    if (this.#advance(revision)) return;
    const now = Date.now();
    // A requested notification is what a reader waits for; a timed one only matters after a quiet spell.
    if (!requested && now - this.#lastActivity < this.#ctx.progressIntervalMs) return;
    this.#lastActivity = now;
    this.queue.push({ type: 'BOOKMARK', object: bookmarkObject(revision) });
  }

  /** Records that everything up to `revision` was delivered; pays an owed BOOKMARK it covers (true if it did). */
  #advance(revision: number): boolean {
    this.#through = Math.max(this.#through ?? 0, revision);
    if (this.#owed === undefined || this.#through < this.#owed || this.queue.ended) return false;
    this.#owed = undefined;
    this.#lastActivity = Date.now();
    this.queue.push({ type: 'BOOKMARK', object: bookmarkObject(this.#through) });
    return true;
  }

  compacted(): void {
    this.#cancel = undefined;
    this.queue.fail(newResourceExpired(MESSAGES.watchExpired).status);
  }

  failed(err: Error): void {
    this.#cancel = undefined;
    this.queue.fail(watchStatusOf(err));
  }
}
