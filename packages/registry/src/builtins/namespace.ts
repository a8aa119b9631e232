import { type FieldError, fieldErrors, isDNS1123Subdomain, isQualifiedName, type KubeObject, nameIsDNSLabel } from '@kapi/apimachinery';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import { atomicList, listMap } from '../kube-extensions.ts';
import type { ResourceObject } from '../resource-definition.ts';
import { shouldDeleteDuringUpdate } from '../store/deletion.ts';
import type { Strategy } from '../strategy.ts';
import { AGE_COLUMN } from '../table/table-convertor.ts';
import { checkConditionTimes } from './micro-time.ts';

/** The finalizer kube-apiserver puts on every namespace; the namespace controller removes it once the namespace is empty. */
export const FINALIZER_KUBERNETES = 'kubernetes';
/** The label kube-apiserver keeps equal to a namespace's name, so selectors can pick namespaces by name. */
export const LABEL_METADATA_NAME = 'kubernetes.io/metadata.name';

/** core/v1 NamespaceCondition; the namespace controller keeps the NamespaceDeletion… / Namespace…Remaining ones. */
const namespaceConditionSchema = z.object({
  type: z.string(),
  status: z.string(),
  /** metav1.Time, RFC 3339. */
  lastTransitionTime: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});

const namespaceSchema = z.object({
  // kube: +listType=atomic.
  spec: z.object({ finalizers: atomicList(z.array(z.string())).optional() }).optional(),
  status: z
    .object({
      phase: z.string().optional(),
      // +listType=map +listMapKeys=type, merged by type in strategic merge patches.
      conditions: listMap(z.array(namespaceConditionSchema), ['type']).optional(),
    })
    .optional(),
});

export type NamespaceCondition = z.infer<typeof namespaceConditionSchema>;

/** The stored object: apiVersion, kind, ObjectMeta and the schema's fields. */
export type Namespace = ResourceObject<typeof namespaceSchema>;

const STANDARD_FINALIZERS = new Set([FINALIZER_KUBERNETES, 'orphan', 'foregroundDeletion']);

/** validateFinalizerName: a qualified name, and a bare one only if Kubernetes defines it. */
function validateFinalizers(finalizers: unknown): FieldError[] {
  if (!Array.isArray(finalizers)) return [];
  const errs: FieldError[] = [];
  for (const f of finalizers) {
    if (typeof f !== 'string') continue;
    const msgs = isQualifiedName(f);
    for (const msg of msgs) errs.push(fieldErrors.invalid('spec.finalizers', f, msg));
    if (!msgs.length && !f.includes('/') && !STANDARD_FINALIZERS.has(f))
      errs.push(fieldErrors.invalid('spec.finalizers', f, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

/** ValidateNamespace: a namespace name is a DNS label; the ObjectMeta check before this one allows subdomains. */
function validateNamespace(ns: KubeObject): FieldError[] {
  const name = ns.metadata.name ?? '';
  const errs: FieldError[] = [];
  // Subdomain failures were reported already; only what a label adds is reported here.
  if (name && isDNS1123Subdomain(name).length === 0)
    for (const msg of nameIsDNSLabel(name, false)) errs.push(fieldErrors.invalid('metadata.name', name, msg));
  errs.push(...validateFinalizers((ns.spec as { finalizers?: unknown } | undefined)?.finalizers));
  return errs;
}

/**
 * ValidateNamespaceStatusUpdate: the phase follows deletionTimestamp. Conditions' lastTransitionTime are read as
 * metav1.Time first, as kube's decoder reads them: another string is a 400, never stored for Go clients to choke on.
 */
function validateStatusUpdate(ns: Namespace): FieldError[] {
  checkConditionTimes('Namespace', 'v1', ns.status?.conditions);
  const phase = ns.status?.phase;
  if (!ns.metadata.deletionTimestamp) {
    if (phase !== 'Active')
      return [fieldErrors.invalid('status.Phase', phase ?? '', "may only be 'Active' if `deletionTimestamp` is empty")];
  } else if (phase !== 'Terminating')
    return [fieldErrors.invalid('status.Phase', phase ?? '', "may only be 'Terminating' if `deletionTimestamp` is not empty")];
  return [];
}

/** Canonicalize: the metadata.name label always matches the name, whatever a client or webhook did. */
function labelName(ns: KubeObject): void {
  ns.metadata.labels = { ...ns.metadata.labels, [LABEL_METADATA_NAME]: ns.metadata.name ?? '' };
}

const definition = {
  group: '',
  kind: 'Namespace',
  plural: 'namespaces',
  shortNames: ['ns'],
  namespaced: false,
  versions: [{ name: 'v1', schema: namespaceSchema }],
  subresources: { status: true },
  selectableFields: [{ jsonPath: '.status.phase' }],
  printerColumns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'The status of the namespace' }, AGE_COLUMN],
} as const;

/**
 * core/v1 Namespace with pkg/registry/core/namespace's strategy: created Active with the `kubernetes` finalizer in
 * spec.finalizers; an update keeps spec.finalizers and status (the finalize and status subresources own them).
 * Deleting one goes through NamespaceRegistry, which marks it Terminating instead.
 */
export const Namespace = defineResource({
  ...definition,
  strategy: {
    prepareForCreate(_ctx, ns) {
      ns.status = { phase: 'Active' };
      // A spec or finalizers of the wrong type never gets here: decoding refuses it (decodeBody), as kube's does.
      const finalizers = Array.isArray(ns.spec?.finalizers) ? ns.spec.finalizers : [];
      // Required on create only: finalize may remove it later.
      if (!finalizers.includes(FINALIZER_KUBERNETES)) ns.spec = { ...ns.spec, finalizers: [...finalizers, FINALIZER_KUBERNETES] };
    },
    prepareForUpdate(_ctx, ns, old) {
      if (old.spec === undefined) delete ns.spec;
      else ns.spec = structuredClone(old.spec);
      if (old.status === undefined) delete ns.status;
      else ns.status = structuredClone(old.status);
    },
    validate: (_ctx, ns) => validateNamespace(ns),
    validateUpdate: (ctx, ns) => [...validateNamespace(ns), ...(ctx.subresource === 'status' ? validateStatusUpdate(ns) : [])],
    canonicalize: labelName,
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    allowUnconditionalUpdate: () => true,
  },
});

/**
 * The namespaces/finalize subresource's strategy (kube's finalizeStrategy): an update that changes spec.finalizers,
 * status kept. Used only by NamespaceRegistry, on its own Store over the same keys.
 */
export const namespaceFinalize = defineResource({
  ...definition,
  strategy: {
    prepareForCreate: Namespace.strategy.prepareForCreate,
    prepareForUpdate(_ctx, ns, old) {
      if (old.status === undefined) delete ns.status;
      else ns.status = structuredClone(old.status);
    },
    validate: Namespace.strategy.validate,
    validateUpdate: (_ctx, ns) => validateNamespace(ns),
    canonicalize: labelName,
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    allowUnconditionalUpdate: () => true,
  } satisfies Partial<Strategy<Namespace>>,
});

/** ShouldDeleteNamespaceDuringUpdate: a terminating namespace also waits for its spec.finalizers to be gone. */
export function shouldDeleteNamespaceDuringUpdate(obj: KubeObject, old: KubeObject): boolean {
  const finalizers = (obj.spec as { finalizers?: unknown[] } | undefined)?.finalizers ?? [];
  return finalizers.length === 0 && shouldDeleteDuringUpdate(obj, old);
}
