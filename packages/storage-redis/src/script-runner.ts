import { randomUUID } from 'node:crypto';
import { StorageError, storageErrors } from '@kapi/storage';
import type { Redis } from 'ioredis';
import { INIT, type LuaScript } from './lua-scripts.ts';

export interface ScriptRunnerOptions {
  client: Redis;
  prefix: string;
  /** Longest wait for one reply, and for the first connection. */
  timeoutMs: number;
  /**
   * The storage opened this connection, so it may cut it: calls are bounded by one watchdog (replies outstanding and
   * none for timeoutMs → reconnect, failing them all) instead of a timer per call. A caller's client is never cut:
   * there every call races its own timer.
   */
  ownsClient: boolean;
  /** The store's epoch changed after this runner knew one: its data was lost. `rev` is the revision it goes on from. */
  onEpochChange: (rev: number) => void;
}

/** Thrown by a script that found another epoch than the caller's (the data it knew is gone). */
class EpochMismatch extends Error {}

/**
 * Runs the Lua scripts on the main connection (EVALSHA, falling back to EVAL after a restart emptied the script cache):
 * fails fast with Unreachable when the connection is down, bounds every call by a timeout, and keeps the store epoch,
 * adopting a new one (and reporting the data loss) when a script says it changed.
 */
export class ScriptRunner {
  readonly client: Redis;
  readonly prefix: string;
  /** The store epoch this runner works in ('' until the first call). */
  epoch = '';
  /** Bumped whenever the epoch changes: work started under an older generation is stale. */
  generation = 0;
  /** The highest revision seen from this store: a store that lost its data restarts above it. */
  seen = 0;
  closed = false;
  readonly #opts: ScriptRunnerOptions;
  #syncing: Promise<void> | undefined;
  #everReady: boolean;
  /** The connection came back: check the store's epoch and revision before anything else runs on it. */
  #resync = false;
  /** Calls awaiting a reply on an owned connection, and when one last arrived (or the first was sent). */
  #pending = 0;
  #progressAt = 0;
  #watchdog: NodeJS.Timeout | undefined;
  /** Why the connection is down, as ioredis last said (ECONNREFUSED, a timeout): the commands it fails say only that it is. */
  #connectionError: string | undefined;

  constructor(opts: ScriptRunnerOptions) {
    this.#opts = opts;
    this.client = opts.client;
    this.prefix = opts.prefix;
    this.#everReady = opts.client.status === 'ready';
    opts.client.on('ready', this.#onReady);
    opts.client.on('error', this.#onError);
    if (opts.ownsClient) {
      this.#watchdog = setInterval(() => this.#checkProgress(), Math.max(10, opts.timeoutMs / 4));
      this.#watchdog.unref();
    }
  }

  /** A connection that owes replies and has sent none for timeoutMs is dead or hung: cut it (pending calls fail). */
  #checkProgress(): void {
    if (this.#pending > 0 && Date.now() - this.#progressAt > this.#opts.timeoutMs) {
      this.#progressAt = Date.now();
      this.client.disconnect(true);
    }
  }

  #sent(): void {
    if (this.#pending++ === 0) this.#progressAt = Date.now();
  }

  #replied(): void {
    this.#pending--;
    this.#progressAt = Date.now();
  }

  #onReady = (): void => {
    if (this.#everReady) this.#resync = true;
    this.#everReady = true;
    this.#connectionError = undefined;
  };

