import { newResourceExpired, type Status } from '@kapi/apimachinery';
import { bookmarkObject, MESSAGES, storageErrors, watchStatusOf } from '@kapi/storage';
import type { Redis, RedisOptions } from 'ioredis';
import type { KeyLayout } from './key-layout.ts';
import { type LogChange, parseLogEntries, parseXread } from './log-change.ts';
import { LOG, REV } from './lua-scripts.ts';
import type { RecentWrites } from './recent-writes.ts';
import type { ScriptRunner } from './script-runner.ts';
import { eventFor, inRange, type Watcher } from './watcher.ts';

export interface WatchHubOptions {
  runner: ScriptRunner;
  layout: KeyLayout;
  /** How long one XREAD blocks waiting for new entries. */
  blockMs: number;
  /** Idle time after which progressNotify watchers get a BOOKMARK. */
  progressMs: number;
  /** How long the reader may stay disconnected before every watch ends with an Unreachable error. */
  reconnectTimeoutMs: number;
  /** Bound for a reply (the reader's read is given blockMs on top of it). */
  timeoutMs: number;
  /** Log entries read per XREAD / XRANGE. */
  batch: number;
  /** Options for the reader's own connection (a duplicate of the main client). */
  readerOptions: Partial<RedisOptions>;
  /** The storage's own latest writes: their events take the objects the writes decoded. */
  recent?: RecentWrites;
}

/** The message of the 410 a watch ends with when the store lost its data (a restarted Redis without persistence). */
export const DATA_LOST_MESSAGE = `${MESSAGES.watchExpired} The Redis store lost its data and was re-initialized: list again.`;

const expiredStatus = (message: string = MESSAGES.watchExpired): Status => newResourceExpired(message).status;

/**
 * Fans the event log out to every watch of one RedisStorage: one reader connection blocks on XREAD from the last
 * revision it dispatched, checks the store epoch with every read, and hands each change to the live watchers; a new
 * watcher replays the log from its own start revision (XRANGE on the main connection) while live changes for it are
 * buffered, then joins the live feed with no gap and no duplicate. After a dropped connection the reader resumes from
 * its position; a gap in the log (compacted past it) or another epoch (the data was lost) ends the watches with 410.
 */
export class WatchHub {
  readonly #opts: WatchHubOptions;
  readonly #runner: ScriptRunner;
  readonly #watchers = new Set<Watcher>();
  /** The last revision the reader dispatched. */
  #pos = 0;
  #reader: Redis | undefined;
  /** Resolves once the reader runs with a known position; undefined while it is stopped. */
  #ready: Promise<void> | undefined;
  #waiters: { rev: number; resolve: () => void }[] = [];
  /** The highest revision a requestProgress asked for that the reader has not dispatched yet (0: none). */
  #progressOwed = 0;
  #progressTimer: NodeJS.Timeout | undefined;
  #ticking = false;
  #closed = false;

  constructor(opts: WatchHubOptions) {
    this.#opts = opts;
    this.#runner = opts.runner;
  }

  /** Registers a watcher (in state `starting`: it gets nothing until join). */
  add(w: Watcher): void {
    this.#watchers.add(w);
    if (w.progressNotify) this.#scheduleProgress();
  }

  remove(w: Watcher): void {
    this.#watchers.delete(w);
  }

