import { storageErrors } from '@kapi/storage';
import type { EtcdClient, WatchStream } from '../client/etcd-client.ts';
import type { WatchEventMessage, WatchRequest, WatchResponse } from '../client/messages.ts';

/** What one etcd watcher covers: a key, or the range [key, rangeEnd). */
export interface WatchTarget {
  key: Buffer;
  rangeEnd: Buffer | undefined;
  /** Ask etcd for progress notifications while the watcher is idle. */
  progressNotify: boolean;
}

/** Where a watcher's responses go. Each is called in stream order; none after compacted() or failed(). */
export interface WatchHandler {
  /** Events of one or more revisions, in revision order (each with prev_kv unless it was a creation). */
  events(events: WatchEventMessage[]): void;
  /**
   * Every event up to `revision` has been delivered: an idle watcher's progress notification, or (`requested`) etcd's
   * answer to a progress request.
   */
  progress(revision: number, requested?: boolean): void;
  /** The revision the watcher needed was compacted away: it is gone. */
  compacted(): void;
  /** etcd cancelled the watcher, or could not be reached for too long (a StorageError Unreachable): it is gone. */
  failed(err: Error): void;
}

export interface WatchMuxOptions {
  /** How long the stream may stay broken (etcd down) before every watcher fails instead of waiting. */
  reconnectTimeoutMs: number;
}

interface Subscription {
  readonly id: number;
  readonly target: WatchTarget;
  readonly handler: WatchHandler;
  /** The first revision not yet delivered: where a re-created watcher starts. */
  next: number;
}

/** The watch id of etcd's answer to a progress request: it is for every watcher on the stream. */
const ALL_WATCHERS = -1;

const MIN_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1000;

/**
 * Many watchers on one gRPC Watch stream, as etcd's clientv3 does: each gets a watch id chosen here (etcd 3.4+
 * assigns the requested id), responses are routed by it. When the stream breaks (etcd restarted, connection lost),
 * it is opened again with backoff and every watcher is re-created from the revision after the last one it was given,
 * so nothing is lost or repeated; a watcher whose revision was compacted meanwhile gets compacted(). If no stream
 * can be (re)established for `reconnectTimeoutMs`, every watcher gets failed() rather than waiting forever.
 */
export class WatchMux {
  readonly #client: Pick<EtcdClient, 'watch' | 'watchError'>;
  readonly #reconnectTimeoutMs: number;
  readonly #subs = new Map<number, Subscription>();
  #nextId = 1;
  #stream: WatchStream | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  /** Runs while no stream is known to work; when it fires every watcher fails. */
  #giveUpTimer: NodeJS.Timeout | undefined;
  #backoffMs = 0;
  #lastError: unknown;
  #closed = false;
  /** Progress requests on this stream not answered yet: the highest watcher id on the stream when each was sent. */
  #progressAsked: number[] = [];

  constructor(client: Pick<EtcdClient, 'watch' | 'watchError'>, options: WatchMuxOptions) {
    this.#client = client;
    this.#reconnectTimeoutMs = options.reconnectTimeoutMs;
  }

