import type { RoleBinding, RoleRef, Subject } from '../types.ts';
import { AUTOUPDATE_ANNOTATION } from './kube-policy.ts';
import { reconcileMetadata } from './reconcile-metadata.ts';

export interface ReconciledRoleBinding<T extends RoleBinding> {
  /** The object to write: the expected one for 'recreate', the existing one with what is missing added for 'update'. */
  binding: T;
  operation: 'update' | 'recreate' | 'none';
  /** The existing object opted out (its autoupdate annotation is "false"): nothing is written whatever `operation` says. */
  protected: boolean;
  missingSubjects: Subject[];
  extraSubjects: Subject[];
}

/**
 * kube's computeReconciledRoleBinding (pkg/registry/rbac/reconciliation): a binding whose roleRef differs is replaced
 * by the expected one (roleRef is immutable, so it is deleted and created again); otherwise the existing binding with
 * the expected labels and annotations added (the existing values win) and the expected subjects it lacks appended.
 * With removeExtraSubjects the subjects are replaced instead; bootstrap reconciliation never does that.
 */
export function computeReconciledRoleBinding<T extends RoleBinding>(
  existing: T,
  expected: T,
  removeExtraSubjects = false,
): ReconciledRoleBinding<T> {
  const isProtected = existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';
  if (!roleRefsEqual(existing.roleRef, expected.roleRef)) {
    return { binding: expected, operation: 'recreate', protected: isProtected, missingSubjects: [], extraSubjects: [] };
  }

  const binding = structuredClone(existing) as T;
  let operation: 'update' | 'none' = reconcileMetadata(binding, existing, expected) ? 'update' : 'none';

  const existingSubjects = existing.subjects ?? [];
  const expectedSubjects = expected.subjects ?? [];
  const missingSubjects = onlyIn(expectedSubjects, existingSubjects);
  const extraSubjects = onlyIn(existingSubjects, expectedSubjects);
  if (!removeExtraSubjects && missingSubjects.length > 0) {
    binding.subjects = [...structuredClone(existingSubjects), ...structuredClone(missingSubjects)];
    operation = 'update';
  } else if (removeExtraSubjects && (missingSubjects.length > 0 || extraSubjects.length > 0)) {
    binding.subjects = structuredClone(expectedSubjects);
    operation = 'update';
  }

  return { binding: operation === 'none' ? existing : binding, operation, protected: isProtected, missingSubjects, extraSubjects };
}

/** Go's struct equality on rbacv1.RoleRef and rbacv1.Subject: every field, an absent one being "". */
function roleRefsEqual(a: RoleRef, b: RoleRef): boolean {
  return a.apiGroup === b.apiGroup && a.kind === b.kind && a.name === b.name;
}

function subjectsEqual(a: Subject, b: Subject): boolean {
  return a.kind === b.kind && (a.apiGroup ?? '') === (b.apiGroup ?? '') && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
}

/** kube's diffSubjectLists, one side: the subjects of `list` not in `other`, each once. */
function onlyIn(list: readonly Subject[], other: readonly Subject[]): Subject[] {
  const out: Subject[] = [];
  for (const s of list) {
    if (!other.some((o) => subjectsEqual(o, s)) && !out.some((o) => subjectsEqual(o, s))) out.push(s);
  }
  return out;
}
