import type { KubeObject } from '@kapi/apimachinery';
import { SortedMap } from '../sorted-map.ts';

/** One write to a key: the object stored at `rev`, or a tombstone (null) for a delete. */
export interface Version {
  rev: number;
  obj: KubeObject | null;
  /** About how many bytes the object takes as JSON (0 for a tombstone): what history is weighed by. */
  bytes: number;
}

/** One change, as watchers replay it: the new state and the state it replaced. */
export interface Change {
  rev: number;
  key: string;
  obj: KubeObject | null;
  prev: KubeObject | null;
  at: number;
  /** The JSON size of `prev`: the bytes this change moved into history. */
  prevBytes: number;
}

/**
 * Multi-version key space: every key keeps its versions until compaction, keys stay sorted for range reads, and
 * a log of changes serves watches from a past revision. Single writer; readers see any retained revision.
 */
export class MvccStore {
  /** The store-wide revision: the last write's. */
  rev = 0;
  /** Revisions below this are gone (compact(R) keeps R readable). */
  compacted = 0;
  /** A key's versions, oldest first; a key with one version (most keys, most of the time) holds it without an array. */
  #versions = new Map<string, Version | Version[]>();
  /** Every key with retained history, in order (the values are unused: versions live in `#versions`). */
  readonly #sorted = new SortedMap<undefined>();
  #log: Change[] = [];
  /** Keys holding more than their live version (old versions or a tombstone): what compaction must visit. */
  #dirty = new Set<string>();
  #live = 0;
  #historyBytes = 0;

  /** The JSON size of the versions kept only as history (superseded ones), summed. */
  get historyBytes(): number {
    return this.#historyBytes;
  }

  /** Objects alive at the latest revision. */
  get size(): number {
    return this.#live;
  }

  latest(key: string): Version | undefined {
    const vs = this.#versions.get(key);
    return Array.isArray(vs) ? vs[vs.length - 1] : vs;
  }

  /** The object at `key` as of revision `rev` (null if absent then). */
  at(key: string, rev: number): KubeObject | null {
    const vs = this.#versions.get(key);
    if (!vs) return null;
    if (!Array.isArray(vs)) return vs.rev <= rev ? vs.obj : null;
    let lo = 0;
    let hi = vs.length - 1;
    let found: Version | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = vs[mid] as Version;
      if (v.rev <= rev) {
        found = v;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found?.obj ?? null;
  }

  /** Records a write at the next revision; `obj` must already carry that revision as its resourceVersion. */
  write(key: string, obj: KubeObject | null, at: number, bytes = 0): Change {
    const rev = ++this.rev;
    const vs = this.#versions.get(key);
    const version: Version = { rev, obj, bytes: obj === null ? 0 : bytes };
    let last: Version | undefined;
    if (vs === undefined) {
      this.#versions.set(key, version);
      this.#sorted.set(key, undefined);
    } else if (Array.isArray(vs)) {
      last = vs[vs.length - 1];
      vs.push(version);
    } else {
      last = vs;
      this.#versions.set(key, [vs, version]);
    }
    const prev = last?.obj ?? null;
    const prevBytes = last?.bytes ?? 0;
    this.#historyBytes += prevBytes;
    if (last !== undefined || obj === null) this.#dirty.add(key);
    if (prev === null && obj !== null) this.#live++;
    else if (prev !== null && obj === null) this.#live--;
    const change: Change = { rev, key, obj, prev, at, prevBytes };
    this.#log.push(change);
    return change;
  }

  /** The revision the next write will get. */
  get nextRev(): number {
    return this.rev + 1;
  }

  /** Keys (deleted ones still in history included) from `start` on while they begin with `prefix`, in order. */
  keysFrom(start: string, prefix: string): string[] {
    return this.#sorted.keysWithPrefix(prefix, start);
  }

  /** Changes with revision > `after`, in order. Caller checks `after` against `compacted`. */
  *changesAfter(after: number): Generator<Change> {
    const log = this.#log;
    let lo = 0;
    let hi = log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((log[mid] as Change).rev <= after) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < log.length; i++) yield log[i] as Change;
  }

  /** The newest revision written at or before wall-clock time `t` (0 if none retained). */
  revisionAtTime(t: number): number {
    const log = this.#log;
    let lo = 0;
    let hi = log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((log[mid] as Change).at <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : (log[lo - 1] as Change).rev;
  }

  /**
   * The revision to compact at so that at most `maxBytes` of history stays: the oldest changes' superseded versions
   * go first (compacting at a change's revision drops the version it replaced). 0 when history is within bounds.
   */
  revisionForHistoryBytes(maxBytes: number): number {
    let over = this.#historyBytes - maxBytes;
    if (over <= 0) return 0;
    for (const c of this.#log) {
      over -= c.prevBytes;
      if (over <= 0) return c.rev;
    }
    return this.rev;
  }

  /**
   * Drops history below `rev`: for each key, versions superseded by one at or below `rev`, and tombstones at or
   * below `rev`; the change log below `rev`. State at `rev` and later stays readable.
   */
  compact(rev: number): void {
    if (rev <= this.compacted) return;
    this.compacted = rev;
    for (const key of this.#dirty) {
      const held = this.#versions.get(key) as Version | Version[];
      const vs = Array.isArray(held) ? held : [held];
      let keepFrom = 0;
      for (let i = vs.length - 1; i >= 0; i--) {
        if ((vs[i] as Version).rev <= rev) {
          keepFrom = i;
          break;
        }
      }
      let kept = keepFrom > 0 ? vs.slice(keepFrom) : vs;
      if (kept[0]?.obj === null && kept[0].rev <= rev) kept = kept.slice(1);
      // Every dropped version was superseded (a dropped tombstone weighs nothing), so all of it was history.
      for (let i = 0; i < vs.length - kept.length; i++) this.#historyBytes -= (vs[i] as Version).bytes;
      if (kept.length === 0) {
        this.#versions.delete(key);
        this.#dirty.delete(key);
        this.#sorted.delete(key);
        continue;
      }
      if (kept.length === 1) this.#versions.set(key, kept[0] as Version);
      else if (kept !== vs) this.#versions.set(key, kept);
      if (kept.length === 1 && kept[0]?.obj !== null) this.#dirty.delete(key);
    }
    let drop = 0;
    while (drop < this.#log.length && (this.#log[drop] as Change).rev < rev) drop++;
    if (drop > 0) this.#log = this.#log.slice(drop);
  }
}