  /** Starts a watcher at `startRevision` (inclusive); returns the function that cancels it. */
  add(target: WatchTarget, startRevision: number, handler: WatchHandler): () => void {
    if (this.#closed) throw new Error('watch stream is closed');
    const sub: Subscription = { id: this.#nextId++, target, handler, next: startRevision };
    this.#subs.set(sub.id, sub);
    if (this.#stream) this.#stream.write(createRequest(sub));
    else if (!this.#retryTimer) this.#open();
    return () => this.#remove(sub.id);
  }

  /**
   * Asks etcd for a progress notification on the stream now (WatchProgressRequest). Only for an etcd that answers it
   * in order with the events (3.4.31+ / 3.5.13+): its answer then reaches, as progress(revision, true), every watcher
   * that was on the stream when it was asked. False when there is no stream to ask on.
   */
  requestProgress(): boolean {
    const stream = this.#stream;
    if (!stream || this.#subs.size === 0) return false;
    this.#progressAsked.push(this.#nextId - 1);
    stream.write({ progress_request: {} });
    return true;
  }

  /** Ends the stream; watchers get nothing more (their owners end them). */
  close(): void {
    this.#closed = true;
    this.#subs.clear();
    this.#teardown();
  }

  /** Forgets a watcher; tells etcd too unless etcd is the one that cancelled it. */
  #remove(id: number, cancelAtServer = true): void {
    if (!this.#subs.delete(id)) return;
    if (this.#subs.size === 0) this.#teardown();
    else if (cancelAtServer && this.#stream) this.#stream.write({ cancel_request: { watch_id: id } });
  }

  #open(): void {
    const stream = this.#client.watch();
    this.#stream = stream;
    this.#progressAsked = [];
    this.#giveUpTimer ??= setTimeout(() => this.#giveUp(), this.#reconnectTimeoutMs);
    stream.on('data', (res: WatchResponse) => this.#onResponse(stream, res));
    stream.on('error', (err: unknown) => this.#onBroken(stream, err));
    stream.on('end', () => this.#onBroken(stream, new Error('etcd ended the watch stream')));
    for (const sub of this.#subs.values()) stream.write(createRequest(sub));
  }

  #onResponse(stream: WatchStream, res: WatchResponse): void {
    if (stream !== this.#stream) return;
    this.#healthy();
    if (res.watch_id === ALL_WATCHERS) {
      this.#progressAnswered(res.header.revision);
      return;
    }
    // Unknown ids: watchers cancelled here whose last responses were already on the way.
    const sub = this.#subs.get(res.watch_id);
    if (!sub) return;
    if (res.canceled) {
      this.#remove(sub.id, false);
      if (res.compact_revision > 0) sub.handler.compacted();
      else sub.handler.failed(new Error(`etcd cancelled the watch: ${res.cancel_reason || 'no reason given'}`));
      return;
    }
    if (res.created) return;
    const last = res.events[res.events.length - 1];
    if (last) {
      sub.next = last.kv.mod_revision + 1;
      sub.handler.events(res.events);
    } else if (res.header.revision > 0) {
      // A progress notification: etcd sends it in order with the events, so everything up to it was delivered.
      sub.next = Math.max(sub.next, res.header.revision + 1);
      sub.handler.progress(res.header.revision);
    }
  }

  /**
   * etcd's answer to a progress request. It goes to the watchers of the oldest request still open: those were created
   * on the stream before it, so etcd counted them (a watcher created later may still be replaying older revisions).
   * etcd answers several requests at once while one is deferred, so the rest are dropped rather than matched to later
   * answers; whoever waits asks again.
   */
  #progressAnswered(revision: number): void {
    const upTo = this.#progressAsked[0];
    this.#progressAsked = [];
    if (upTo === undefined || revision <= 0) return;
    for (const sub of [...this.#subs.values()]) {
      if (sub.id > upTo) continue;
      sub.next = Math.max(sub.next, revision + 1);
      sub.handler.progress(revision, true);
    }
  }

  #onBroken(stream: WatchStream, err: unknown): void {
    if (stream !== this.#stream) return;
    this.#stream = undefined;
    // Kept for the failure of every watcher if no stream works again: a failed TLS handshake said as calls say it.
    this.#lastError = this.#client.watchError(stream, err);
    if (this.#closed || this.#subs.size === 0) return;
    this.#giveUpTimer ??= setTimeout(() => this.#giveUp(), this.#reconnectTimeoutMs);
    this.#backoffMs = Math.min(Math.max(this.#backoffMs * 2, MIN_BACKOFF_MS), MAX_BACKOFF_MS);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (!this.#closed && this.#subs.size > 0 && !this.#stream) this.#open();
    }, this.#backoffMs);
  }

  #healthy(): void {
    this.#backoffMs = 0;
    this.#lastError = undefined;
    if (this.#giveUpTimer) clearTimeout(this.#giveUpTimer);
    this.#giveUpTimer = undefined;
  }

  #giveUp(): void {
    this.#giveUpTimer = undefined;
    const last = this.#lastError as { message?: unknown; details?: unknown } | undefined;
    // gRPC's details, without the "14 UNAVAILABLE: " its message starts with.
    const text = typeof last?.details === 'string' && last.details ? last.details : last instanceof Error ? last.message : '';
    const why = text ? `: ${text}` : '';
    const cause = new Error(`no etcd watch stream for ${this.#reconnectTimeoutMs} ms${why}`, { cause: this.#lastError });
    const err = storageErrors.unreachable('', cause);
    const subs = [...this.#subs.values()];
    this.#subs.clear();
    this.#teardown();
    for (const sub of subs) sub.handler.failed(err);
  }

  /** Drops the stream and every timer (no watcher left, or closing). */
  #teardown(): void {
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    if (this.#giveUpTimer) clearTimeout(this.#giveUpTimer);
    this.#retryTimer = this.#giveUpTimer = undefined;
    this.#backoffMs = 0;
    const stream = this.#stream;
    this.#stream = undefined;
    this.#progressAsked = [];
    if (stream) {
      stream.removeAllListeners();
      stream.on('error', () => {}); // the CANCELLED status that cancel() causes
      stream.cancel();
    }
  }
}

function createRequest(sub: Subscription): WatchRequest {
  return {
    create_request: {
      key: sub.target.key,
      range_end: sub.target.rangeEnd,
      start_revision: sub.next,
      progress_notify: sub.target.progressNotify,
      prev_kv: true,
      watch_id: sub.id,
    },
  };
}
