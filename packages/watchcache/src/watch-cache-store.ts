import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { SortedMap } from '@kapi/storage';

/** Computes an object's value for an index (e.g. spec.nodeName); it must equal what getAttrs gives for that field. */
export type IndexFunc = (obj: KubeObject) => string | undefined;

/** Index name (a field selector's field) → how to compute it. */
export type Indexers = Readonly<Record<string, IndexFunc>>;

/** Built in: objects by namespace, used by field selectors that require metadata.namespace. */
export const NAMESPACE_INDEX = 'metadata.namespace';

/**
 * The cache's current objects by storage key: kept in key order (for lists and initial events, as the backend
 * orders them), with one index per indexer (value → keys) for selectors that require an exact field value. It holds
 * the objects themselves, not an entry object around each (48 bytes an object): keys are in the maps.
 *
 * Given the resource's key prefix, the namespace index holds only the keys not laid out as `<prefix>/<namespace>/<name>`
 * (`<prefix>/<name>` cluster-wide): the others are found in key order under `<prefix>/<namespace>/`, which the sorted
 * keys already give, instead of a second set of every key (about 65 bytes an object).
 */
export class WatchCacheStore {
  readonly #byKey = new Map<string, KubeObject>();
  /** Objects sorted by key (UTF-16 order, as MemoryStorage sorts). */
  #sorted = new SortedMap<KubeObject>();
  readonly #indexNames: string[];
  readonly #indexFuncs: IndexFunc[];
  readonly #indexes: Map<string, Set<string>>[];
  /** The ADDED event initial events share, per object, made on first use (by watches that ask for initial events). */
  readonly #added = new WeakMap<KubeObject, WatchEvent>();
  /** The resource's key prefix, without a trailing slash, when its keys are known to start with it. */
  readonly #prefix: string | undefined;

  constructor(indexers: Indexers = {}, prefix?: string) {
    this.#prefix = prefix;
    const funcs: Record<string, IndexFunc> = { [NAMESPACE_INDEX]: (o) => o.metadata.namespace, ...indexers };
    this.#indexNames = Object.keys(funcs);
    this.#indexFuncs = this.#indexNames.map((n) => funcs[n] as IndexFunc);
    this.#indexes = this.#indexNames.map(() => new Map());
  }

  get size(): number {
    return this.#byKey.size;
  }

  /** Index names, custom ones first (they are more selective than the namespace). */
  get indexNames(): readonly string[] {
    return [...this.#indexNames.slice(1), NAMESPACE_INDEX];
  }

  get(key: string): KubeObject | undefined {
    return this.#byKey.get(key);
  }

  /** The value `obj` has for index `name` ("" when none). */
  indexValue(name: string, obj: KubeObject): string | undefined {
    const i = this.#indexNames.indexOf(name);
    return i < 0 ? undefined : (this.#indexFuncs[i]?.(obj) ?? '');
  }

  /** The ADDED event of a held object, one for every watch that sends it as an initial event. */
  addedEvent(obj: KubeObject): WatchEvent {
    let ev = this.#added.get(obj);
    if (!ev) {
      ev = Object.freeze({ type: 'ADDED', object: obj });
      this.#added.set(obj, ev);
    }
    return ev;
  }

  /** Stores `obj` at `key`; returns the object it replaced. */
  set(key: string, obj: KubeObject): KubeObject | undefined {
    const prev = this.#byKey.get(key);
    this.#byKey.set(key, obj);
    this.#sorted.set(key, obj);
    if (prev) this.#unindex(key, prev);
    this.#index(key, obj);
    return prev;
  }

  /** Removes `key`; returns the object it held. */
  delete(key: string): KubeObject | undefined {
    const prev = this.#byKey.get(key);
    if (!prev) return undefined;
    this.#byKey.delete(key);
    this.#sorted.delete(key);
    this.#unindex(key, prev);
    return prev;
  }

  /** Replaces everything with `items` (a fresh list). */
  replace(items: readonly { key: string; obj: KubeObject }[]): void {
    this.#byKey.clear();
    for (const ix of this.#indexes) ix.clear();
    for (const { key, obj } of items) {
      this.#byKey.set(key, obj);
      this.#index(key, obj);
    }
    const keys = [...this.#byKey.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    this.#sorted = SortedMap.fromSorted(
      keys,
      keys.map((k) => this.#byKey.get(k) as KubeObject),
    );
  }

  /** Objects whose keys start with `prefix`, in key order (a fresh array, O(log n + k)). */
  range(prefix: string): KubeObject[] {
    return this.#sorted.valuesWithPrefix(prefix);
  }

  /** Objects under `prefix` whose index `name` has `value`, in key order; undefined when there is no such index. */
  byIndex(name: string, value: string, prefix: string): KubeObject[] | undefined {
    const i = this.#indexNames.indexOf(name);
    if (i < 0) return undefined;
    const out: string[] = [];
    if (i === 0 && this.#prefix !== undefined) {
      // The namespace's keys in the default layout, by key range; the index adds the others.
      const under = value ? `${this.#prefix}/${value}/` : `${this.#prefix}/`;
      for (const k of this.#sorted.keysWithPrefix(under)) {
        const obj = this.#byKey.get(k) as KubeObject;
        if (k.startsWith(prefix) && (obj.metadata.namespace ?? '') === value && this.#defaultLayout(k, obj)) out.push(k);
      }
    }
    for (const k of this.#indexes[i]?.get(value) ?? []) if (k.startsWith(prefix)) out.push(k);
    return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((k) => this.#byKey.get(k) as KubeObject);
  }

  /** Every object, in key order. */
  all(): Iterable<KubeObject> {
    return this.#sorted.values();
  }

  /** Whether `key` is `<prefix>/<namespace>/<name>` (`<prefix>/<name>` without a namespace) for `obj`. */
  #defaultLayout(key: string, obj: KubeObject): boolean {
    const p = this.#prefix;
    const { namespace = '', name } = obj.metadata;
    if (p === undefined || !name || !key.endsWith(name) || !key.startsWith(p) || key.charCodeAt(p.length) !== 47) return false;
    if (!namespace) return key.length === p.length + 1 + name.length;
    return (
      key.length === p.length + namespace.length + name.length + 2 &&
      key.startsWith(namespace, p.length + 1) &&
      key.charCodeAt(p.length + 1 + namespace.length) === 47
    );
  }

  // Objects are frozen, so an object's index values are recomputed rather than stored with it. The namespace index
  // (the first) skips keys in the default layout.
  #index(key: string, obj: KubeObject): void {
    for (let i = this.#defaultLayout(key, obj) ? 1 : 0; i < this.#indexes.length; i++) {
      const ix = this.#indexes[i] as Map<string, Set<string>>;
      const v = (this.#indexFuncs[i] as IndexFunc)(obj) ?? '';
      let keys = ix.get(v);
      if (!keys) {
        keys = new Set();
        ix.set(v, keys);
      }
      keys.add(key);
    }
  }

  #unindex(key: string, obj: KubeObject): void {
    for (let i = this.#defaultLayout(key, obj) ? 1 : 0; i < this.#indexes.length; i++) {
      const ix = this.#indexes[i] as Map<string, Set<string>>;
      const v = (this.#indexFuncs[i] as IndexFunc)(obj) ?? '';
      const keys = ix.get(v);
      keys?.delete(key);
      if (keys?.size === 0) ix.delete(v);
    }
  }
}
