import { approximateJsonSize, committedSizeOf, type StorageError, storageErrors } from '@kapi/storage';
import type { CacheEvent } from './cache-event.ts';

export interface EventHistoryOptions {
  /** Smallest capacity (default 100). */
  minCapacity?: number;
  /** Largest capacity (default 100 · 1024). */
  maxCapacity?: number;
  /** Events younger than this are worth keeping: the buffer grows to hold them (default 75 s). */
  freshMs?: number;
  /**
   * The most bytes of objects (their JSON size, about) the history holds, whatever its capacity: past it the oldest
   * events drop out, and a watch from before them is 410 like any other too old one (default 64 MiB).
   */
  maxBytes?: number;
}

/**
 * The cache's recent changes, oldest first, in a ring buffer sized by event age (watch_cache.go): when full, it
 * doubles while its oldest event is younger than `freshMs`, and halves when even its newest quarter is older than
 * that. Serves watches from a past revision; one from before the buffer is 410 "too old resource version". Its
 * objects are also bounded by size (`maxBytes`): a count alone lets a history of large objects grow without measure.
 */
export class EventHistory {
  readonly #min: number;
  readonly #max: number;
  readonly #freshMs: number;
  readonly #maxBytes: number;
  #buf: (CacheEvent | undefined)[];
  /** The approximate JSON size of each held event's object, beside it in the same slot. */
  #sizes: number[];
  /**
   * When the cache recorded each held event (the age-based sizing reads it), in the same slot: 8 bytes in an array of
   * numbers, where a field of the event took a slot and a boxed number.
   */
  #times: number[];
  #bytes = 0;
  #capacity: number;
  /** Ever-growing indexes: events live in [start, end), at index % capacity. */
  #start = 0;
  #end = 0;
  /** The revision of the last full list; watches from it on need nothing older. */
  #listRev = 0;
  #listed = false;
  /** Some event after the last list was dropped: the buffer's first event is the oldest one deliverable. */
  #removedSinceList = false;

  constructor(opts: EventHistoryOptions = {}) {
    this.#min = opts.minCapacity ?? 100;
    this.#max = Math.max(this.#min, opts.maxCapacity ?? 100 * 1024);
    this.#freshMs = opts.freshMs ?? 75_000;
    this.#maxBytes = opts.maxBytes ?? 64 * 2 ** 20;
    this.#capacity = this.#min;
    this.#buf = new Array(this.#capacity);
    this.#sizes = new Array(this.#capacity).fill(0);
    this.#times = new Array(this.#capacity).fill(0);
  }

  /** About how many bytes of objects (as JSON) the held events carry. */
  get bytes(): number {
    return this.#bytes;
  }

  get capacity(): number {
    return this.#capacity;
  }

  get size(): number {
    return this.#end - this.#start;
  }

  /** Forgets every event: the cache was just listed at `rev`. */
  reset(rev: number): void {
    this.#buf = new Array(this.#capacity);
    this.#sizes = new Array(this.#capacity).fill(0);
    this.#times = new Array(this.#capacity).fill(0);
    this.#bytes = 0;
    // Indexes only grow, so nothing computed from the old buffer can point into the new one.
    this.#start = this.#end;
    this.#listRev = rev;
    this.#listed = true;
    this.#removedSinceList = false;
  }

  /** Appends `ev`, recorded by the cache at `recordTime` (its clock's milliseconds). */
  add(ev: CacheEvent, recordTime: number): void {
    this.#resize(recordTime);
    if (this.size === this.#capacity) {
      this.#dropOldest();
      this.#removedSinceList = true;
    }
    const obj = ev.obj ?? ev.deleted;
    // A version the backend just committed comes with its size: not walked again.
    const size = (obj && committedSizeOf(obj)) ?? approximateJsonSize(obj);
    this.#buf[this.#end % this.#capacity] = ev;
    this.#sizes[this.#end % this.#capacity] = size;
    this.#times[this.#end % this.#capacity] = recordTime;
    this.#bytes += size;
    this.#end++;
    // Over the byte bound: the oldest go (the newest event always stays, so a watch from just before it is served).
    while (this.#bytes > this.#maxBytes && this.size > 1) {
      this.#dropOldest();
      this.#removedSinceList = true;
    }
  }

