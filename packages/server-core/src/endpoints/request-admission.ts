import type { AdmissionAttributes, Operation } from '@kapi/admission';
import type { GroupVersionKind, KubeObject } from '@kapi/apimachinery';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from '@kapi/authn';
import { convertObjects, type ResourceDefinition, type StoreDeleteOptions, type WriteAdmission } from '@kapi/registry';
import { addAuditAnnotation } from '../audit/context.ts';
import type { RequestContext } from '../filters/context.ts';
import { addWarning } from '../filters/warning.ts';
import type { RequestInfo } from '../request-info.ts';
import type { ResourceHandlerOptions } from './resource-handler.ts';

/** Admission attributes of a REST request, and the hooks the Store runs them through. */

const ANONYMOUS: UserInfo = { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] };

function userOf(ctx: RequestContext): UserInfo {
  return ctx.user ?? ANONYMOUS;
}

function attributes(
  ctx: RequestContext,
  def: ResourceDefinition,
  info: RequestInfo,
  operation: Operation,
  dryRun: boolean,
  object: KubeObject | null,
  oldObject: KubeObject | null,
  kind: GroupVersionKind = { group: def.group, version: info.apiVersion, kind: def.kind },
  del?: StoreDeleteOptions,
): AdmissionAttributes {
  // Other versions are the resource's own: a subresource of another kind (autoscaling/v1 Scale) has none to offer.
  const versions = kind.kind === def.kind && kind.group === def.group ? versionsOf(def) : undefined;
  return {
    operation,
    kind,
    resource: { group: def.group, version: info.apiVersion, resource: def.plural },
    subresource: info.subresource,
    namespace: info.namespace,
    // A subresource is named by its parent's path (a TokenRequest or Scale body may carry no name), as in kube.
    name: info.subresource ? info.name : (object?.metadata?.name ?? oldObject?.metadata?.name ?? info.name),
    object,
    oldObject,
    dryRun,
    userInfo: userOf(ctx),
    ...(versions ? { versions } : {}),
    ...requestAdmissionFields(ctx, operation, del),
  };
}

/**
 * The attributes' fields that come from the request itself: its options as kube passes them, and the hooks that
 * warn the client (Warning header) and annotate the request's audit event. For handlers that build their own
 * attributes (virtual resources).
 */
export function requestAdmissionFields(
  ctx: RequestContext,
  operation: Operation,
  del?: StoreDeleteOptions,
): Pick<AdmissionAttributes, 'operationOptions' | 'annotate' | 'warn'> {
  const options = operationOptionsOf(ctx, operation, del);
  return {
    ...(options ? { operationOptions: options } : {}),
    annotate: (key, value) => addAuditAnnotation(ctx, key, value),
    warn: (message) => addWarning(ctx, message),
  };
}

/**
 * The request's options as kube hands them to admission (AdmissionReview's request.options): CreateOptions for a
 * CREATE and UpdateOptions for an UPDATE, whichever the verb (kube converts a PATCH's PatchOptions, and the
 * CreateOptions of an update or apply that creates, with patchToUpdateOptions / updateToCreateOptions, so `force` is
 * not among them), from the query, which the handler has already validated; DeleteOptions for a DELETE, as decoded.
 */
function operationOptionsOf(ctx: RequestContext, operation: Operation, del?: StoreDeleteOptions): Record<string, unknown> | undefined {
  const meta = { apiVersion: 'meta.k8s.io/v1' };
  if (operation === 'DELETE') {
    const d = del ?? {};
    return {
      kind: 'DeleteOptions',
      ...meta,
      ...(d.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: d.gracePeriodSeconds } : {}),
      ...(d.preconditions ? { preconditions: { ...d.preconditions } } : {}),
      ...(d.propagationPolicy ? { propagationPolicy: d.propagationPolicy } : {}),
      ...(d.dryRun ? { dryRun: ['All'] } : {}),
    };
  }
  if (operation !== 'CREATE' && operation !== 'UPDATE') return undefined;
  const q = ctx.url.searchParams;
  const dryRun = q.getAll('dryRun');
  const fieldManager = q.get('fieldManager');
  const fieldValidation = q.get('fieldValidation');
  return {
    kind: operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions',
    ...meta,
    ...(dryRun.length ? { dryRun } : {}),
    ...(fieldManager ? { fieldManager } : {}),
    ...(fieldValidation ? { fieldValidation } : {}),
  };
}

const versionsByDef = new WeakMap<ResourceDefinition, NonNullable<AdmissionAttributes['versions']>>();

