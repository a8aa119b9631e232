import { type Clock, realClock } from '@kapi/apimachinery';
import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  ListWatch,
  type ObjectCache,
  type ObjectCallback,
  Watch,
} from '@kubernetes/client-node';

export interface InformerOptions<T extends KubernetesObject> {
  /** The collection's path, e.g. `/apis/example.kapi.dev/v1/parts` (all namespaces) or a namespaced one. */
  path: string;
  /** Lists the collection (a client-node API call); its `metadata.resourceVersion` is where the watch starts. */
  list: () => Promise<KubernetesListObject<T>>;
  labelSelector?: string;
  fieldSelector?: string;
  /** Times the restart backoff and client-node's reconnect delays. Default: the real clock. */
  clock?: Clock;
  /** First restart delay after an error, doubled per consecutive failure. Default 1000 ms (client-node's). */
  baseDelayMs?: number;
  /** Cap of every delay, client-node's reconnect delays included. Default 30 s (client-node's). */
  maxDelayMs?: number;
  /** Told of each error the informer recovers from (a failed list or watch). Default: none. */
  onError?: (err: unknown) => void;
}

/**
 * A client-node informer (its `ListWatch`: a cache kept by list, then watch) that keeps running, as client-go's
 * reflector does. What client-node 2.0.1's ListWatch does by itself, and what this adds:
 *
 * - A watch the server **ends cleanly** (timeout, restart): ListWatch re-watches from the last resourceVersion it saw,
 *   without relisting (its delay before a second quiet reconnect is timed here, on `clock`, capped at `maxDelayMs`).
 * - A **410 Expired** — an ERROR event in the stream (followed by the server closing it), or a watch request answered
 *   410 — makes ListWatch forget its resourceVersion and relist; objects gone from the new list get `delete` callbacks,
 *   changed ones `update`, new ones `add`. Nothing to add here.
 * - **Any other error** (a failed list, a refused or reset watch connection, a 5xx) makes ListWatch call its `error`
 *   callbacks and stop for good. This class restarts it after a backoff (`baseDelayMs` doubled per failure up to
 *   `maxDelayMs`, reset by a successful list or watch); it resumes from its last resourceVersion, relisting if that
 *   has expired.
 * - ListWatch's `stop()` during a list or a reconnect delay still opens the next watch; here a watch opened after
 *   `stop()` is aborted at once, and the abort's error is not taken for a failure.
 *
 * `start()` resolves once the first list is in the cache (client-go's HasSynced) or rejects when `signal` aborts first.
 * Handlers added with `on` before `start()` see every object of the first list as `add`.
 *
 * @example
 * const parts = new Informer<Part>({ path: '/apis/example.kapi.dev/v1/parts', list: () => api.list(...) });
 * parts.on('add', (p) => queue.add(keyOf(p)));
 * await parts.start();
 * parts.list('default'); // the cache
 * await parts.stop();
 */
export class Informer<T extends KubernetesObject> implements ObjectCache<T> {
  readonly #listWatch: ListWatch<T>;
  readonly #clock: Clock;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #onError: ((err: unknown) => void) | undefined;
  #running = false;
  #synced = false;
  #failures = 0;
  #restartTimer: ReturnType<Clock['setTimeout']> | undefined;
  #syncWaiters: (() => void)[] = [];

  constructor(kubeConfig: KubeConfig, options: InformerOptions<T>) {
    this.#clock = options.clock ?? realClock;
    this.#baseDelayMs = options.baseDelayMs ?? 1000;
    this.#maxDelayMs = options.maxDelayMs ?? 30_000;
    this.#onError = options.onError;
    const list = async () => {
      const result = await options.list();
      this.#failures = 0;
      return result;
    };
    this.#listWatch = new ListWatch<T>(
      options.path,
      new GuardedWatch(kubeConfig, this),
      list,
      false,
      options.labelSelector,
      options.fieldSelector,
      { delayFn: (ms) => this.#sleep(Math.min(ms, this.#maxDelayMs)) },
    );
    this.#listWatch.on('error', (err) => this.#failed(err));
  }

  on(verb: 'add' | 'update' | 'delete' | 'change', cb: ObjectCallback<T>): void {
    this.#listWatch.on(verb, cb);
  }

  off(verb: 'add' | 'update' | 'delete' | 'change', cb: ObjectCallback<T>): void {
    this.#listWatch.off(verb, cb);
  }

  get(name: string, namespace?: string): T | undefined {
    return this.#listWatch.get(name, namespace);
  }

  list(namespace?: string): readonly T[] {
    return this.#listWatch.list(namespace);
  }

  /** True once the first list is in the cache. */
  get synced(): boolean {
    return this.#synced;
  }

  /** Whether a watch opened now should run (false after stop()). */
  get running(): boolean {
    return this.#running;
  }

  /** Starts listing and watching; resolves when the first list is in the cache. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.#running) return this.#waitSynced(signal);
    this.#running = true;
    void this.#listWatch.start();
    return this.#waitSynced(signal);
  }

  async stop(): Promise<void> {
    this.#running = false;
    if (this.#restartTimer !== undefined) this.#clock.clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    await this.#listWatch.stop();
  }

  /** Called by GuardedWatch as a watch opens: ListWatch has applied its list (if it listed) to the cache by then. */
  watching(): void {
    if (!this.#synced) this.#markSynced();
  }

  /** Called by GuardedWatch when a watch connected: the backoff starts over. */
  connected(): void {
    this.#failures = 0;
  }

  #failed(err: unknown): void {
    if (!this.#running) return; // the abort of stop() reaches ListWatch as an error
    this.#onError?.(err);
    const delay = Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** this.#failures);
    this.#failures++;
    if (this.#restartTimer !== undefined) return;
    this.#restartTimer = this.#clock.setTimeout(() => {
      this.#restartTimer = undefined;
      if (this.#running) void this.#listWatch.start();
    }, delay);
  }

  #markSynced(): void {
    this.#synced = true;
    const waiters = this.#syncWaiters;
    this.#syncWaiters = [];
    for (const w of waiters) w();
  }

  #waitSynced(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  #sleep(ms: number): Promise<void> {
    // Not cancelled by stop(): unref'd, so it never keeps a stopping process alive.
    return new Promise((resolve) => this.#clock.setTimeout(resolve, ms).unref?.());
  }
}

interface WatchOwner {
  readonly running: boolean;
  watching(): void;
  connected(): void;
}

/** client-node's Watch, but a watch that connects after its informer stopped is aborted at once. */
class GuardedWatch extends Watch {
  readonly #informer: WatchOwner;

  constructor(kubeConfig: KubeConfig, informer: WatchOwner) {
    super(kubeConfig);
    this.#informer = informer;
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    this.#informer.watching();
    let failed = false;
    const controller = await super.watch(path, queryParams, callback, (err) => {
      if (err) failed = true;
      done(err);
    });
    if (!this.#informer.running) controller.abort();
    else if (!failed) this.#informer.connected();
    return controller;
  }
}
