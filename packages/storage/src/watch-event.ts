import { INITIAL_EVENTS_END_ANNOTATION, type KubeObject, type WatchEvent } from '@kapi/apimachinery';
import { deepFreeze } from './deep-equal.ts';
import { predicateMatches, type SelectionPredicate } from './selection-predicate.ts';
import { recordStorageKey, storageKeyOf } from './storage-key.ts';

/** One stored change as a backend sees it: the new state (null for a delete) and the state it replaced. */
export interface StoredChange {
  /** The change's revision. */
  rev: number;
  /** The object after the change, carrying `rev` as its resourceVersion; null when the key was deleted. */
  obj: KubeObject | null;
  /** The object before the change; null when the key was created. */
  prev: KubeObject | null;
}

/**
 * What a change means to a watcher with predicate `pred` (k8s.io/apiserver's watch semantics): ADDED when the object
 * starts to match (created, or changed into a match), MODIFIED while it keeps matching, DELETED carrying the *old*
 * object at the change's revision when it stops matching or is deleted, nothing when it never matched.
 */
export function watchEventFor(pred: SelectionPredicate | undefined, change: StoredChange): WatchEvent | undefined {
  const cur = change.obj !== null && predicateMatches(pred, change.obj);
  const prev = change.prev !== null && predicateMatches(pred, change.prev);
  if (cur) return { type: prev ? 'MODIFIED' : 'ADDED', object: change.obj as KubeObject };
  if (prev) return { type: 'DELETED', object: lastStateAt(change.prev as KubeObject, change.rev) };
  return undefined;
}

/**
 * `obj` stamped with revision `rev`: what DELETED events and delete() return (the last state at the deletion revision).
 * The copy keeps `obj`'s storage key.
 */
export function lastStateAt(obj: KubeObject, rev: number): KubeObject {
  const copy = { ...obj, metadata: Object.freeze({ ...obj.metadata, resourceVersion: String(rev) }) };
  const key = storageKeyOf(obj);
  if (key !== undefined) recordStorageKey(copy, key);
  return Object.freeze(copy);
}

/** A BOOKMARK's object: only metadata.resourceVersion (and the initial-events-end annotation when it ends them). */
export function bookmarkObject(rev: number, initialEventsEnd = false): KubeObject {
  const metadata: KubeObject['metadata'] = { resourceVersion: String(rev) };
  if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
  return deepFreeze({ metadata });
}
