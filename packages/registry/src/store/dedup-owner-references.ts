import { jsonEqual, type KubeObject } from '@kapi/apimachinery';

/**
 * kube's dedupOwnerReferencesAndAddWarning: an owner reference equal in every field to one before it is dropped, and
 * the client is told the UIDs so dropped. References that share a UID but differ elsewhere are all kept (kube does not
 * know what relies on them). kube dedups a create's and an update's object before mutating admission and after it, a
 * patch's only after it; the warning says which.
 */
export function dedupOwnerReferences(obj: KubeObject, afterMutatingAdmission: boolean): { object: KubeObject; warning?: string } {
  const refs = obj.metadata.ownerReferences;
  if (!Array.isArray(refs) || refs.length < 2) return { object: obj };
  const kept: typeof refs = [];
  const duplicates: string[] = [];
  for (const ref of refs) {
    if (kept.some((k) => k.uid === ref.uid && jsonEqual(k, ref))) duplicates.push(String(ref.uid));
    else kept.push(ref);
  }
  if (duplicates.length === 0) return { object: obj };
  const when = afterMutatingAdmission ? ' after mutating admission happens' : '';
  return {
    object: { ...obj, metadata: { ...obj.metadata, ownerReferences: kept } },
    warning:
      `.metadata.ownerReferences contains duplicate entries${when}; API server dedups owner references in 1.20+, and may ` +
      `reject such requests as early as 1.24; please fix your requests. Duplicate UIDs: ${duplicates.join(', ')}`,
  };
}
