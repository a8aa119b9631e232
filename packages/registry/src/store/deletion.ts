import { type GroupKind, type KubeObject, newConflict } from '@kapi/apimachinery';
import type { Preconditions } from '@kapi/storage';
import { rfc3339Seconds } from './timestamp.ts';
import type { PropagationPolicy } from './types.ts';

/**
 * Deletion rules of kube-apiserver's generic Store for kinds without graceful deletion (custom resources):
 * the garbage collector's finalizers a propagationPolicy records, and how a kept object is marked as terminating.
 */

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** Whether the orphan finalizer belongs on the object (shouldOrphanDependents, default policy Background). */
function shouldOrphan(finalizers: readonly string[], policy: PropagationPolicy | undefined): boolean {
  if (policy) return policy === 'Orphan';
  for (const f of finalizers) {
    if (f === ORPHAN_FINALIZER) return true;
    if (f === FOREGROUND_FINALIZER) return false;
  }
  return false;
}

function shouldDeleteDependents(finalizers: readonly string[], policy: PropagationPolicy | undefined): boolean {
  if (policy) return policy === 'Foreground';
  for (const f of finalizers) {
    if (f === FOREGROUND_FINALIZER) return true;
    if (f === ORPHAN_FINALIZER) return false;
  }
  return false;
}

/**
 * The finalizers after a delete with `policy` (deletionFinalizersForGarbageCollection): both GC finalizers are
 * removed and the one the policy asks for is appended. `undefined` when the set does not change.
 */
export function finalizersForDeletion(obj: KubeObject, policy: PropagationPolicy | undefined): string[] | undefined {
  const old = obj.metadata.finalizers ?? [];
  const next = old.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (shouldOrphan(old, policy)) next.push(ORPHAN_FINALIZER);
  if (shouldDeleteDependents(old, policy)) next.push(FOREGROUND_FINALIZER);
  const same = new Set(old).size === new Set(next).size && next.every((f) => old.includes(f));
  return same ? undefined : next;
}

/**
 * markAsDeleting: deletionTimestamp (kept if already set), a zero grace period, and one generation bump the first
 * time, since the object will not be updated again before it goes. Changes `obj` (a private copy).
 */
export function markAsDeleting(obj: KubeObject, nowMs: number): void {
  const m = obj.metadata;
  if (!m.deletionTimestamp && (m.generation ?? 0) > 0) m.generation = (m.generation ?? 0) + 1;
  const now = rfc3339Seconds(nowMs);
  if (!m.deletionTimestamp || Date.parse(m.deletionTimestamp) > Date.parse(now)) m.deletionTimestamp = now;
  m.deletionGracePeriodSeconds = 0;
}

/**
 * rest.BeforeDelete's early precondition check, worded as kube-apiserver words it (the resource in that message is
 * the kind, as there).
 */
export function checkDeletePreconditions(kind: GroupKind, obj: KubeObject, pre: Preconditions | undefined): void {
  if (!pre) return;
  const resource = { group: kind.group, resource: kind.kind };
  const name = obj.metadata.name ?? '';
  if (pre.uid !== undefined && pre.uid !== obj.metadata.uid)
    throw newConflict(
      resource,
      name,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${obj.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
    );
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== obj.metadata.resourceVersion)
    throw newConflict(
      resource,
      name,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${obj.metadata.resourceVersion ?? ''}). The object might have been modified`,
    );
}

/** shouldDeleteDuringUpdate: an update that empties the finalizers of an object whose deletion was requested removes it. */
export function shouldDeleteDuringUpdate(obj: KubeObject, old: KubeObject): boolean {
  if ((obj.metadata.finalizers ?? []).length > 0) return false;
  if (!old.metadata.deletionTimestamp) return false;
  const grace = old.metadata.deletionGracePeriodSeconds;
  return grace === undefined || grace === 0;
}
