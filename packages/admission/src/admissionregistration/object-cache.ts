import { type Clock, type KubeObject, realClock } from '@kapi/apimachinery';
import { type ListWatchSource, listAndWatch } from '@kapi/registry';
import type { NamespaceLookup } from '../matching/match-attributes.ts';

export interface ObjectCacheOptions {
  /** Stops the list and watch. */
  readonly signal: AbortSignal;
  /** For the pause before listing again after a failure. Default the real clock. */
  readonly clock?: Clock;
  /** Told of every failed list or watch (they are retried); default: logged. */
  readonly onError?: (err: unknown) => void;
  /** The pause before listing again after a failure. Default 1000 ms. */
  readonly retryAfterMs?: number;
}

const key = (namespace: string, name: string): string => `${namespace}/${name}`;

/**
 * The objects of one kind as an informer's lister holds them (kube's webhook and policy configuration managers read
 * such caches): fed by registry's listAndWatch, read synchronously on every admission. `list()` is sorted by namespace
 * and name (kube sorts configurations by name, which orders webhook calls) and the same array until something
 * changes; `generation` counts changes, so users can rebuild what they compile from the objects only when it moves.
 * The objects are the cache's own: never modify them.
 */
export class ObjectCache<T extends KubeObject> {
  readonly #objects = new Map<string, T>();
  #sorted: readonly T[] | undefined;
  #generation = 0;
  #synced = false;
  #waiters: { resolve: () => void; reject: (err: Error) => void }[] = [];
  readonly #listeners = new Set<() => void>();
  #notifyScheduled = false;
  readonly #signal: AbortSignal;

  constructor(source: ListWatchSource, opts: ObjectCacheOptions) {
    this.#signal = opts.signal;
    const onError = opts.onError ?? ((err: unknown) => console.error(`object cache: ${err instanceof Error ? err.message : String(err)}`));
    opts.signal.addEventListener('abort', () => this.#failWaiters(), { once: true });
    void listAndWatch(source, {
      onEvent: (type, obj) => this.#apply(type, obj),
      onList: (items) => this.#listed(items),
      signal: opts.signal,
      clock: opts.clock ?? realClock,
      retryAfterMs: opts.retryAfterMs ?? 1000,
      onError,
    });
  }

  /** Bumped by every change (an object added, changed or removed). */
  get generation(): number {
    return this.#generation;
  }

  /** True once the first list was taken in. */
  get synced(): boolean {
    return this.#synced;
  }

  /** Every object, sorted by namespace and name. */
  list(): readonly T[] {
    if (this.#sorted === undefined) {
      const all = [...this.#objects.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
      this.#sorted = Object.freeze(all);
    }
    return this.#sorted;
  }

  /** One object; namespace "" for cluster-scoped kinds. */
  get(namespace: string, name: string): T | undefined {
    return this.#objects.get(key(namespace, name));
  }

  /** Resolves once the first list was taken in; rejects if the cache is stopped before. */
  whenSynced(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (this.#signal.aborted) return Promise.reject(new Error('object cache stopped before it synced'));
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /**
   * Calls `cb` after changes (coalesced: a burst of events, such as a relist, gives one call, on a microtask).
   * Returns the function that removes it.
   */
  onChange(cb: () => void): () => void {
    this.#listeners.add(cb);
    return () => this.#listeners.delete(cb);
  }

  #apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
    const name = obj?.metadata?.name;
    if (typeof name !== 'string' || name === '') return;
    const k = key(obj.metadata.namespace ?? '', name);
    if (type === 'DELETED') {
      if (this.#objects.delete(k)) this.#changed();
      return;
    }
    const held = this.#objects.get(k);
    // A relist hands every object again: one with the resourceVersion held is no change.
    if (held && held.metadata.resourceVersion !== undefined && held.metadata.resourceVersion === obj.metadata.resourceVersion) return;
    this.#objects.set(k, obj as T);
    this.#changed();
  }

  /** A list's objects are all there is: drop those deleted while no watch was open. */
  #listed(items: readonly KubeObject[]): void {
    const keep = new Set<string>();
    for (const obj of items) {
      const name = obj?.metadata?.name;
      if (typeof name === 'string') keep.add(key(obj.metadata.namespace ?? '', name));
    }
    for (const k of [...this.#objects.keys()])
      if (!keep.has(k)) {
        this.#objects.delete(k);
        this.#changed();
      }
    if (!this.#synced) {
      this.#synced = true;
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const w of waiters) w.resolve();
    }
  }

  #failWaiters(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w.reject(new Error('object cache stopped before it synced'));
  }

  #changed(): void {
    this.#generation++;
    this.#sorted = undefined;
    if (this.#notifyScheduled || this.#listeners.size === 0) return;
    this.#notifyScheduled = true;
    queueMicrotask(() => {
      this.#notifyScheduled = false;
      for (const cb of [...this.#listeners]) cb();
    });
  }
}

/** Namespaces from a cache of Namespace objects, for namespaceSelector matching. */
export function namespaceLookupOf(cache: Pick<ObjectCache<KubeObject>, 'get'>): NamespaceLookup {
  return { getNamespace: (name) => cache.get('', name) };
}
