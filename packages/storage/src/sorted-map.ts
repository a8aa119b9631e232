/** A chunk splits in two when it grows past this many keys. */
const MAX_CHUNK = 512;
/** A chunk that shrinks below this many keys merges into a neighbour. */
const MIN_CHUNK = MAX_CHUNK >> 3;
/** How many chunks a range read joins per `concat` call. */
const CONCAT_BATCH = 1024;
/** Chunk size a bulk load produces: half full, so that inserts do not split at once. */
const LOAD_CHUNK = MAX_CHUNK >> 1;

/**
 * String keys in sorted order (UTF-16 code unit order, as `<` compares strings), each with a value: the ordered index
 * behind range reads (MemoryStorage's key space, the watch cache's objects). Point lookups belong to a `Map` beside
 * it; this answers "which keys lie under a prefix, in order, from a start key".
 *
 * Shape: a chunked sorted list — an array of sorted chunks of at most {@link MAX_CHUNK} keys (values in a parallel
 * array), plus the last key of each chunk. A lookup is a binary search over those last keys, then one within the
 * chunk; a write splices one chunk (a memmove of at most 512 slots), splitting it when full and merging it into a
 * neighbour when it falls below {@link MIN_CHUNK}. So a write costs O(log n + chunk) instead of the O(n) of a splice
 * into one array, while ranges stay plain array walks: a prefix of k keys is read in O(log n + k).
 *
 * Why not a B+tree: with chunks of a few hundred keys, two levels hold a million keys with a top array of a few
 * thousand (splicing it on a split, once per couple of hundred inserts, costs about what a chunk splice does), so a
 * deeper tree buys nothing at the sizes a server keeps in memory, and costs pointer chasing on every read and far more
 * code (the same argument as Python's `sortedcontainers`). Measured on 100,000 random keys, a write costs about one
 * binary search over all the keys (string compares, cache misses) — the floor any ordered structure pays — and a
 * few times less than a splice into one array (`npm run bench` in packages/storage); chunk sizes of 256–1,024
 * measured alike.
 *
 * Range reads return fresh arrays; the lazy iterators (`keys`, `values`, `entries`) must not be held across writes.
 */
export class SortedMap<V> {
  /** The keys of each chunk, sorted; every chunk is non-empty and all keys of a chunk sort below the next chunk's. */
  #keys: string[][] = [];
  /** The values, parallel to `#keys`. */
  #values: V[][] = [];
  /** The last (greatest) key of each chunk. */
  #maxes: string[] = [];
  #size = 0;

  /** Builds a map from keys already sorted and unique (throws otherwise), in O(n). */
  static fromSorted<V>(keys: readonly string[], values: readonly V[]): SortedMap<V> {
    if (keys.length !== values.length) throw new RangeError('SortedMap.fromSorted: keys and values differ in length');
    for (let i = 1; i < keys.length; i++) {
      if (!((keys[i - 1] as string) < (keys[i] as string))) throw new RangeError('SortedMap.fromSorted: keys are not sorted and unique');
    }
    const m = new SortedMap<V>();
    for (let i = 0; i < keys.length; i += LOAD_CHUNK) {
      const ks = keys.slice(i, i + LOAD_CHUNK);
      m.#keys.push(ks);
      m.#values.push(values.slice(i, i + LOAD_CHUNK));
      m.#maxes.push(ks[ks.length - 1] as string);
    }
    m.#size = keys.length;
    return m;
  }

  get size(): number {
    return this.#size;
  }

