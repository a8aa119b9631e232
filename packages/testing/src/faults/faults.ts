import { type Clock, realClock, type TimerHandle } from '@kapi/apimachinery';
import { type Filter, type RequestContext, writeStatus } from '@kapi/server-core';
import { type Storage, supports } from '@kapi/storage';
import { endWatch } from './end-watch.ts';
import { type FaultStatus, statusFor } from './fault-status.ts';
import { matchesRequest, type RequestMatch } from './request-match.ts';
import { resetConnection } from './reset-connection.ts';

export interface FaultsOptions {
  /** The server's backend, for `compact()`. */
  storage?: Storage;
  /**
   * Forgets the watch caches' history up to a revision, for `compact()` (a GenericAPIServer's `compactWatchCaches`;
   * the server is made after its filters, so this is called late).
   */
  compactWatchCaches?: (revision: number) => Promise<void>;
  /**
   * The clock `delay` waits on. Default the real one: a delay is latency the client observes, and the client's own
   * timeouts run on real time. Give the server's FakeClock to hold requests until the test advances it.
   */
  delayClock?: Clock;
}

/** A count of matching requests a rule still applies to (Infinity: until `clear()`). */
interface Rule {
  match: RequestMatch;
  left: number;
}

/**
 * Faults a test injects into an API server, so a controller's retry, backoff and relist paths run: failed requests,
 * slow ones, ended watches, compacted history, reset connections. `filter` goes in the server's filters
 * (GenericAPIServerOptions.filters: after authentication and authorization, where the request info names the verb,
 * resource and object); every rule applies to the requests it matches from then on. A delay runs before the
 * server's request timeout starts, so the client sees the latency but the server does not answer 504 for it.
 *
 * @example
 * const faults = new Faults({ storage, compactWatchCaches: (rev) => server.compactWatchCaches(rev) });
 * const server = new GenericAPIServer({ storage, resources, filters: [faults.filter] });
 * faults.failNext(1, conflict(), { verb: 'update', resource: 'widgets.example.com' });
 * await faults.endWatches({ resource: 'widgets' }, { expired: true }); // informers relist
 * await faults.compact(); // a watch resumed from before now gets 410 Expired
 */
export class Faults {
  readonly #storage: Storage | undefined;
  readonly #compactWatchCaches: ((revision: number) => Promise<void>) | undefined;
  readonly #delayClock: Clock;
  #failures: (Rule & { status: FaultStatus })[] = [];
  #delays: (Rule & { ms: number })[] = [];
  #drops: Rule[] = [];
  /** Requests inside the filter now (watches until their stream ends). */
  readonly #inFlight = new Set<RequestContext>();
  /** Delayed requests, released early by `clear()`. */
  readonly #waiting = new Map<TimerHandle, () => void>();

  constructor(options: FaultsOptions = {}) {
    this.#storage = options.storage;
    this.#compactWatchCaches = options.compactWatchCaches;
    this.#delayClock = options.delayClock ?? realClock;
  }

  /** The next `n` requests `match` takes get `status` (see fault-status.ts for 409, 429, 500, 504) instead of an answer. */
  failNext(n: number, status: FaultStatus, match: RequestMatch = {}): void {
    if (n > 0) this.#failures.push({ match, left: n, status });
  }

  /** Requests `match` takes wait `ms` before they are served, the next `times` of them (default all, until `clear()`). */
  delay(ms: number, match: RequestMatch = {}, options: { times?: number } = {}): void {
    const times = options.times ?? Number.POSITIVE_INFINITY;
    if (times > 0) this.#delays.push({ match, left: times, ms });
  }

  /**
   * Ends the open watches `match` takes: cleanly (the client watches again from its last resourceVersion), or with
   * `expired` after kube's 410 Expired ERROR event (the client relists). Resolves to how many were ended.
   */
  async endWatches(match: RequestMatch = {}, options: { expired?: boolean } = {}): Promise<number> {
    const watches = [...this.#inFlight].filter((ctx) => ctx.requestInfo?.verb === 'watch' && matchesRequest(ctx.requestInfo, match));
    await Promise.all(watches.map((ctx) => endWatch(ctx.res, options.expired ?? false)));
    return watches.length;
  }

  /**
   * Compacts the storage's history at its current revision, and the watch caches' windows with it (unless
   * `watchCaches: false`): a watch resumed from an older resourceVersion gets kube's 410 Expired ERROR event (so an
   * informer relists), and a list or get at an older revision with `resourceVersionMatch=Exact` is 410 too. A list
   * "NotOlderThan" an older revision is served as before. Open watches go on. Resolves to the revision.
   *
   * kube's watch cache is not cut by etcd's compaction — its window moves on as events arrive — so after a real
   * compaction a resumed watch expires only once the cache has moved past it; `watchCaches: false` compacts the
   * storage alone, leaving that window as it is.
   */
  async compact(options: { watchCaches?: boolean } = {}): Promise<number> {
    const storage = this.#storage;
    if (!storage) throw new Error('Faults.compact needs the storage (FaultsOptions.storage)');
    if (!supports(storage, 'compact')) throw new Error('this storage keeps no history to compact');
    const revision = Number(await storage.currentResourceVersion());
    await storage.compact(revision);
    if (options.watchCaches ?? true) await this.#compactWatchCaches?.(revision);
    return revision;
  }

  /**
   * Resets the connections of the in-flight requests `match` takes (open watches included), and of the next `next`
   * matching ones (default none): the client sees ECONNRESET / "socket hang up". Returns how many were reset now.
   */
  dropConnections(match: RequestMatch = {}, options: { next?: number } = {}): number {
    if (options.next && options.next > 0) this.#drops.push({ match, left: options.next });
    let dropped = 0;
    for (const ctx of this.#inFlight) {
      if (!matchesRequest(ctx.requestInfo, match)) continue;
      resetConnection(ctx.req.socket);
      dropped++;
    }
    return dropped;
  }

  /** Removes every rule and lets delayed requests through now. Open watches stay open. */
  clear(): void {
    this.#failures = [];
    this.#delays = [];
    this.#drops = [];
    for (const [timer, release] of this.#waiting) {
      this.#delayClock.clearTimeout(timer);
      release();
    }
    this.#waiting.clear();
  }

  readonly filter: Filter = async (ctx, next) => {
    const info = ctx.requestInfo;
    const delay = take(this.#delays, info);
    if (delay) await this.#wait(delay.ms);
    if (take(this.#drops, info)) {
      resetConnection(ctx.req.socket);
      return;
    }
    const failure = take(this.#failures, info);
    if (failure && info) {
      writeStatus(ctx.res, statusFor(failure.status, info));
      return;
    }
    this.#inFlight.add(ctx);
    try {
      await next();
    } finally {
      this.#inFlight.delete(ctx);
    }
  };

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.#delayClock.setTimeout(() => {
        this.#waiting.delete(timer);
        resolve();
      }, ms);
      this.#waiting.set(timer, resolve);
    });
  }
}

/** The first rule with uses left that takes the request, one use spent; rules used up are removed. */
function take<R extends Rule>(rules: R[], info: RequestContext['requestInfo']): R | undefined {
  const i = rules.findIndex((r) => matchesRequest(info, r.match));
  const rule = rules[i];
  if (!rule) return undefined;
  if (--rule.left <= 0) rules.splice(i, 1);
  return rule;
}
