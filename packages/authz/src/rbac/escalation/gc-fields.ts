import { jsonEqual, type KubeObject } from '@kapi/apimachinery';

/**
 * kube's IsOnlyMutatingGCFields: whether an update changes nothing but the fields the garbage collector writes
 * (ownerReferences, finalizers; selfLink), so RBAC objects can be cleaned up by someone without their permissions.
 */
export function isOnlyMutatingGCFields(obj: KubeObject, old: KubeObject): boolean {
  const { ownerReferences: _o, finalizers: _f, selfLink: _s, ...rest } = obj.metadata ?? {};
  const { ownerReferences, finalizers, selfLink } = old.metadata ?? {};
  const copied = { ...obj, metadata: { ...rest, ownerReferences, finalizers, selfLink } };
  return jsonEqual(copied, old);
}