  /** Whether any watcher asked for progressNotify. */
  get hasProgressWatchers(): boolean {
    for (const w of this.#watchers) if (w.progressNotify) return true;
    return false;
  }

  /**
   * Every progressNotify watcher gets a BOOKMARK at or above `rev` (the store's revision when asked) once the reader
   * has dispatched everything up to it: a live watcher has then been handed every change up to its lastRev, so the
   * BOOKMARK comes after all of them; one still starting or replaying gets it on going live, from a newer position.
   */
  requestProgress(rev: number): void {
    if (this.#closed) return;
    this.#progressOwed = Math.max(this.#progressOwed, rev);
    this.#payProgress();
  }

  /**
   * Delivers to `w` every change after `from`, then the live feed. Throws (Unreachable) if the log cannot be read;
   * ends `w` with 410 if the log no longer holds `from + 1`.
   */
  async join(w: Watcher, from: number): Promise<void> {
    await this.#start();
    if (w.queue.ended) return;
    const runner = this.#runner;
    const generation = runner.generation;
    const target = this.#pos;
    w.lastRev = from;
    if (from >= target) {
      this.#goLive(w);
      return;
    }
    w.state = 'replaying';
    w.buffer = [];
    while (w.lastRev < target) {
      const reply = await runner.run(LOG, [`${w.lastRev + 1}-0`, `${target}-0`, this.#opts.batch], w.key);
      if (w.queue.ended || generation !== runner.generation) return;
      const changes = parseLogEntries(reply, this.#opts.recent);
      // Every revision has an entry: a missing one was compacted away.
      if (changes[0]?.rev !== w.lastRev + 1) {
        w.queue.fail(expiredStatus());
        return;
      }
      for (const c of changes) {
        this.#deliver(w, c, Date.now());
        w.lastRev = c.rev;
      }
    }
    const now = Date.now();
    for (const c of w.buffer) if (c.rev > w.lastRev) this.#deliver(w, c, now);
    w.buffer = undefined;
    w.lastRev = Math.max(w.lastRev, this.#pos);
    this.#goLive(w);
  }

  /** Joins `w` to the live feed (everything up to its lastRev delivered) and pays a BOOKMARK owed meanwhile. */
  #goLive(w: Watcher): void {
    w.state = 'live';
    if (!w.progressOwed) return;
    w.progressOwed = false;
    this.#bookmark(w, Date.now());
  }

  /** Pays the owed progress once the reader has dispatched its revision. */
  #payProgress(): void {
    if (this.#progressOwed === 0 || this.#pos < this.#progressOwed) return;
    this.#progressOwed = 0;
    const now = Date.now();
    for (const w of this.#watchers) {
      if (!w.progressNotify || w.queue.ended) continue;
      if (w.state === 'live') this.#bookmark(w, now);
      else w.progressOwed = true;
    }
  }

  /** A BOOKMARK at the live watcher's position (never below the reader's: it was handed every change up to both). */
  #bookmark(w: Watcher, now: number): void {
    w.lastRev = Math.max(w.lastRev, this.#pos);
    w.queue.push({ type: 'BOOKMARK', object: bookmarkObject(w.lastRev) });
    w.lastSentAt = now;
  }

  /** Ends every watch with an ERROR event carrying `status`. */
  failAll(status: Status): void {
    for (const w of [...this.#watchers]) w.queue.fail(status);
  }

  /** The store's data was lost and it goes on from `rev` under a new epoch: every watch must relist. */
  onEpochChange(rev: number): void {
    this.failAll(expiredStatus(DATA_LOST_MESSAGE));
    this.#pos = rev;
    // The watches owed a BOOKMARK are gone, and the revision it was owed at may never come again.
    this.#progressOwed = 0;
  }

  close(): void {
    this.#closed = true;
    if (this.#progressTimer) clearInterval(this.#progressTimer);
    this.#progressTimer = undefined;
    for (const w of [...this.#watchers]) w.queue.end();
    for (const waiter of this.#waiters) waiter.resolve();
    this.#waiters = [];
    this.#reader?.disconnect();
  }

  #start(): Promise<void> {
    if (this.#closed) return Promise.reject(storageErrors.unreachable('', new Error('storage is closed')));
    if (!this.#ready) {
      const ready = (async () => {
        const r = await this.#runner.run(REV, []);
        this.#pos = Number(r[0]);
        this.#ensureReader();
      })();
      this.#ready = ready;
      ready.then(
        () => this.#loop(ready).catch(() => {}),
        () => {
          if (this.#ready === ready) this.#ready = undefined;
        },
      );
    }
    return this.#ready;
  }

  #ensureReader(): Redis {
    if (!this.#reader) {
      const reader = this.#runner.client.duplicate(this.#opts.readerOptions);
      // Connection errors surface as failed reads, which the loop handles.
      reader.on('error', () => {});
      this.#reader = reader;
    }
    return this.#reader;
  }

  /**
   * Reads the log while anyone watches. `ready` is this run's start: it is cleared in the same step that sees no
   * watcher left, so a watch that comes later restarts the reader instead of joining one that is stopping.
   */
  async #loop(ready: Promise<void>): Promise<void> {
    try {
      await this.#read();
    } finally {
      if (this.#ready === ready) this.#ready = undefined;
    }
  }

  async #read(): Promise<void> {
    const reader = this.#ensureReader();
    const runner = this.#runner;
    const { layout, blockMs, batch, reconnectTimeoutMs, timeoutMs } = this.#opts;
    let downSince = 0;
    while (!this.#closed && this.#watchers.size > 0) {
      if (downSince > 0 && Date.now() - downSince > reconnectTimeoutMs) {
        this.failAll(
          watchStatusOf(storageErrors.unreachable(layout.log, new Error(`lost the connection to Redis for ${reconnectTimeoutMs} ms`))),
        );
        break;
      }
      if (reader.status !== 'ready') {
        downSince ||= Date.now();
        if (reader.status === 'wait' || reader.status === 'end') reader.connect().catch(() => {});
        await readyOrTimeout(reader, 100);
        continue;
      }
      if (downSince > 0) {
        // Back after a drop: the server may have restarted and lost writes; sync() ends the watches if it did.
        this.#runner.observe(this.#pos);
        const synced = await runner.sync(layout.epoch).then(
          () => true,
          () => false,
        );
        if (!synced) {
          await delay(20);
          continue;
        }
        downSince = 0;
        continue;
      }
      const generation = runner.generation;
      const from = this.#pos;
      let reply: unknown;
      let epoch: string | null;
      try {
        // Pipelined: GET runs right after XREAD returns, so an unchanged epoch vouches for the entries read.
        [reply, epoch] = await watchdog(
          Promise.all([reader.xread('COUNT', batch, 'BLOCK', blockMs, 'STREAMS', layout.log, `${from}-0`), reader.get(layout.epoch)]),
          blockMs + timeoutMs,
          () => reader.disconnect(true),
        );
      } catch {
        // Dropped connection (or a dead one the watchdog cut): resume from the same position once it is back.
        downSince ||= Date.now();
        await delay(20);
        continue;
      }
      if (this.#closed) break;
      if (generation !== runner.generation || from !== this.#pos) continue;
      if (epoch !== runner.epoch) {
        // The data this reader followed is gone: sync() adopts the new epoch and ends every watch (onEpochChange).
        await runner.sync(layout.epoch).catch(() => {});
        continue;
      }
      this.#dispatch(parseXread(reply, this.#opts.recent));
    }
    this.#ready = undefined;
  }

  #dispatch(changes: LogChange[]): void {
    if (changes.length === 0) return;
    const now = Date.now();
    for (const c of changes) {
      if (c.rev <= this.#pos) continue;
      // Every revision has an entry: a missing one was compacted away before this reader saw it.
      if (c.rev !== this.#pos + 1) this.failAll(expiredStatus());
      this.#pos = c.rev;
      for (const w of this.#watchers) {
        if (w.state === 'live') {
          if (c.rev > w.lastRev) {
            this.#deliver(w, c, now);
            w.lastRev = c.rev;
          }
        } else if (w.state === 'replaying' && inRange(w, c.key)) w.buffer?.push(c);
      }
    }
    this.#runner.observe(this.#pos);
    this.#payProgress();
    if (this.#waiters.length > 0) {
      const pos = this.#pos;
      this.#waiters = this.#waiters.filter((waiter) => {
        if (waiter.rev > pos) return true;
        waiter.resolve();
        return false;
      });
    }
  }

  #deliver(w: Watcher, c: LogChange, now: number): void {
    const event = eventFor(w, c);
    if (!event) return;
    w.queue.push(event);
    w.lastSentAt = now;
  }

  /** Resolves when the reader has dispatched `rev` (or after `ms`). */
  #reach(rev: number, ms: number): Promise<void> {
    if (this.#pos >= rev) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        rev,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((x) => x !== waiter);
        resolve();
      }, ms);
      this.#waiters.push(waiter);
    });
  }

  #scheduleProgress(): void {
    if (this.#progressTimer || this.#closed) return;
    this.#progressTimer = setInterval(() => void this.#tick(), Math.max(10, this.#opts.progressMs / 2));
    this.#progressTimer.unref();
  }

  /** Sends a BOOKMARK at the current revision to progressNotify watchers idle for a whole interval. */
  async #tick(): Promise<void> {
    if (this.#ticking) return;
    const interval = this.#opts.progressMs;
    const now = Date.now();
    let any = false;
    const due: Watcher[] = [];
    for (const w of this.#watchers) {
      if (!w.progressNotify) continue;
      any = true;
      if (w.state === 'live' && now - w.lastSentAt >= interval) due.push(w);
    }
    if (!any) {
      clearInterval(this.#progressTimer);
      this.#progressTimer = undefined;
      return;
    }
    if (due.length === 0) return;
    this.#ticking = true;
    try {
      // "The latest revision": the store's, once the reader has dispatched everything up to it.
      const rev = Number((await this.#runner.run(REV, []))[0]);
      await this.#reach(rev, interval);
      const pos = this.#pos;
      if (pos < rev) return;
      const at = Date.now();
      for (const w of due) {
        if (w.queue.ended || w.state !== 'live' || w.lastRev > pos || at - w.lastSentAt < interval) continue;
        w.queue.push({ type: 'BOOKMARK', object: bookmarkObject(pos) });
        w.lastRev = pos;
        w.lastSentAt = at;
      }
    } catch {
      // Redis unreachable: no bookmark this time.
    } finally {
      this.#ticking = false;
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function readyOrTimeout(c: Redis, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      c.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    c.once('ready', done);
  });
}

/** `p`, or a rejection after `ms` (calling `onTimeout` first, e.g. to cut a dead connection). */
function watchdog<T>(p: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`no reply from Redis within ${ms} ms`));
    }, ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