  get(key: string): V | undefined {
    const c = this.#chunkFor(key);
    if (c === this.#keys.length) return undefined;
    const ks = this.#keys[c] as string[];
    const i = lowerBound(ks, key, 0);
    return ks[i] === key ? (this.#values[c] as V[])[i] : undefined;
  }

  has(key: string): boolean {
    const c = this.#chunkFor(key);
    if (c === this.#keys.length) return false;
    const ks = this.#keys[c] as string[];
    return ks[lowerBound(ks, key, 0)] === key;
  }

  /** Inserts `key`, or replaces its value; true when the key is new. */
  set(key: string, value: V): boolean {
    const n = this.#keys.length;
    if (n === 0) {
      this.#keys.push([key]);
      this.#values.push([value]);
      this.#maxes.push(key);
      this.#size = 1;
      return true;
    }
    let c = this.#chunkFor(key);
    if (c === n) c = n - 1; // beyond every key: appended to the last chunk
    const ks = this.#keys[c] as string[];
    const vs = this.#values[c] as V[];
    const i = lowerBound(ks, key, 0);
    if (i < ks.length && ks[i] === key) {
      vs[i] = value;
      return false;
    }
    if (i === ks.length) {
      ks.push(key);
      vs.push(value);
      this.#maxes[c] = key;
    } else {
      ks.splice(i, 0, key);
      vs.splice(i, 0, value);
    }
    this.#size++;
    if (ks.length > MAX_CHUNK) this.#split(c);
    return true;
  }

  /** Removes `key`; true when it was there. */
  delete(key: string): boolean {
    const c = this.#chunkFor(key);
    if (c === this.#keys.length) return false;
    const ks = this.#keys[c] as string[];
    const i = lowerBound(ks, key, 0);
    if (ks[i] !== key) return false;
    const vs = this.#values[c] as V[];
    if (i === ks.length - 1) {
      ks.pop();
      vs.pop();
    } else {
      ks.splice(i, 1);
      vs.splice(i, 1);
    }
    this.#size--;
    if (ks.length === 0) {
      this.#keys.splice(c, 1);
      this.#values.splice(c, 1);
      this.#maxes.splice(c, 1);
    } else {
      if (i === ks.length) this.#maxes[c] = ks[i - 1] as string;
      if (ks.length < MIN_CHUNK && this.#keys.length > 1) this.#merge(c);
    }
    return true;
  }

  clear(): void {
    this.#keys = [];
    this.#values = [];
    this.#maxes = [];
    this.#size = 0;
  }

  /** How many keys sort below `key`: the position `key` has, or would have, in order. O(log n + chunks). */
  rank(key: string): number {
    const c = this.#chunkFor(key);
    let r = 0;
    for (let j = 0; j < c; j++) r += (this.#keys[j] as string[]).length;
    return c === this.#keys.length ? r : r + lowerBound(this.#keys[c] as string[], key, 0);
  }

  /** The keys that start with `prefix` and are ≥ `from` (default: all of them), in order. O(log n + k). */
  keysWithPrefix(prefix: string, from: string = prefix): string[] {
    return this.#collect(prefix, from, this.#keys);
  }

  /** The values of the keys that start with `prefix` and are ≥ `from` (default: all of them), in key order. O(log n + k). */
  valuesWithPrefix(prefix: string, from: string = prefix): V[] {
    return this.#collect(prefix, from, this.#values);
  }

  /** Every key, in order. */
  *keys(): Generator<string, void, undefined> {
    for (const ks of this.#keys) yield* ks;
  }

  /** Every value, in key order. */
  *values(): Generator<V, void, undefined> {
    for (const vs of this.#values) yield* vs;
  }

  /** Every [key, value], in key order. */
  *entries(): Generator<[string, V], void, undefined> {
    for (let c = 0; c < this.#keys.length; c++) {
      const ks = this.#keys[c] as string[];
      const vs = this.#values[c] as V[];
      for (let i = 0; i < ks.length; i++) yield [ks[i] as string, vs[i] as V];
    }
  }

  [Symbol.iterator](): Generator<[string, V], void, undefined> {
    return this.entries();
  }

  /** The first chunk whose last key is ≥ `key` (the chunk that holds it or would), or the chunk count if none. */
  #chunkFor(key: string): number {
    return lowerBound(this.#maxes, key, 0);
  }

  /** Copies out of `src` (the keys or the values) the slots of keys ≥ `from` under `prefix`. */
  #collect<T>(prefix: string, from: string, src: T[][]): T[] {
    const start = from < prefix ? prefix : from;
    const n = this.#keys.length;
    let c = this.#chunkFor(start);
    if (c === n) return [];
    let i = lowerBound(this.#keys[c] as string[], start, 0);
    // The keys under a prefix are contiguous in order, so a chunk whose first key in range and last key both lie
    // under it is taken whole; the range ends in the first chunk where that fails. The pieces are joined by one
    // concat per batch (a memcpy in V8), several times faster than pushing item by item.
    const parts: T[][] = [];
    for (; c < n; c++, i = 0) {
      const ks = this.#keys[c] as string[];
      const part = src[c] as T[];
      if (i >= ks.length || !(ks[i] as string).startsWith(prefix)) break;
      if ((ks[ks.length - 1] as string).startsWith(prefix)) {
        parts.push(i === 0 ? part : part.slice(i));
        continue;
      }
      // Every key under `prefix` sorts below prefix + U+FFFF, except ones with a literal U+FFFF right after it.
      let end = lowerBound(ks, `${prefix}\uffff`, i);
      while (end < ks.length && (ks[end] as string).startsWith(prefix)) end++;
      parts.push(part.slice(i, end));
      break;
    }
    let out: T[] = [];
    // Batches keep the spread's argument count bounded however many chunks the range spans.
    for (let p = 0; p < parts.length; p += CONCAT_BATCH) out = out.concat(...parts.slice(p, p + CONCAT_BATCH));
    return out;
  }

  /** Splits the overfull chunk `c` into two halves. */
  #split(c: number): void {
    const ks = this.#keys[c] as string[];
    const half = ks.length >> 1;
    const rightKeys = ks.splice(half);
    const rightValues = (this.#values[c] as V[]).splice(half);
    this.#keys.splice(c + 1, 0, rightKeys);
    this.#values.splice(c + 1, 0, rightValues);
    this.#maxes.splice(c + 1, 0, this.#maxes[c] as string);
    this.#maxes[c] = ks[half - 1] as string;
  }

  /** Merges the underfull chunk `c` with a neighbour (the next one, or the previous for the last), splitting again if that overfills. */
  #merge(c: number): void {
    const left = c + 1 < this.#keys.length ? c : c - 1;
    const lk = this.#keys[left] as string[];
    const lv = this.#values[left] as V[];
    const rk = this.#keys[left + 1] as string[];
    const rv = this.#values[left + 1] as V[];
    for (let j = 0; j < rk.length; j++) {
      lk.push(rk[j] as string);
      lv.push(rv[j] as V);
    }
    this.#maxes[left] = this.#maxes[left + 1] as string;
    this.#keys.splice(left + 1, 1);
    this.#values.splice(left + 1, 1);
    this.#maxes.splice(left + 1, 1);
    if (lk.length > MAX_CHUNK) this.#split(left);
  }
}

/** Index of the first element of sorted `a` at or after `lo` that is ≥ `key`. */
function lowerBound(a: readonly string[], key: string, lo: number): number {
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
