import type { KubeObject } from '@kapi/apimachinery';
import { decodeFrozen } from './object-codec.ts';
import type { RecentWrites } from './recent-writes.ts';

/**
 * One entry of the event log: the write at `rev` to `key`, with the new value (undefined for a delete) and the value
 * it replaced (undefined for a create). Objects are decoded on first use and then shared, frozen, by every watcher.
 */
export class LogChange {
  readonly rev: number;
  readonly key: string;
  readonly value: string | undefined;
  readonly prev: string | undefined;
  #object: KubeObject | undefined;
  #prevObject: KubeObject | undefined;
  readonly #recent: RecentWrites | undefined;

  /** `recent`: the storage's own latest writes, whose objects a change of its own takes instead of a decoding. */
  constructor(rev: number, key: string, value: string | undefined, prev: string | undefined, recent?: RecentWrites) {
    this.rev = rev;
    this.key = key;
    this.value = value;
    this.prev = prev;
    this.#recent = recent;
  }

  /** The object as written (resourceVersion = rev); null for a delete. */
  get object(): KubeObject | null {
    if (this.value === undefined) return null;
    this.#object ??= this.#recent?.take(this.rev, this.key, this.value) ?? decodeFrozen(this.key, this.value, this.rev);
    return this.#object;
  }

  /**
   * The replaced object stamped with this change's revision: what a DELETED event carries (a real delete, or an
   * object that stops matching a predicate). Null for a create.
   */
  get prevObject(): KubeObject | null {
    if (this.prev === undefined) return null;
    this.#prevObject ??= decodeFrozen(this.key, this.prev, this.rev);
    return this.#prevObject;
  }
}

/** The revision of a log entry id (`<rev>-0`). */
export function revisionOfId(id: string): number {
  const dash = id.indexOf('-');
  return Number(dash < 0 ? id : id.slice(0, dash));
}

/** Entries as XRANGE returns them (and XREAD per stream): `[[id, [field, value, …]], …]`. */
export function parseLogEntries(entries: unknown, recent?: RecentWrites): LogChange[] {
  if (!Array.isArray(entries)) return [];
  const out: LogChange[] = [];
  for (const entry of entries as [string, string[]][]) {
    const [id, fields] = entry;
    let key = '';
    let value: string | undefined;
    let prev: string | undefined;
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const f = fields[i];
      const v = fields[i + 1] as string;
      if (f === 'k') key = v;
      else if (f === 'v') value = v;
      else if (f === 'p') prev = v;
    }
    out.push(new LogChange(revisionOfId(id), key, value, prev, recent));
  }
  return out;
}

/** The entries of the one stream in an XREAD reply (`[[stream, entries]]`, or null when the block timed out). */
export function parseXread(reply: unknown, recent?: RecentWrites): LogChange[] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  const first = reply[0] as unknown[];
  return parseLogEntries(first[1], recent);
}
