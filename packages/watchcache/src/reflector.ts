import {
  type Clock,
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeObject,
  type Status,
  type TimerHandle,
  toStatusError,
  type WatchEvent,
} from '@kapi/apimachinery';
import type { Storage, Watch } from '@kapi/storage';

/** Where a Reflector delivers what it reads, in the backend's revision order. */
export interface ReflectorSink {
  /** A full list: the backend holds exactly `items` under the prefix at `rev`. */
  replace(items: KubeObject[], rev: number): void;
  /** One ADDED, MODIFIED or DELETED event from the watch. */
  change(ev: WatchEvent): void;
  /** A progress BOOKMARK: every change up to `rev` has been delivered. */
  progress(rev: number): void;
  /** The backend no longer has the history the watch needs (410): the cache is about to relist. */
  expired(): void;
}

export interface BackoffOptions {
  /** First delay after a failure (default 250 ms); it doubles per failure in a row. */
  initialMs?: number;
  /** Longest delay (default 30 s). */
  maxMs?: number;
}

export interface ReflectorOptions {
  storage: Storage;
  prefix: string;
  clock: Clock;
  sink: ReflectorSink;
  /** Page size of the list (default 10,000); every page is read at the first page's revision. */
  pageSize?: number;
  backoff?: BackoffOptions;
}

/**
 * Keeps a cache in step with a backend (client-go's reflector as the Cacher uses it): lists the prefix, then watches
 * from the list's revision with progress notifications. A watch that ends or fails is resumed from the last revision
 * seen (gap-free, so the cache and its watchers carry on); only a 410 — history gone — makes it list again. Failures
 * back off exponentially, on the injected clock.
 */
export class Reflector {
  readonly #storage: Storage;
  readonly #prefix: string;
  readonly #clock: Clock;
  readonly #sink: ReflectorSink;
  readonly #pageSize: number;
  readonly #initialMs: number;
  readonly #maxMs: number;
  #stopped = false;
  #watch: Watch | undefined;
  #sleep: { timer: TimerHandle; wake: () => void } | undefined;
  #failures = 0;
  #lists = 0;

  constructor(opts: ReflectorOptions) {
    this.#storage = opts.storage;
    this.#prefix = opts.prefix;
    this.#clock = opts.clock;
    this.#sink = opts.sink;
    this.#pageSize = opts.pageSize ?? 10_000;
    this.#initialMs = opts.backoff?.initialMs ?? 250;
    this.#maxMs = opts.backoff?.maxMs ?? 30_000;
  }

  /** How many full lists have completed. */
  get lists(): number {
    return this.#lists;
  }

  start(): void {
    void this.#run();
  }

  stop(): void {
    this.#stopped = true;
    this.#watch?.stop();
    const s = this.#sleep;
    if (s) {
      this.#clock.clearTimeout(s.timer);
      s.wake();
    }
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      let rev: number;
      try {
        rev = await this.#list();
      } catch {
        await this.#backoff();
        continue;
      }
      if (this.#stopped) return;
      this.#failures = 0;
      if ((await this.#watchFrom(rev)) === 'expired' && !this.#stopped) this.#sink.expired();
    }
  }

  /** Lists everything under the prefix at one revision and hands it to the sink; returns that revision. */
  async #list(): Promise<number> {
    const items: KubeObject[] = [];
    let cont: string | undefined;
    let rev: number | undefined;
    do {
      const page = await this.#storage.list(this.#prefix, { resourceVersion: '', predicate: { limit: this.#pageSize, continue: cont } });
      rev ??= Number(page.metadata.resourceVersion);
      for (const o of page.items) items.push(o);
      cont = page.metadata.continue || undefined;
    } while (cont && !this.#stopped);
    const at = rev ?? 0;
    if (!this.#stopped) {
      this.#lists++;
      this.#sink.replace(items, at);
    }
    return at;
  }

  /** Watches from `rev` until the history is gone ('expired') or the reflector stops, resuming broken watches. */
  async #watchFrom(rev: number): Promise<'expired' | 'stopped'> {
    let from = rev;
    while (!this.#stopped) {
      let failed: Status | undefined;
      let progressed = false;
      // To every backend "watch from 0" means "list, then watch": no watch asks for the changes after revision 0. So
      // from an empty store (revision 0) the watch takes a snapshot first. Still at 0, it just carries on. Written to
      // meanwhile, it is dropped: the store was empty at 0, so its state at revision 1 is the first change (an Exact
      // list), and the watch starts over from 1. Every change then reaches the cache one by one, as from any other
      // revision; nothing is relisted and no watcher of the cache misses anything.
      let snapshot = from === 0;
      try {
        const w = this.#storage.watch(this.#prefix, {
          resourceVersion: String(from),
          allowWatchBookmarks: true,
          progressNotify: true,
          ...(snapshot ? { sendInitialEvents: true } : {}),
        });
        this.#watch = w;
        for await (const ev of w) {
          if (this.#stopped) break;
          if (ev.type === 'ERROR') {
            failed = ev.object;
            break;
          }
          const at = Number(ev.object.metadata.resourceVersion);
          if (snapshot) {
            if (ev.type !== 'BOOKMARK' || ev.object.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== 'true') continue;
            snapshot = false;
            if (at === 0) continue;
            w.stop();
            from = await this.#firstChange();
            progressed = true;
            break;
          }
          if (ev.type === 'BOOKMARK') this.#sink.progress(at);
          else this.#sink.change(ev);
          if (at > from) from = at;
          progressed = true;
        }
      } catch (err) {
        failed = toStatusError(err).status;
      } finally {
        this.#watch?.stop();
        this.#watch = undefined;
      }
      if (this.#stopped) return 'stopped';
      if (failed?.code === 410) return 'expired';
      // An ended or failed watch resumes from the last revision seen; back off unless it got somewhere.
      if (failed || !progressed) await this.#backoff();
      else this.#failures = 0;
    }
    return 'stopped';
  }

  /** The change at revision 1 of a store that was empty at 0: its state at 1 (an ADDED, if under the prefix). Returns 1. */
  async #firstChange(): Promise<number> {
    const first = await this.#storage.list(this.#prefix, { resourceVersion: '1', resourceVersionMatch: 'Exact' });
    if (this.#stopped) return 1;
    for (const object of first.items) this.#sink.change({ type: 'ADDED', object });
    this.#sink.progress(1);
    return 1;
  }

  async #backoff(): Promise<void> {
    const base = Math.min(this.#maxMs, this.#initialMs * 2 ** this.#failures);
    this.#failures = Math.min(this.#failures + 1, 30);
    // Jitter, so caches that lost the same backend do not all come back at once.
    const ms = base * (1 + Math.random() * 0.5);
    await new Promise<void>((resolve) => {
      if (this.#stopped) return resolve();
      const timer = this.#clock.setTimeout(() => {
        this.#sleep = undefined;
        resolve();
      }, ms);
      timer.unref?.();
      this.#sleep = { timer, wake: resolve };
    });
  }
}
