import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { SortedMap } from '@kapi/storage';

/** Computes an object's value for an index (e.g. spec.nodeName); it must equal what getAttrs gives for that field. */
export type IndexFunc = (obj: KubeObject) => string | undefined;

/** Index name (a field selector's field) → how to compute it. */
export type Indexers = Readonly<Record<string, IndexFunc>>;

/** Built in: objects by namespace, used by field selectors that require metadata.namespace. */
export const NAMESPACE_INDEX = 'metadata.namespace';

/** One stored object and what is derived from it once. */
export interface StoreEntry {
  readonly key: string;
  readonly obj: KubeObject;
  /** The ADDED event initial events share, built on first use. */
  added: WatchEvent | undefined;
}

/**
 * The cache's current objects by storage key: kept in key order (for lists and initial events, as the backend
 * orders them), with one index per indexer (value → keys) for selectors that require an exact field value.
 */
export class WatchCacheStore {
  readonly #byKey = new Map<string, StoreEntry>();
  /** Entries sorted by key (UTF-16 order, as MemoryStorage sorts). */
  #sorted = new SortedMap<StoreEntry>();
  readonly #indexNames: string[];
  readonly #indexFuncs: IndexFunc[];
  readonly #indexes: Map<string, Set<string>>[];

  constructor(indexers: Indexers = {}) {
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

  get(key: string): StoreEntry | undefined {
    return this.#byKey.get(key);
  }

  /** The value `obj` has for index `name` ("" when none). */
  indexValue(name: string, obj: KubeObject): string | undefined {
    const i = this.#indexNames.indexOf(name);
    return i < 0 ? undefined : (this.#indexFuncs[i]?.(obj) ?? '');
  }

  /** Stores `obj` at `key`; returns the entry it replaced. */
  set(key: string, obj: KubeObject): StoreEntry | undefined {
    const entry = this.#entry(key, obj);
    const prev = this.#byKey.get(key);
    this.#byKey.set(key, entry);
    this.#sorted.set(key, entry);
    if (prev) this.#unindex(prev);
    this.#index(entry);
    return prev;
  }

  /** Removes `key`; returns the entry it held. */
  delete(key: string): StoreEntry | undefined {
    const prev = this.#byKey.get(key);
    if (!prev) return undefined;
    this.#byKey.delete(key);
    this.#sorted.delete(key);
    this.#unindex(prev);
    return prev;
  }

  /** Replaces everything with `items` (a fresh list). */
  replace(items: readonly { key: string; obj: KubeObject }[]): void {
    this.#byKey.clear();
    for (const ix of this.#indexes) ix.clear();
    for (const { key, obj } of items) {
      const entry = this.#entry(key, obj);
      this.#byKey.set(key, entry);
      this.#index(entry);
    }
    const sorted = [...this.#byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.#sorted = SortedMap.fromSorted(
      sorted.map((e) => e.key),
      sorted,
    );
  }

  /** Entries whose keys start with `prefix`, in key order (a fresh array, O(log n + k)). */
  range(prefix: string): StoreEntry[] {
    return this.#sorted.valuesWithPrefix(prefix);
  }

  /** Entries under `prefix` whose index `name` has `value`, in key order; undefined when there is no such index. */
  byIndex(name: string, value: string, prefix: string): StoreEntry[] | undefined {
    const i = this.#indexNames.indexOf(name);
    if (i < 0) return undefined;
    const keys = this.#indexes[i]?.get(value);
    if (!keys) return [];
    const out: StoreEntry[] = [];
    for (const k of keys) if (k.startsWith(prefix)) out.push(this.#byKey.get(k) as StoreEntry);
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Every entry, in key order. */
  all(): Iterable<StoreEntry> {
    return this.#sorted.values();
  }

  #entry(key: string, obj: KubeObject): StoreEntry {
    return { key, obj, added: undefined };
  }

  // Objects are frozen, so an entry's index values are recomputed rather than stored with it.
  #index(e: StoreEntry): void {
    for (let i = 0; i < this.#indexes.length; i++) {
      const ix = this.#indexes[i] as Map<string, Set<string>>;
      const v = (this.#indexFuncs[i] as IndexFunc)(e.obj) ?? '';
      let keys = ix.get(v);
      if (!keys) {
        keys = new Set();
        ix.set(v, keys);
      }
      keys.add(e.key);
    }
  }

  #unindex(e: StoreEntry): void {
    for (let i = 0; i < this.#indexes.length; i++) {
      const ix = this.#indexes[i] as Map<string, Set<string>>;
      const v = (this.#indexFuncs[i] as IndexFunc)(e.obj) ?? '';
      const keys = ix.get(v);
      keys?.delete(e.key);
      if (keys?.size === 0) ix.delete(v);
    }
  }
}
