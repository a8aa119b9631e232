import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { type SelectionPredicate, type WatchQueue, watchEventFor } from '@kapi/storage';
import type { LogChange } from './log-change.ts';

/**
 * One watch as the hub sees it. `starting`: initial events or validation still running, nothing is routed to it.
 * `replaying`: reading the log from its start revision; live changes in its range wait in `buffer`. `live`: fed by
 * the shared reader.
 */
export interface Watcher {
  readonly queue: WatchQueue;
  /** The range of a recursive watch (ends with "/"), the exact key otherwise. */
  readonly key: string;
  readonly recursive: boolean;
  readonly pred: SelectionPredicate | undefined;
  /** The predicate has a selector (otherwise every object in range matches). */
  readonly filtered: boolean;
  readonly progressNotify: boolean;
  /** Every change up to this revision has been handled for this watcher. */
  lastRev: number;
  state: 'starting' | 'replaying' | 'live';
  buffer: LogChange[] | undefined;
  /** When the watcher was last sent anything (Date.now()): progress bookmarks go to idle watchers. */
  lastSentAt: number;
  /** A requestWatchProgress came while it was not live yet: it gets its BOOKMARK on going live. */
  progressOwed?: boolean;
}

export function inRange(w: Watcher, key: string): boolean {
  return w.recursive ? key.startsWith(w.key) : key === w.key;
}

/**
 * The event `change` means to `w`: the shared transition rules of `watchEventFor` (ADDED / MODIFIED while matching,
 * DELETED with the old object at the new revision when it stops matching or is deleted, nothing otherwise).
 */
export function eventFor(w: Watcher, change: LogChange): WatchEvent | undefined {
  if (!inRange(w, change.key)) return undefined;
  if (w.filtered) return watchEventFor(w.pred, { rev: change.rev, obj: change.object, prev: change.prevObject });
  // Without a selector every object in range matches: decode only what the event carries.
  if (change.value !== undefined) return { type: change.prev !== undefined ? 'MODIFIED' : 'ADDED', object: change.object as KubeObject };
  return change.prev !== undefined ? { type: 'DELETED', object: change.prevObject as KubeObject } : undefined;
}
