import type { KubeObject, ObjectList } from '@kapi/apimachinery';
import {
  type CreateOptions,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type Storage,
  supports,
  type UpdateFunc,
  type UpdateOptions,
  type Watch,
  type WatchOptions,
} from '@kapi/storage';

/**
 * A Storage whose every object read (get, list, watch events, the current object of a read-modify-write, the last state
 * a delete returns) is passed through `transform` first, as kube's storage codec decodes what it reads from etcd: a
 * custom resource's defaults are applied there, so its watch cache holds defaulted objects and pays once per change.
 * `transform` returns a new object and never changes its input (stored objects may be shared and frozen). Writes pass
 * through unchanged; the optional capabilities of the backend (compaction, prompt progress notifications) are kept.
 */
export class ReadTransformingStorage implements Storage {
  readonly #inner: Storage;
  readonly #transform: (obj: KubeObject) => KubeObject;

  constructor(inner: Storage, transform: (obj: KubeObject) => KubeObject) {
    this.#inner = inner;
    this.#transform = transform;
    if (supports(inner, 'compact')) Object.assign(this, { compact: (revision: number) => inner.compact(revision) });
    if (supports(inner, 'requestWatchProgress')) {
      Object.assign(this, { requestWatchProgress: () => inner.requestWatchProgress() });
      // Read through: the backend may learn it late (etcd asks its servers' versions at start).
      Object.defineProperty(this, 'promptWatchProgress', { get: () => inner.promptWatchProgress, enumerable: true });
    }
  }

  create(key: string, obj: KubeObject, opts?: CreateOptions): Promise<KubeObject> {
    return this.#inner.create(key, obj, opts);
  }

  async get(key: string, opts?: GetOptions): Promise<KubeObject | null> {
    const obj = await this.#inner.get(key, opts);
    return obj && this.#transform(obj);
  }

  async list(key: string, opts?: ListOptions): Promise<ObjectList> {
    const list = await this.#inner.list(key, opts);
    return { ...list, items: list.items.map(this.#transform) };
  }

  guaranteedUpdate(key: string, tryUpdate: UpdateFunc, opts?: UpdateOptions): Promise<KubeObject> {
    return this.#inner.guaranteedUpdate(key, (current) => tryUpdate(current && this.#transform(current)), opts);
  }

  async delete(key: string, opts?: DeleteOptions): Promise<KubeObject> {
    const validate = opts?.validateDeletion;
    const last = await this.#inner.delete(
      key,
      validate ? { ...opts, validateDeletion: (current) => validate(this.#transform(current)) } : opts,
    );
    return this.#transform(last);
  }

  watch(key: string, opts?: WatchOptions): Watch {
    const inner = this.#inner.watch(key, opts);
    const transform = this.#transform;
    return {
      stop: () => inner.stop(),
      async *[Symbol.asyncIterator]() {
        for await (const ev of inner) {
          // ERROR carries a Status, BOOKMARK only a resourceVersion: neither is a stored object.
          if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') yield ev;
          else yield { ...ev, object: transform(ev.object as KubeObject) };
        }
      },
    };
  }

  count(key: string): Promise<number> {
    return this.#inner.count(key);
  }

  currentResourceVersion(): Promise<string> {
    return this.#inner.currentResourceVersion();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
