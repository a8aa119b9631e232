import type { KubeObject } from '@kapi/apimachinery';
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  MemoryStorage,
  Storage,
  UpdateFunc,
  UpdateOptions,
  Watch,
  WatchOptions,
} from '@kapi/storage';

/**
 * Dev-only: a Storage decorator over a real MemoryStorage that counts the reads that reach it (get, list, count,
 * currentResourceVersion, requestWatchProgress — each a round trip on a remote backend) and can hold back watch
 * events, as a slow watch stream would, so a cache in front of it lags the backend on demand.
 */
export class CountingStorage implements Storage {
  readonly #inner: MemoryStorage;
  reads = 0;
  #held: { promise: Promise<void>; release: () => void } | undefined;

  constructor(inner: MemoryStorage) {
    this.#inner = inner;
  }

  /** Watch events wait (in order) until release(). */
  hold(): void {
    if (this.#held) return;
    let release = () => {};
    const promise = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#held = { promise, release };
  }

  release(): void {
    this.#held?.release();
    this.#held = undefined;
  }

  create(key: string, obj: KubeObject, opts?: CreateOptions): Promise<KubeObject> {
    return this.#inner.create(key, obj, opts);
  }
  get(key: string, opts?: GetOptions): Promise<KubeObject | null> {
    this.reads++;
    return this.#inner.get(key, opts);
  }
  list(prefix: string, opts?: ListOptions) {
    this.reads++;
    return this.#inner.list(prefix, opts);
  }
  guaranteedUpdate(key: string, tryUpdate: UpdateFunc, opts?: UpdateOptions): Promise<KubeObject> {
    return this.#inner.guaranteedUpdate(key, tryUpdate, opts);
  }
  delete(key: string, opts?: DeleteOptions): Promise<KubeObject> {
    return this.#inner.delete(key, opts);
  }
  count(prefix: string): Promise<number> {
    this.reads++;
    return this.#inner.count(prefix);
  }
  currentResourceVersion(): Promise<string> {
    this.reads++;
    return this.#inner.currentResourceVersion();
  }
  requestWatchProgress(): Promise<void> {
    this.reads++;
    return this.#inner.requestWatchProgress();
  }
  compact(revision: number): Promise<void> {
    return this.#inner.compact(revision);
  }
  close(): Promise<void> {
    return this.#inner.close();
  }

  watch(prefix: string, opts?: WatchOptions): Watch {
    const inner = this.#inner.watch(prefix, opts);
    const held = () => this.#held?.promise;
    return {
      stop: () => inner.stop(),
      async *[Symbol.asyncIterator]() {
        for await (const ev of inner) {
          await held();
          yield ev;
        }
      },
    };
  }
}
