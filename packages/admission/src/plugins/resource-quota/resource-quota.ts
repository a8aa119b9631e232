import { type FieldError, fieldErrors, isQualifiedName, type KubeObject } from '@kapi/apimachinery';
import { AGE_COLUMN, atomicList, defineResource, type ResourceObject, withKubeMeta } from '@kapi/registry';
import { z } from 'zod';
import { guardedValidation } from '../../admissionregistration/shape-guard.ts';
import { canonicalQuantity, parseQuantity, type QuantityValue } from './quantity.ts';

/** resource.Quantity on the wire: a string, or a number (kube's UnmarshalJSON takes both; kubectl sends YAML numbers). */
const quantitySchema = withKubeMeta(z.union([z.number(), z.string()]), { intOrString: true });
const resourceListSchema = z.record(z.string(), quantitySchema);

const scopedResourceSelectorRequirementSchema = z.object({
  scopeName: z.string(),
  operator: z.string(),
  values: atomicList(z.array(z.string())).optional(),
});

export const resourceQuotaSchema = z.object({
  spec: z
    .object({
      hard: resourceListSchema.optional(),
      scopes: atomicList(z.array(z.string())).optional(),
      scopeSelector: z.object({ matchExpressions: atomicList(z.array(scopedResourceSelectorRequirementSchema)).optional() }).optional(),
    })
    .optional(),
  status: z.object({ hard: resourceListSchema.optional(), used: resourceListSchema.optional() }).optional(),
});

/** core/v1 ResourceQuota as stored. */
export type ResourceQuota = ResourceObject<typeof resourceQuotaSchema>;
export type ResourceList = Record<string, QuantityValue>;

// pkg/apis/core/validation's messages.
const IS_NEGATIVE = 'must be greater than or equal to 0';
const IS_INVALID_QUOTA_RESOURCE = 'must be a standard resource for quota';
const IS_NOT_INTEGER = 'must be an integer';
const FIELD_IMMUTABLE = 'field is immutable';

// pkg/apis/core/helper's sets.
const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
]);
const STANDARD_RESOURCES = new Set([...STANDARD_QUOTA_RESOURCES, 'storage']);
const INTEGER_RESOURCES = new Set([
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);
const SCOPES = new Set([
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
  'VolumeAttributesClass',
]);
const POD_COUNT = new Set(['pods']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);
const PVC_RESOURCES = new Set(['persistentvolumeclaims', 'requests.storage']);
const EXISTS_ONLY_SCOPES = new Set(['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating']);
const CONFLICTING_SCOPES = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
] as const;

const isHugePages = (name: string) => name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');
const isStandardQuotaResourceName = (name: string) => STANDARD_QUOTA_RESOURCES.has(name) || isHugePages(name);

/** helper.IsExtendedResourceName: outside kubernetes.io, not requests.*, and a qualified name once prefixed by requests. */
function isExtendedResourceName(name: string): boolean {
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  if (native || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

/** helper.IsResourceQuotaScopeValidForResource. */
function scopeValidForResource(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return POD_COUNT.has(resource) || POD_COMPUTE.has(resource);
    case 'BestEffort':
      return POD_COUNT.has(resource);
    case 'VolumeAttributesClass':
      return PVC_RESOURCES.has(resource);
    default:
      return true;
  }
}

/** ValidateResourceQuotaResourceName (with validateResourceName before it). */
function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => fieldErrors.invalid(path, name, msg));
  if (errs.length) return errs;
  if (!name.includes('/')) {
    if (!STANDARD_RESOURCES.has(name) && !isHugePages(name))
      errs.push(fieldErrors.invalid(path, name, 'must be a standard resource type or fully qualified'));
    if (!isStandardQuotaResourceName(name)) errs.push(fieldErrors.invalid(path, name, IS_INVALID_QUOTA_RESOURCE));
  }
  return errs;
}

