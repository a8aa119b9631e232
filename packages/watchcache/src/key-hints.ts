/**
 * Storage keys of the Cacher's own writes, by the revision each write produced. A backend's list items and watch
 * events carry objects, not keys; a key function (namespace/name) finds most keys, but not every key a caller may
 * use (e.g. `/registry/x/ns/a/child`). The Cacher records the key of every write it passes on, and holds an event
 * that has no recorded key while one of its writes is still unanswered: that write may be the one that produced it.
 */
export class KeyHints {
  readonly #byRev = new Map<number, string>();
  readonly #inflight = new Set<number>();
  #seq = 0;
  readonly #onSettle: () => void;

  constructor(onSettle: () => void) {
    this.#onSettle = onSettle;
  }

  /** A write is about to reach the backend; returns its ticket. */
  begin(): number {
    const t = ++this.#seq;
    this.#inflight.add(t);
    return t;
  }

  /** The write with `ticket` was answered (or failed): `rev` is what it wrote to `key`, if anything. */
  end(ticket: number, key?: string, rev?: number): void {
    if (key !== undefined && rev !== undefined) this.#byRev.set(rev, key);
    if (this.#inflight.delete(ticket)) this.#onSettle();
  }

  /** The newest ticket handed out so far (a watermark for `unansweredUpTo`). */
  get watermark(): number {
    return this.#seq;
  }

  /** Whether a write with a ticket at or below `watermark` is still unanswered. */
  unansweredUpTo(watermark: number): boolean {
    for (const t of this.#inflight) if (t <= watermark) return true;
    return false;
  }

  /** The key written at `rev`, forgotten once taken. */
  take(rev: number): string | undefined {
    const k = this.#byRev.get(rev);
    if (k !== undefined) this.#byRev.delete(rev);
    return k;
  }

  /** Forgets hints at or below `rev` (changes the cache has passed, or writes that changed nothing). */
  prune(rev: number): void {
    if (this.#byRev.size < 256) return;
    for (const r of this.#byRev.keys()) if (r <= rev) this.#byRev.delete(r);
  }

  clear(): void {
    this.#byRev.clear();
  }
}
