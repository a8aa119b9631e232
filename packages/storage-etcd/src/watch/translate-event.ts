import type { WatchEvent } from '@kapi/apimachinery';
import { matchesEverything, type SelectionPredicate, watchEventFor } from '@kapi/storage';
import type { WatchEventMessage } from '../client/messages.ts';
import { decodeObject } from '../codec.ts';

/**
 * What an etcd event at storage key `key` is to a watcher with predicate `pred`: the shared transition rules of
 * `watchEventFor` (ADDED when starting to match, MODIFIED while matching, DELETED with the previous state at the
 * event's revision when stopping or deleted). Needs prev_kv on the watch.
 */
export function translateEvent(key: string, ev: WatchEventMessage, pred: SelectionPredicate | undefined): WatchEvent | undefined {
  const rev = ev.kv.mod_revision;
  if (ev.type === 'DELETE') {
    // Without the previous value there is nothing to send (etcd drops it only if it was compacted meanwhile).
    if (!ev.prev_kv) throw new Error(`etcd sent a DELETE of ${key} at revision ${rev} without its previous value`);
    return watchEventFor(pred, { rev, obj: null, prev: decodeObject(key, ev.prev_kv.value, rev) });
  }
  const created = ev.kv.create_revision === rev;
  const cur = decodeObject(key, ev.kv.value, rev);
  // Without a selector nothing starts or stops matching: skip decoding the previous value.
  if (matchesEverything(pred)) return { type: created ? 'ADDED' : 'MODIFIED', object: cur };
  // A previous value compacted away counts as matching as the new one does (a change, not a transition).
  const prev = created ? null : ev.prev_kv ? decodeObject(key, ev.prev_kv.value, rev) : cur;
  return watchEventFor(pred, { rev, obj: cur, prev });
}