/** ValidateResourceQuantityValue, after the quantity parsed (kube fails an unparseable one while decoding; here it is a field error). */
function validateQuantity(name: string, value: QuantityValue, path: string): FieldError[] {
  let q: ReturnType<typeof parseQuantity>;
  try {
    q = parseQuantity(value);
  } catch (err) {
    return [fieldErrors.invalid(path, value, err instanceof Error ? err.message : String(err))];
  }
  const errs: FieldError[] = [];
  if (q.sign() < 0) errs.push(fieldErrors.invalid(path, canonicalQuantity(q), IS_NEGATIVE));
  // MilliValue() % 1000 != 0: a fraction. Kube prints the Quantity struct itself here; kapi prints its text.
  if (INTEGER_RESOURCES.has(name) || isExtendedResourceName(name)) {
    const whole = q.exponent >= 0 || q.mantissa % 10n ** BigInt(-q.exponent) === 0n;
    if (!whole) errs.push(fieldErrors.invalid(path, canonicalQuantity(q), IS_NOT_INTEGER));
  }
  return errs;
}

function validateResourceList(list: ResourceList | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(list ?? {})) {
    const p = `${path}[${k}]`;
    errs.push(...validateResourceName(k, p), ...validateQuantity(k, v, p));
  }
  return errs;
}

type Spec = NonNullable<ResourceQuota['spec']>;

/** validateResourceQuotaScopes. */
function validateScopes(spec: Spec): FieldError[] {
  const scopes = spec.scopes ?? [];
  if (scopes.length === 0) return [];
  const errs: FieldError[] = [];
  const hard = Object.keys(spec.hard ?? {}).sort();
  for (const scope of scopes) {
    if (!SCOPES.has(scope)) errs.push(fieldErrors.invalid('spec.scopes', scopes, 'unsupported scope'));
    for (const k of hard)
      if (isStandardQuotaResourceName(k) && !scopeValidForResource(scope, k))
        errs.push(fieldErrors.invalid('spec.scopes', scopes, 'unsupported scope applied to resource'));
  }
  for (const [a, b] of CONFLICTING_SCOPES)
    if (scopes.includes(a) && scopes.includes(b)) errs.push(fieldErrors.invalid('spec.scopes', scopes, 'conflicting scopes'));
  return errs;
}

