import { CUSTOM_RESOURCE_CLEANUP_FINALIZER, setCRDCondition, TERMINATING_INSTANCE_DELETION_PENDING } from './conditions.ts';
import type { CustomResourceDefinition } from './types.ts';

/**
 * What kube's CRD REST Delete writes on the first delete of a CRD (registry/customresourcedefinition/etcd.go), in place:
 * the deletion timestamp (when not set yet), the `customresourcecleanup.apiextensions.k8s.io` finalizer and the
 * Terminating condition "InstanceDeletionPending". The CRD is then only removed once the finalizer controller has
 * deleted every instance and dropped the finalizer; a later delete is an ordinary one. `now` is RFC 3339, whole seconds.
 */
export function markCustomResourceDefinitionForDeletion(crd: CustomResourceDefinition, now: string): void {
  crd.metadata.deletionTimestamp ??= now;
  const finalizers = crd.metadata.finalizers ?? [];
  if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) crd.metadata.finalizers = [...finalizers, CUSTOM_RESOURCE_CLEANUP_FINALIZER];
  setCRDCondition(crd, TERMINATING_INSTANCE_DELETION_PENDING, now);
}
