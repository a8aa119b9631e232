import type { KubeObject } from '@kapi/apimachinery';

/** How many of its latest writes a storage keeps the objects of (the event log is read back within milliseconds). */
const MAX_RECENT = 1024;

/**
 * The frozen objects a RedisStorage decoded for its own latest writes, by revision. The watch event of a write
 * carries the same JSON back from the event log: it takes the object instead of parsing that JSON a second time (a
 * write's answer and its event were two parses of one text). Each is taken once (the log entry then shares it with
 * every watcher); the oldest are dropped first.
 */
export class RecentWrites {
  readonly #byRev = new Map<number, { key: string; json: string; obj: KubeObject }>();

  remember(rev: number, key: string, json: string, obj: KubeObject): void {
    this.#byRev.set(rev, { key, json, obj });
    if (this.#byRev.size > MAX_RECENT) this.#byRev.delete(this.#byRev.keys().next().value as number);
  }

  /** The object written at `rev` to `key` as exactly `json`, if this storage wrote it lately; forgotten then. */
  take(rev: number, key: string, json: string): KubeObject | undefined {
    const e = this.#byRev.get(rev);
    if (e === undefined || e.key !== key || e.json !== json) return undefined;
    this.#byRev.delete(rev);
    return e.obj;
  }
}