/** validateScopeSelector: kube's paths carry no index of the expression. */
function validateScopeSelector(spec: Spec): FieldError[] {
  const selector = spec.scopeSelector;
  if (!selector) return [];
  const errs: FieldError[] = [];
  const path = 'spec.scopeSelector.matchExpressions';
  const hard = Object.keys(spec.hard ?? {}).sort();
  const seen = new Set<string>();
  for (const req of selector.matchExpressions ?? []) {
    if (!SCOPES.has(req.scopeName)) errs.push(fieldErrors.invalid(`${path}.scopeName`, req.scopeName, 'unsupported scope'));
    for (const k of hard)
      if (isStandardQuotaResourceName(k) && !scopeValidForResource(req.scopeName, k))
        errs.push(fieldErrors.invalid(path, selector, 'unsupported scope applied to resource'));
    if (EXISTS_ONLY_SCOPES.has(req.scopeName) && req.operator !== 'Exists')
      errs.push(
        fieldErrors.invalid(
          `${path}.operator`,
          req.operator,
          "must be 'Exist' only operator when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort and ResourceQuotaScopeNotBestEffort",
        ),
      );
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          errs.push(
            fieldErrors.required(`${path}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"),
          );
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length !== 0)
          errs.push(
            fieldErrors.invalid(
              `${path}.values`,
              values,
              "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
            ),
          );
        break;
      default:
        errs.push(fieldErrors.invalid(`${path}.operator`, req.operator, 'not a valid selector operator'));
    }
    seen.add(req.scopeName);
  }
  for (const [a, b] of CONFLICTING_SCOPES)
    if (seen.has(a) && seen.has(b)) errs.push(fieldErrors.invalid(path, spec.scopes ?? null, 'conflicting scopes'));
  return errs;
}

/** ValidateResourceQuotaSpec. */
function validateSpec(rq: ResourceQuota): FieldError[] {
  const spec = rq.spec ?? {};
  return [...validateResourceList(spec.hard, 'spec.hard'), ...validateScopes(spec), ...validateScopeSelector(spec)];
}

/** ValidateResourceQuotaStatus. */
function validateStatus(rq: ResourceQuota): FieldError[] {
  return [...validateResourceList(rq.status?.hard, 'status.hard'), ...validateResourceList(rq.status?.used, 'status.used')];
}

/** ValidateResourceQuotaUpdate: besides the spec's rules, the scopes may not change. */
function validateScopesUnchanged(rq: ResourceQuota, old: ResourceQuota): FieldError[] {
  const a = new Set(rq.spec?.scopes ?? []);
  const b = new Set(old.spec?.scopes ?? []);
  const same = a.size === b.size && [...a].every((s) => b.has(s));
  return same ? [] : [fieldErrors.invalid('spec.scopes', rq.spec?.scopes ?? null, FIELD_IMMUTABLE)];
}

/** Every ResourceList of the object in canonical form, as kube-apiserver writes a Quantity back ("1000" → "1k"). */
function canonicalize(rq: ResourceQuota): void {
  const lists = [rq.spec?.hard, rq.status?.hard, rq.status?.used];
  for (const list of lists) {
    if (!list) continue;
    for (const [k, v] of Object.entries(list)) list[k] = canonicalQuantity(parseQuantity(v));
  }
}

/** kube's printResourceQuota: `name: used/hard` of each hard resource, sorted; limits.* in the Limit column. */
function usageColumn(limits: boolean) {
  return (o: KubeObject): string => {
    const rq = o as ResourceQuota;
    const hard = rq.status?.hard ?? {};
    const used = rq.status?.used ?? {};
    const cells: string[] = [];
    for (const name of Object.keys(hard).sort()) {
      const parts = name.split('.');
      if ((parts.length > 1 && parts[0] === 'limits') !== limits) continue;
      const u = used[name];
      cells.push(`${name}: ${u === undefined ? '0' : String(u)}/${String(hard[name])}`);
    }
    return cells.join(', ');
  };
}

/**
 * core/v1 ResourceQuota with pkg/registry/core/resourcequota's strategy: created with an empty status, which only the
 * status subresource changes (the quota controller and quota admission write it); the scopes are immutable; unconditional
 * updates allowed; no generation.
 */
export const ResourceQuota = defineResource({
  group: '',
  kind: 'ResourceQuota',
  plural: 'resourcequotas',
  shortNames: ['quota'],
  namespaced: true,
  versions: [{ name: 'v1', schema: resourceQuotaSchema }],
  subresources: { status: true },
  printerColumns: [
    AGE_COLUMN,
    {
      name: 'Request',
      type: 'string',
      jsonPath: '.status',
      description: 'Request represents a minimum amount of cpu/memory that a container may consume.',
      value: usageColumn(false),
    },
    {
      name: 'Limit',
      type: 'string',
      jsonPath: '.status',
      description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
      value: usageColumn(true),
    },
  ],
  strategy: {
    prepareForCreate(_ctx, rq) {
      rq.status = {};
    },
    prepareForUpdate(_ctx, rq, old) {
      if (old.status === undefined) delete rq.status;
      else rq.status = structuredClone(old.status);
    },
    // Guarded: `scopes: 5` or `matchExpressions: [null]` is refused by the schema's type errors, not a 500.
    validate: (_ctx, rq) => guardedValidation(resourceQuotaSchema, rq, () => [...validateSpec(rq), ...validateStatus(rq)]),
    validateUpdate: (ctx, rq, old) =>
      guardedValidation(resourceQuotaSchema, rq, () =>
        ctx.subresource === 'status'
          ? validateStatus(rq)
          : [...validateSpec(rq), ...validateScopesUnchanged(rq, old), ...validateStatus(rq)],
      ),
    canonicalize,
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    allowUnconditionalUpdate: () => true,
  },
});
