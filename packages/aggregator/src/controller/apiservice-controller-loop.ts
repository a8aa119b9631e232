import type { Clock, TimerHandle } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import type { APIService } from '../apiservice/types.ts';
import { runAPIServiceInformer } from './apiservice-informer.ts';
import { WorkQueue } from './work-queue.ts';

export interface APIServiceControllerLoopOptions {
  /** Handles one APIService by name (`current` holds it, or not when deleted); a throw requeues it with the backoff. */
  sync: (name: string) => Promise<void>;
  clock: Clock;
  onError: (err: unknown) => void;
  /** Told of each change before the name is queued (a deleted one is not queued). */
  onChange?: (name: string, present: boolean) => void;
  /** Every remote APIService (with spec.service) is queued again this often (kube's resync, or the minute's refresh). */
  resyncRemoteMs?: number;
  /** The longest backoff of a failing name (kube's default 1000 s). */
  maxBackoffMs?: number;
  /** How many APIServices are synced at once (kube's worker count for the controller); default 1. */
  workers?: number;
}

/**
 * What each of the aggregator's APIService controllers runs (kube's informer + rate-limited work queue): the
 * APIServices followed into `current`, each changed one queued for `sync`, the remote ones queued again every
 * `resyncRemoteMs`, until stop().
 */
export class APIServiceControllerLoop {
  /** APIServices by name, from the informer. */
  readonly current = new Map<string, APIService>();
  readonly #options: APIServiceControllerLoopOptions;
  readonly #queue: WorkQueue;
  #abort: AbortController | undefined;
  #resync: TimerHandle | undefined;

  constructor(options: APIServiceControllerLoopOptions) {
    this.#options = options;
    this.#queue = new WorkQueue(options.sync, options.clock, options.onError, options.maxBackoffMs, options.workers);
  }

  /** Queues `name` for sync. */
  add(name: string): void {
    this.#queue.add(name);
  }

  /** Starts the informer over `store`, the worker and the resync; resolves once the first list is in. */
  async start(store: Store<APIService>): Promise<void> {
    if (this.#abort) return;
    const abort = new AbortController();
    this.#abort = abort;
    const { clock, onError, onChange } = this.#options;
    await runAPIServiceInformer(store, this.current, {
      signal: abort.signal,
      clock,
      onError,
      onChange: (name, present) => {
        onChange?.(name, present);
        if (present) this.#queue.add(name);
      },
    });
    this.#queue.start();
    this.#scheduleResync();
  }

  /** The signal that aborts when stop() is called (for watches a controller runs beside the informer). */
  get signal(): AbortSignal | undefined {
    return this.#abort?.signal;
  }

  stop(): void {
    this.#queue.stop();
    this.#abort?.abort();
    if (this.#resync) this.#options.clock.clearTimeout(this.#resync);
    this.#resync = undefined;
  }

  #scheduleResync(): void {
    const every = this.#options.resyncRemoteMs;
    if (every === undefined || this.#abort?.signal.aborted) return;
    this.#resync = this.#options.clock.setTimeout(() => {
      for (const [name, s] of this.current) if (s.spec?.service) this.#queue.add(name);
      this.#scheduleResync();
    }, every);
    this.#resync.unref?.();
  }
}