/** The kind's served versions and a converter between them (the Store's own conversion, through the hub); one per kind. */
function versionsOf(def: ResourceDefinition): NonNullable<AdmissionAttributes['versions']> {
  let versions = versionsByDef.get(def);
  if (!versions) {
    versions = {
      served: def.versions.filter((v) => v.served).map((v) => v.name),
      async convert(obj, version) {
        const out = await convertObjects(def, [obj], version, false);
        return out[0] as KubeObject;
      },
    };
    versionsByDef.set(def, versions);
  }
  return versions;
}

/** Runs one admission phase (mutating `admit` or `validate`) with the attributes of this request. */
export async function runAdmission(
  phase: 'admit' | 'validate',
  ctx: RequestContext,
  def: ResourceDefinition,
  info: RequestInfo,
  op: Operation,
  dryRun: boolean,
  obj: KubeObject | null,
  old: KubeObject | null,
  options: ResourceHandlerOptions,
  del?: StoreDeleteOptions,
): Promise<void> {
  if (options.admission) await options.admission[phase](attributes(ctx, def, info, op, dryRun, obj, old, undefined, del));
}

/** Mutating admission of a DELETE (no objects, as kube passes), and the validating hook the Store runs on each object. */
export async function admitDeletion(
  ctx: RequestContext,
  def: ResourceDefinition,
  info: RequestInfo,
  del: StoreDeleteOptions,
  options: ResourceHandlerOptions,
): Promise<StoreDeleteOptions> {
  if (!options.admission) return del;
  const dryRun = del.dryRun ?? false;
  await runAdmission('admit', ctx, def, info, 'DELETE', dryRun, null, null, options, del);
  return {
    ...del,
    validateDeletion: (current) => runAdmission('validate', ctx, def, info, 'DELETE', dryRun, null, current, options, del),
  };
}

/**
 * The Store's hooks for one write, CREATE when there is no stored object and UPDATE otherwise: mutating admission
 * and then the resource's write checks before the strategy sees the object, validating admission on the final one.
 * The checks run where kube's policy-based REST wrappers do (Create before the storage create, Update in the updated
 * object's function): on the object as sent or patched and mutated, before the kind's validation, so a write both
 * invalid and refused is a 403, not a 422; on every retry of an update. None when there is neither admission nor a check.
 */
export function writeAdmission(
  ctx: RequestContext,
  def: ResourceDefinition,
  info: RequestInfo,
  dryRun: boolean,
  options: ResourceHandlerOptions,
): WriteAdmission | undefined {
  const admission = admissionHooks(ctx, def, info, dryRun, options);
  const checks = writeCheckHooks(ctx, def, info, dryRun, options);
  if (!admission || !checks) return admission ?? checks;
  return {
    async mutate(obj, old) {
      await admission.mutate?.(obj, old);
      await checks.mutate?.(obj, old);
    },
    ...(admission.validate ? { validate: admission.validate } : {}),
  };
}

/**
 * Mutating and validating admission of one write, with the attributes of this request and `kind` (default the
 * parent's; a subresource of its own kind, e.g. autoscaling/v1 Scale, is admitted as that kind): objects are of that
 * kind. None without admission.
 */
export function admissionHooks(
  ctx: RequestContext,
  def: ResourceDefinition,
  info: RequestInfo,
  dryRun: boolean,
  options: ResourceHandlerOptions,
  kind?: GroupVersionKind,
): WriteAdmission | undefined {
  const admission = options.admission;
  if (!admission) return undefined;
  const attrs = (obj: KubeObject, old: KubeObject | null): AdmissionAttributes =>
    attributes(ctx, def, info, old ? 'UPDATE' : 'CREATE', dryRun, obj, old, kind);
  return {
    mutate: (obj, old) => admission.admit(attrs(obj, old)),
    validate: (obj, old) => admission.validate(attrs(obj, old)),
  };
}

/**
 * The resource's write checks as a mutate hook on its own objects (the parent's kind in the attributes, this request's
 * subresource). None when the resource has none.
 */
export function writeCheckHooks(
  ctx: RequestContext,
  def: ResourceDefinition,
  info: RequestInfo,
  dryRun: boolean,
  options: ResourceHandlerOptions,
): WriteAdmission | undefined {
  const checks = options.writeChecks?.get(def) ?? [];
  if (!checks.length) return undefined;
  return {
    async mutate(obj, old) {
      // Attributes made afresh for each: admission before may have changed the object's name.
      for (const c of checks) await c.check(attributes(ctx, def, info, old ? 'UPDATE' : 'CREATE', dryRun, obj, old));
    },
  };
}
