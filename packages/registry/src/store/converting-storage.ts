import type { KubeObject, ObjectList } from '@kapi/apimachinery';
import {
  type CreateOptions,
  type DeleteOptions,
  defaultAttrs,
  type GetOptions,
  type ListOptions,
  type SelectionPredicate,
  type Storage,
  supports,
  type UpdateFunc,
  type UpdateOptions,
  type Watch,
  type WatchOptions,
} from '@kapi/storage';

/** How objects are converted on their way into and out of storage. Both return new objects and never change their input. */
export interface StorageConversion {
  toStored(obj: KubeObject): KubeObject;
  fromStored(obj: KubeObject): KubeObject;
}

/**
 * A Storage that converts as kube's storage codec does: every object written with `toStored`, every object read (get,
 * list, watch events, the current object of a read-modify-write, a delete's last state) with `fromStored`, and
 * selectors matched on the converted object. It keeps a kind in another kind's storage (ResourceDefinition.storedWith,
 * kube's cohabitating resources: field selectors name this kind's fields), and applies a custom resource's schema
 * defaults on read (apiextensions; under the watch cache, so once per change). The backend's optional capabilities
 * (compaction, prompt progress notifications) are kept.
 */
export class ConvertingStorage implements Storage {
  readonly #inner: Storage;
  readonly #with: StorageConversion;

  constructor(inner: Storage, storedWith: StorageConversion) {
    this.#inner = inner;
    this.#with = storedWith;
    if (supports(inner, 'compact')) Object.assign(this, { compact: (revision: number) => inner.compact(revision) });
    if (supports(inner, 'requestWatchProgress')) {
      Object.assign(this, { requestWatchProgress: () => inner.requestWatchProgress() });
      Object.defineProperty(this, 'promptWatchProgress', { get: () => inner.promptWatchProgress, enumerable: true });
    }
  }

  #from = (obj: KubeObject): KubeObject => this.#with.fromStored(obj);

  #predicate(p: SelectionPredicate | undefined): SelectionPredicate | undefined {
    if (!p) return p;
    const attrs = p.getAttrs ?? defaultAttrs;
    return { ...p, getAttrs: (obj) => attrs(this.#from(obj)) };
  }

  async create(key: string, obj: KubeObject, opts?: CreateOptions): Promise<KubeObject> {
    return this.#from(await this.#inner.create(key, this.#with.toStored(obj), opts));
  }

  async get(key: string, opts?: GetOptions): Promise<KubeObject | null> {
    const obj = await this.#inner.get(key, opts);
    return obj && this.#from(obj);
  }

  async list(key: string, opts?: ListOptions): Promise<ObjectList> {
    const list = await this.#inner.list(key, opts && { ...opts, predicate: this.#predicate(opts.predicate) });
    return { ...list, items: list.items.map(this.#from) };
  }

  async guaranteedUpdate(key: string, tryUpdate: UpdateFunc, opts?: UpdateOptions): Promise<KubeObject> {
    const cached = opts?.cachedExisting;
    const inner = await this.#inner.guaranteedUpdate(
      key,
      async (current) => this.#with.toStored(await tryUpdate(current && this.#from(current))),
      cached ? { ...opts, cachedExisting: this.#with.toStored(cached) } : opts,
    );
    return this.#from(inner);
  }

  async delete(key: string, opts?: DeleteOptions): Promise<KubeObject> {
    const validate = opts?.validateDeletion;
    const cached = opts?.cachedExisting;
    const last = await this.#inner.delete(key, {
      ...opts,
      ...(validate ? { validateDeletion: (current: KubeObject) => validate(this.#from(current)) } : {}),
      ...(cached ? { cachedExisting: this.#with.toStored(cached) } : {}),
    });
    return this.#from(last);
  }

  watch(key: string, opts?: WatchOptions): Watch {
    const inner = this.#inner.watch(key, opts && { ...opts, predicate: this.#predicate(opts.predicate) });
    const from = this.#from;
    return {
      stop: () => inner.stop(),
      async *[Symbol.asyncIterator]() {
        for await (const ev of inner) {
          // ERROR carries a Status, BOOKMARK only a resourceVersion: neither is a stored object.
          if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') yield ev;
          else yield { ...ev, object: from(ev.object as KubeObject) };
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
