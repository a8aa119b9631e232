import type { NamespaceCondition } from './namespace.ts';

/**
 * The status conditions kube-controller-manager's namespace deleter keeps on a terminating namespace
 * (pkg/controller/namespace/deletion/status_condition_utils.go): each of its five types is always present,
 * True with what went wrong, or False with the "all is well" reason and message.
 */

export const NAMESPACE_CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGVParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

export type NamespaceConditionType = (typeof NAMESPACE_CONDITION_TYPES)[number];

const OK: Record<NamespaceConditionType, { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  NamespaceDeletionGVParsingFailure: { reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  NamespaceDeletionContentFailure: {
    reason: 'ContentDeleted',
    message: 'All content successfully deleted, may be waiting on finalization',
  },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: { reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
};

/** What one pass of deleting a namespace's content left behind. */
export interface ContentTotals {
  /** "resource.group" (e.g. "configmaps.") → objects still there. */
  remainingByResource: ReadonlyMap<string, number>;
  /** finalizer → objects still there that carry it. */
  remainingByFinalizer: ReadonlyMap<string, number>;
  /** The errors of resource types whose content could not be deleted. */
  deleteErrors: readonly string[];
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** ProcessContentTotals and makeDeleteContentCondition: the failing conditions (status True) of one pass. */
export function failingConditions(totals: ContentTotals): Map<NamespaceConditionType, { reason: string; message: string }> {
  const out = new Map<NamespaceConditionType, { reason: string; message: string }>();
  const resources = [...totals.remainingByResource].filter(([, n]) => n > 0).map(([r, n]) => `${r} has ${n} resource instances`);
  if (totals.remainingByResource.size)
    out.set('NamespaceContentRemaining', {
      reason: 'SomeResourcesRemain',
      message: `Some resources are remaining: ${resources.sort(byteOrder).join(', ')}`,
    });
  const finalizers = [...totals.remainingByFinalizer].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`);
  if (totals.remainingByFinalizer.size)
    out.set('NamespaceFinalizersRemaining', {
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${finalizers.sort(byteOrder).join(', ')}`,
    });
  if (totals.deleteErrors.length)
    out.set('NamespaceDeletionContentFailure', {
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${totals.deleteErrors.length} remaining: ${[...totals.deleteErrors].sort(byteOrder).join(', ')}`,
    });
  return out;
}

/**
 * updateConditions: every type set to its failing condition of this pass or else its OK one. A condition whose
 * status, reason or message changes is updated in place (its lastTransitionTime only when the status flips); a
 * missing one is appended. Returns the new list, or undefined when nothing changed.
 */
export function updateNamespaceConditions(
  current: readonly NamespaceCondition[] | undefined,
  totals: ContentTotals,
  now: string,
): NamespaceCondition[] | undefined {
  const failing = failingConditions(totals);
  const conditions = (current ?? []).map((c) => ({ ...c }));
  let changed = false;
  for (const type of NAMESPACE_CONDITION_TYPES) {
    const f = failing.get(type);
    const want = { type, status: f ? 'True' : 'False', ...(f ?? OK[type]) };
    const old = conditions.find((c) => c.type === type);
    if (!old) {
      conditions.push({ type, status: want.status, lastTransitionTime: now, reason: want.reason, message: want.message });
      changed = true;
    } else if (old.status !== want.status || old.reason !== want.reason || old.message !== want.message) {
      if (old.status !== want.status) old.lastTransitionTime = now;
      old.status = want.status;
      old.reason = want.reason;
      old.message = want.message;
      changed = true;
    }
  }
  return changed ? conditions : undefined;
}