  #onError = (err: unknown): void => {
    this.#connectionError = messageOf(err);
  };

  /** Stops listening to the client (it may outlive this runner when the caller owns it). */
  detach(): void {
    this.closed = true;
    this.client.off('ready', this.#onReady);
    this.client.off('error', this.#onError);
    clearInterval(this.#watchdog);
  }

  /** Records a revision read from the store. */
  observe(rev: number): void {
    if (rev > this.seen) this.seen = rev;
  }

  /** Runs `script` with ARGV = [prefix, epoch, ...args]; adopts a changed epoch once and retries. */
  run(script: LuaScript, args: readonly (string | number)[], key = ''): Promise<unknown[]> {
    if (this.closed) return Promise.reject(storageErrors.unreachable(key, new Error('storage is closed')));
    // The common case in one hop: connected, epoch known, bounded by the watchdog.
    if (this.epoch !== '' && !this.#resync && this.client.status === 'ready' && this.#opts.ownsClient) {
      const epoch = this.epoch;
      this.#sent();
      return (this.client.evalsha(script.sha, 0, this.prefix, epoch, ...args) as Promise<unknown[]>).then(
        (reply) => {
          this.#replied();
          return reply;
        },
        (err: unknown) => {
          this.#replied();
          return this.#retry(err, script, args, key, epoch);
        },
      );
    }
    return this.#run(script, args, key);
  }

  async #retry(err: unknown, script: LuaScript, args: readonly (string | number)[], key: string, epoch: string): Promise<unknown[]> {
    if (messageOf(err).startsWith('NOSCRIPT')) return this.#run(script, args, key);
    if (messageOf(err).startsWith('KAPI_EPOCH')) {
      if (this.epoch === epoch) await this.sync(key);
      return this.#run(script, args, key, 1);
    }
    throw toStorageError(err, key, this.#connectionError);
  }

  async #run(script: LuaScript, args: readonly (string | number)[], key: string, attempt = 0): Promise<unknown[]> {
    if (this.epoch === '' || this.#resync) await this.sync(key);
    for (; ; attempt++) {
      try {
        return await this.#eval(script, [this.prefix, this.epoch, ...args], key);
      } catch (err) {
        if (!(err instanceof EpochMismatch)) throw err;
        if (attempt > 0) throw storageErrors.unreachable(key, new Error('the Redis store epoch keeps changing'));
        await this.sync(key);
      }
    }
  }

  /**
   * Agrees with the store on its epoch (initializing one if there is none). When it differs from the one known, or the
   * store's revision is below one already seen, data was lost: the store moves to a new epoch with its revision raised
   * above everything seen, and onEpochChange runs. Single-flight; runs after every reconnect.
   */
  sync(key = ''): Promise<void> {
    this.#syncing ??= this.#sync(key).finally(() => {
      this.#syncing = undefined;
    });
    return this.#syncing;
  }

  async #sync(key: string): Promise<void> {
    const before = this.epoch;
    const resync = this.#resync;
    this.#resync = false;
    let r: unknown[];
    try {
      r = await this.#eval(INIT, [this.prefix, before, randomUUID(), this.seen], key);
    } catch (err) {
      this.#resync ||= resync;
      throw err;
    }
    const epoch = String(r[0]);
    const rev = Number(r[2]);
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      this.generation++;
      if (before !== '') this.#opts.onEpochChange(rev);
    }
    this.observe(rev);
  }

  async #eval(script: LuaScript, argv: (string | number)[], key: string): Promise<unknown[]> {
    await this.#usable(key);
    const c = this.client;
    try {
      try {
        return (await this.#timed(c.evalsha(script.sha, 0, ...argv), key)) as unknown[];
      } catch (err) {
        // A restarted (or flushed) server has forgotten its scripts: EVAL sends the source and caches it again.
        if (!messageOf(err).startsWith('NOSCRIPT')) throw err;
        return (await this.#timed(c.eval(script.lua, 0, ...argv), key)) as unknown[];
      }
    } catch (err) {
      if (messageOf(err).startsWith('KAPI_EPOCH')) throw new EpochMismatch(messageOf(err));
      throw toStorageError(err, key, this.#connectionError);
    }
  }

  /** Resolves when the connection can take a command; waits only for the very first connection. */
  async #usable(key: string): Promise<void> {
    const c = this.client;
    if (c.status === 'ready') return;
    if (this.closed) throw storageErrors.unreachable(key, new Error('storage is closed'));
    const starting = c.status === 'wait' || (!this.#everReady && (c.status === 'connecting' || c.status === 'connect'));
    if (!starting) throw storageErrors.unreachable(key, this.#noConnection(c.status));
    if (c.status === 'wait') c.connect().catch(() => {});
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        clearTimeout(timer);
        c.off('ready', onReady);
        c.off('reconnecting', onDown);
        c.off('end', onDown);
        if (err) reject(storageErrors.unreachable(key, err));
        else resolve();
      };
      const onReady = () => done();
      const onDown = () => done(this.#noConnection('could not connect'));
      const timer = setTimeout(() => done(new Error(`no connection to Redis within ${this.#opts.timeoutMs} ms`)), this.#opts.timeoutMs);
      c.once('ready', onReady);
      c.once('reconnecting', onDown);
      c.once('end', onDown);
    });
  }

  /** "no connection to Redis", with ioredis' last connection error, else `state` (what the connection is doing). */
  #noConnection(state: string): Error {
    return new Error(`no connection to Redis: ${this.#connectionError ?? state}`);
  }

  #timed<T>(p: Promise<T>, key: string): Promise<T> {
    if (this.#opts.ownsClient) {
      this.#sent();
      return p.finally(() => this.#replied());
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(storageErrors.unreachable(key, new Error(`no reply from Redis within ${this.#opts.timeoutMs} ms`))),
        this.#opts.timeoutMs,
      );
    });
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
  }
}

function messageOf(err: unknown): string {
  return typeof (err as Error)?.message === 'string' ? (err as Error).message : String(err);
}

/** Redis replies that mean "not now" rather than "wrong": the caller may retry. */
const TRANSIENT_REPLY = /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|READONLY|CLUSTERDOWN)\b/;

/**
 * A connection failure or a transient reply becomes Unreachable (retryable); any other error reply from Redis (a script
 * error, OOM, WRONGTYPE) is Internal — retrying would fail the same way. StorageErrors pass through. A command ioredis
 * refuses because the connection is down says so in its own terms ("max retries per request", "Connection is closed");
 * the Unreachable says what a user can act on instead: the connection is down, and why (`down`, ioredis' last error).
 */
function toStorageError(err: unknown, key: string, down: string | undefined): StorageError {
  if (err instanceof StorageError) return err;
  // ioredis types ReplyError as `any`: recognise it by name.
  if (err instanceof Error && err.name === 'ReplyError' && !TRANSIENT_REPLY.test(err.message)) return storageErrors.internal(key, err);
  if (err instanceof Error && (err.name === 'MaxRetriesPerRequestError' || err.message === 'Connection is closed.'))
    return storageErrors.unreachable(key, new Error(`no connection to Redis: ${down ?? 'the connection is closed'}`, { cause: err }));
  return storageErrors.unreachable(key, err);
}
