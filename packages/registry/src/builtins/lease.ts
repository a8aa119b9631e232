import { type FieldError, fieldErrors, isQualifiedName } from '@kapi/apimachinery';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import type { ResourceObject } from '../resource-definition.ts';
import { AGE_COLUMN } from '../table/table-convertor.ts';
import { checkMicroTimes } from './micro-time.ts';

/** coordination.k8s.io/v1 LeaseSpec. The times are MicroTimes (RFC 3339 with microseconds), kept as sent. */
const leaseSchema = z.object({
  spec: z
    .object({
      holderIdentity: z.string().optional(),
      leaseDurationSeconds: z.int().optional(),
      acquireTime: z.string().optional(),
      renewTime: z.string().optional(),
      leaseTransitions: z.int().optional(),
      strategy: z.string().optional(),
      preferredHolder: z.string().optional(),
    })
    .optional(),
});

/** The stored object: apiVersion, kind, ObjectMeta and the schema's fields. */
export type Lease = ResourceObject<typeof leaseSchema>;

/** The strategies Kubernetes defines itself (coordination's validLeaseStrategies); others are prefixed names. */
const LEASE_STRATEGIES = ['OldestEmulationVersion'];

/** ValidateCoordinatedLeaseStrategy. kube passes it `spec.strategy` and adds the child again: the path is theirs. */
function validateStrategy(strategy: string): FieldError[] {
  const path = 'spec.strategy.strategy';
  if (!strategy.includes('/'))
    return LEASE_STRATEGIES.includes(strategy) ? [] : [fieldErrors.notSupported(path, strategy, LEASE_STRATEGIES)];
  return isQualifiedName(strategy).map((msg) => fieldErrors.invalid(path, strategy, msg));
}

/** ValidateLeaseSpec (pkg/apis/coordination/validation), the same on create and update. */
function validateLease(lease: Lease): FieldError[] {
  const errs: FieldError[] = [];
  const spec = lease.spec ?? {};
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0)
    errs.push(fieldErrors.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0)
    errs.push(fieldErrors.invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  if (spec.strategy !== undefined) errs.push(...validateStrategy(spec.strategy));
  if (spec.preferredHolder && !spec.strategy)
    errs.push(fieldErrors.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  return errs;
}

/** kube reads acquireTime and renewTime as MicroTimes: other forms (a Date's milliseconds) are a 400. */
const checkTimes = (lease: Lease): void => checkMicroTimes('Lease', 'v1', [lease.spec?.acquireTime, lease.spec?.renewTime]);

/**
 * coordination.k8s.io/v1 Lease, with pkg/registry/coordination/lease's strategy: no generation, no status, updates
 * need no resourceVersion (leader electors always send theirs; the conflict is what makes the election safe).
 */
export const Lease = defineResource({
  group: 'coordination.k8s.io',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
  versions: [{ name: 'v1', schema: leaseSchema }],
  // kube's printLease: Name, Holder, Age.
  printerColumns: [
    {
      name: 'Holder',
      type: 'string',
      jsonPath: '.spec.holderIdentity',
      description:
        'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
      value: (o) => (o as Lease).spec?.holderIdentity ?? '',
    },
    AGE_COLUMN,
  ],
  strategy: {
    prepareForCreate: (_ctx, obj) => checkTimes(obj),
    prepareForUpdate: (_ctx, obj) => checkTimes(obj),
    validate: (_ctx, obj) => validateLease(obj),
    // Built-in kinds warn of no finalizer names (only custom resources do).
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    validateUpdate: (_ctx, obj) => validateLease(obj),
    allowUnconditionalUpdate: () => true,
  },
});
