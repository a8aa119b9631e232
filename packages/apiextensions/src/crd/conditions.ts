import type { CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionConditionType } from './types.ts';

/**
 * CRD conditions as kube's apihelpers handle them, and the conditions kube's controllers and the CRD REST delete set,
 * with their exact reasons and messages (naming_controller.go, establish/establishing_controller.go,
 * finalizer/crd_finalizer.go, registry/customresourcedefinition/etcd.go).
 */

/** The finalizer kube's CRD delete adds: instances are removed before the CRD goes (CustomResourceCleanupFinalizer). */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

type Condition = Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>;

/** NamesAccepted True, from the naming controller. */
export const NAMES_ACCEPTED_NO_CONFLICTS: Condition = Object.freeze({
  type: 'NamesAccepted',
  status: 'True',
  reason: 'NoConflicts',
  message: 'no conflicts found',
});

/** Established before the naming controller accepted all names. */
export const ESTABLISHED_NOT_ACCEPTED: Condition = Object.freeze({
  type: 'Established',
  status: 'False',
  reason: 'NotAccepted',
  message: 'not all names are accepted',
});

/** Established as the naming controller leaves it once the names are accepted: the establishing controller follows. */
export const ESTABLISHED_INSTALLING: Condition = Object.freeze({
  type: 'Established',
  status: 'False',
  reason: 'Installing',
  message: 'the initial names have been accepted',
});

/** Established True, from the establishing controller once the API is served. */
export const ESTABLISHED_INITIAL_NAMES_ACCEPTED: Condition = Object.freeze({
  type: 'Established',
  status: 'True',
  reason: 'InitialNamesAccepted',
  message: 'the initial names have been accepted',
});

/** Set by the CRD REST delete when it adds the cleanup finalizer. */
export const TERMINATING_INSTANCE_DELETION_PENDING: Condition = Object.freeze({
  type: 'Terminating',
  status: 'True',
  reason: 'InstanceDeletionPending',
  message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
});

/** Set by the finalizer controller when it starts removing instances. */
export const TERMINATING_INSTANCE_DELETION_IN_PROGRESS: Condition = Object.freeze({
  type: 'Terminating',
  status: 'True',
  reason: 'InstanceDeletionInProgress',
  message: 'CustomResource deletion is in progress',
});

/** The finalizer controller's outcome once no instance is left. */
export const TERMINATING_INSTANCE_DELETION_COMPLETED: Condition = Object.freeze({
  type: 'Terminating',
  status: 'False',
  reason: 'InstanceDeletionCompleted',
  message: 'removed all instances',
});

/** The finalizer controller's outcome for a CRD that never served: there is nothing to remove. */
export const TERMINATING_NEVER_ESTABLISHED: Condition = Object.freeze({
  type: 'Terminating',
  status: 'False',
  reason: 'NeverEstablished',
  message: 'resource was never established',
});

/** The finalizer controller's failures, with kube's wording around the cause. */
export const terminatingFailed = {
  /** Listing the instances failed. */
  list: (err: string): Condition => ({
    type: 'Terminating',
    status: 'True',
    reason: 'InstanceDeletionFailed',
    message: `could not list instances: ${err}`,
  }),
  /** A delete-collection failed (errors aggregated as utilerrors.NewAggregate prints them). */
  delete: (err: string): Condition => ({
    type: 'Terminating',
    status: 'True',
    reason: 'InstanceDeletionFailed',
    message: `could not issue all deletes: ${err}`,
  }),
  /** Instances were still there when the finalizer gave up waiting. */
  check: (err: string): Condition => ({
    type: 'Terminating',
    status: 'True',
    reason: 'InstanceDeletionCheck',
    message: `could not confirm zero CustomResources remaining: ${err}`,
  }),
};

/** FindCRDCondition. */
export function findCRDCondition(
  crd: CustomResourceDefinition,
  type: CustomResourceDefinitionConditionType | (string & {}),
): CustomResourceDefinitionCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

/** IsCRDConditionTrue. */
export function isCRDConditionTrue(crd: CustomResourceDefinition, type: CustomResourceDefinitionConditionType): boolean {
  return findCRDCondition(crd, type)?.status === 'True';
}

/** IsCRDConditionEquivalent: same type, status, reason and message (the transition time does not count). */
export function isCRDConditionEquivalent(a: Condition | undefined, b: Condition | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.type === b.type && a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '');
}

/**
 * SetCRDCondition, in place: a new condition is appended; an existing one takes the new reason and message, and the new
 * transition time only when its status changes (or it had none). `now` is an RFC 3339 time, whole seconds.
 */
export function setCRDCondition(crd: CustomResourceDefinition, condition: Condition, now: string): void {
  crd.status ??= {};
  crd.status.conditions ??= [];
  const conditions = crd.status.conditions;
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) {
    conditions.push({ type: condition.type, status: condition.status, lastTransitionTime: now, ...reasonAndMessage(condition) });
    return;
  }
  if (existing.status !== condition.status || !existing.lastTransitionTime) {
    existing.status = condition.status;
    existing.lastTransitionTime = now;
  }
  delete existing.reason;
  delete existing.message;
  Object.assign(existing, reasonAndMessage(condition));
}

function reasonAndMessage(c: Condition): Partial<Condition> {
  return { ...(c.reason ? { reason: c.reason } : {}), ...(c.message ? { message: c.message } : {}) };
}