  #dropOldest(): void {
    const slot = this.#start % this.#capacity;
    this.#buf[slot] = undefined;
    this.#bytes -= this.#sizes[slot] as number;
    this.#sizes[slot] = 0;
    this.#start++;
  }

  /**
   * Forgets the events up to revision `rev`, as a compaction of the cache's window: a watch from before `rev` is then
   * 410 "too old resource version", one from `rev` on is served as before. A window that already starts at or after
   * `rev` is left as it is (and one never listed: it serves no watch from a revision).
   */
  forgetThrough(rev: number): void {
    const oldest = this.oldestWatchable();
    if (oldest === undefined || oldest >= rev) return;
    // Every event after `oldest` is held (events leave oldest first), so every event after `rev` stays.
    while (this.#start < this.#end && (this.#at(this.#start) as CacheEvent).rev <= rev) this.#dropOldest();
    this.#listRev = rev;
    this.#listed = true;
    this.#removedSinceList = false;
  }

  /** The oldest revision a watch can start after, i.e. the N below which "watch from N" is too old. */
  oldestWatchable(): number | undefined {
    if (this.#listed && !this.#removedSinceList) return this.#listRev;
    const first = this.#at(this.#start);
    return first ? first.rev - 1 : undefined;
  }

  /** Every event after revision `rv`, oldest first; Expired ("too old resource version: N (M)") when `rv` predates the buffer. */
  since(rv: number): CacheEvent[] {
    const oldest = this.oldestWatchable();
    if (oldest === undefined) throw tooOld(rv, 0);
    if (rv < oldest) throw tooOld(rv, oldest);
    let lo = this.#start;
    let hi = this.#end;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if ((this.#at(mid) as CacheEvent).rev > rv) hi = mid;
      else lo = mid + 1;
    }
    const out: CacheEvent[] = [];
    for (let i = lo; i < this.#end; i++) out.push(this.#at(i) as CacheEvent);
    return out;
  }

  #at(i: number): CacheEvent | undefined {
    return i < this.#end && i >= this.#start ? this.#buf[i % this.#capacity] : undefined;
  }

  /** When the held event at index `i` was recorded. */
  #timeAt(i: number): number {
    return this.#times[i % this.#capacity] as number;
  }

  #resize(now: number): void {
    if (this.size < this.#capacity) return;
    if (now - this.#timeAt(this.#start) < this.#freshMs) {
      const c = Math.min(this.#capacity * 2, this.#max);
      if (c > this.#capacity) this.#resizeTo(c);
      return;
    }
    if (now - this.#timeAt(this.#end - Math.floor(this.#capacity / 4)) > this.#freshMs) {
      const c = Math.max(Math.floor(this.#capacity / 2), this.#min);
      if (c < this.#capacity) this.#resizeTo(c);
    }
  }

  #resizeTo(capacity: number): void {
    if (capacity < this.size) {
      // Shrinking drops the oldest events: the buffer's first event is now the oldest one deliverable.
      while (this.size > capacity) this.#dropOldest();
      this.#removedSinceList = true;
    }
    const buf: (CacheEvent | undefined)[] = new Array(capacity);
    const sizes: number[] = new Array(capacity).fill(0);
    const times: number[] = new Array(capacity).fill(0);
    for (let i = this.#start; i < this.#end; i++) {
      buf[i % capacity] = this.#buf[i % this.#capacity];
      sizes[i % capacity] = this.#sizes[i % this.#capacity] as number;
      times[i % capacity] = this.#times[i % this.#capacity] as number;
    }
    this.#buf = buf;
    this.#sizes = sizes;
    this.#times = times;
    this.#capacity = capacity;
  }
}

function tooOld(rv: number, oldest: number): StorageError {
  return storageErrors.expired(`too old resource version: ${rv} (${oldest})`);
}
