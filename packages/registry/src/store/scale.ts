import {
  applyJsonPatch,
  applyMergePatch,
  checkJsonDepth,
  copyJson,
  type FieldError,
  fieldErrors,
  formatAPIVersionKind,
  fromOpenAPI,
  type KubeObject,
  newBadRequest,
  newInternalError,
  newInvalid,
  StatusError,
  stringifyJson,
  type TypedSchema,
  ValidationErrors,
  validateTyped,
} from '@kapi/apimachinery';
import { withTypeAndObjectMeta } from '../managed-fields/typed-schema.ts';
import type { ScaleSubresource } from '../resource-definition.ts';
import { parseSimplePath } from '../simple-path.ts';
import { objectMetaTypeErrors } from '../validate-object-meta.ts';
import { checkName } from './check-name.ts';
import { checkScalePatchFields, type ScalePatchValidation } from './scale-field-validation.ts';
import type { Store } from './store.ts';
import type { PatchType, RequestContext, WriteAdmission } from './types.ts';

/** autoscaling/v1 Scale, as the scale subresource serves it. */
export interface Scale {
  apiVersion: 'autoscaling/v1';
  kind: 'Scale';
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp?: string;
  };
  spec: { replicas: number };
  status: { replicas: number; selector?: string };
}

export interface ScaleUpdateOptions extends ScalePatchValidation {
  /** Validate and return the result without storing it (dryRun=All). */
  dryRun?: boolean;
  /** The manager recorded in the parent's managedFields for the replicas it sets (subresource "scale"). */
  fieldManager?: string;
  /** An apply patch takes the replicas from other managers instead of a conflict (PatchOptions.force). */
  force?: boolean;
  /**
   * Admission of the Scale, as kube admits a scale write (kind autoscaling/v1 Scale): `mutate` sees the Scale asked
   * for (the body, or the patch applied to the current Scale) and the current Scale, and may change the first; its
   * replicas are then set on the object. `validate` sees the Scale of the object about to be stored, after the
   * kind's strategy and validation, and the current one. Both run inside the update, on every retry; the current
   * Scale of an object without spec replicas reads replicas -2147483648.
   */
  admission?: WriteAdmission;
  /**
   * Hooks on the parent object itself (e.g. its kind's write checks): `mutate` on the object the Scale changed,
   * before the kind's strategy; `validate` on the object about to be stored.
   */
  objectAdmission?: WriteAdmission;
}

/** The Scale's GroupKind, as kube-apiserver names it in 422s of the scale subresource. */
const SCALE_KIND = { group: 'autoscaling', kind: 'Scale' };
const MIN_INT32 = -2147483648;
const MAX_INT32 = 2147483647;
/** scaleUpdatedObjectInfo's marker for "the object has no spec replicas": a patch must set them. */
const UNSET_SPEC_REPLICAS = MIN_INT32;

/** What a scale request against a kind without the subresource gets: the route does not exist. */
function noScaleSubresource(): StatusError {
  return new StatusError({ code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', details: {} });
}

/** Go's %T of a decoded JSON value, for accessor errors worded as unstructured.NestedInt64/NestedString word them. */
function goType(v: unknown): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    default:
      return 'map[string]interface {}';
  }
}

function goValue(v: unknown): string {
  if (v === null) return '<nil>';
  return typeof v === 'object' ? stringifyJson(v) : String(v);
}

type Lookup = { found: false } | { found: true; value: unknown };

/** unstructured.NestedFieldNoCopy over a simple path: a missing step or a non-object on the way means not found. */
function lookup(obj: unknown, steps: readonly string[]): Lookup {
  let v: unknown = obj;
  for (const step of steps) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, step)) return { found: false };
    v = (v as Record<string, unknown>)[step];
  }
  return { found: true, value: v };
}

function stepsOf(path: string): string[] {
  // defineResource checked the paths; a broken one here is a programming error.
  const steps = parseSimplePath(path);
  if (!steps) throw new Error(`scale path ${JSON.stringify(path)} is not a simple JSONPath`);
  return steps;
}

/** unstructured.NestedInt64: undefined when missing, an Error when present but not an integer. */
function nestedInt(obj: unknown, path: string): number | undefined {
  const r = lookup(obj, stepsOf(path));
  if (!r.found) return undefined;
  if (typeof r.value !== 'number' || !Number.isInteger(r.value))
    throw new Error(`${path} accessor error: ${goValue(r.value)} is of the type ${goType(r.value)}, expected int64`);
  return r.value;
}

function nestedString(obj: unknown, path: string): string {
  const r = lookup(obj, stepsOf(path));
  if (!r.found) return '';
  if (typeof r.value !== 'string')
    throw new Error(`${path} accessor error: ${goValue(r.value)} is of the type ${goType(r.value)}, expected string`);
  return r.value;
}

/**
 * apiextensions-apiserver's ValidateScaleSpec and ValidateScaleStatus (the custom resource strategy's): the fields
 * the scale subresource reads must be what it can read — replicas integers in 0..MaxInt32, the selector a string —
 * or the write is refused with a 422 on that path, so that reading the object's Scale never fails afterwards.
 */
export function validateScaleFields(obj: KubeObject, scale: ScaleSubresource, parts: { spec: boolean; status: boolean }): FieldError[] {
  const errs: FieldError[] = [];
  const replicas = (path: string): void => {
    let n: number | undefined;
    try {
      n = nestedInt(obj, path);
    } catch (e) {
      // NestedInt64 answers 0 with its error.
      errs.push(fieldErrors.invalid(path, 0, (e as Error).message));
      return;
    }
    if (n === undefined) return;
    if (n < 0) errs.push(fieldErrors.invalid(path, n, 'should be a non-negative integer'));
    else if (n > MAX_INT32) errs.push(fieldErrors.invalid(path, n, `should be less than or equal to ${MAX_INT32}`));
  };
  if (parts.spec) replicas(scale.specReplicasPath);
  if (parts.status) {
    replicas(scale.statusReplicasPath);
    if (scale.labelSelectorPath) {
      try {
        nestedString(obj, scale.labelSelectorPath);
      } catch (e) {
        errs.push(fieldErrors.invalid(scale.labelSelectorPath, '', (e as Error).message));
      }
    }
  }
  return errs;
}

/**
 * The Scale of `obj` (scaleFromCustomResource): missing status replicas read 0, a missing selector path or value
 * reads "", and `specFound` tells whether the spec replicas exist (their absence reads 0 here, callers decide).
 * Throws a plain Error when a field has the wrong type.
 */
export function scaleFromObject(obj: KubeObject, scale: ScaleSubresource): { scale: Scale; specFound: boolean } {
  const spec = nestedInt(obj, scale.specReplicasPath);
  const status = nestedInt(obj, scale.statusReplicasPath) ?? 0;
  const selector = scale.labelSelectorPath ? nestedString(obj, scale.labelSelectorPath) : '';
  const m = obj.metadata;
  const metadata: Scale['metadata'] = {};
  if (m.name !== undefined) metadata.name = m.name;
  if (m.namespace) metadata.namespace = m.namespace;
  if (m.uid) metadata.uid = m.uid;
  if (m.resourceVersion) metadata.resourceVersion = m.resourceVersion;
  if (m.creationTimestamp) metadata.creationTimestamp = m.creationTimestamp;
  return {
    scale: {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata,
      // Go's int32 conversion; stored values are validated into range on their own writes.
      spec: { replicas: spec ?? 0 },
      status: selector ? { replicas: status, selector } : { replicas: status },
    },
    specFound: spec !== undefined,
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What the request body decodes to: a Scale's replicas and the metadata that bear on the update. */
interface ScaleRequest {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  replicas: number;
}

/** Decoding a Scale body into autoscaling/v1 Scale: wrong kinds and wrongly typed fields are 400s. */
function decodeScale(body: unknown): ScaleRequest {
  if (!isRecord(body)) throw newBadRequest('the body of a Scale request must be a JSON object');
  if ((body.apiVersion !== undefined && body.apiVersion !== 'autoscaling/v1') || (body.kind !== undefined && body.kind !== 'Scale'))
    throw newBadRequest(`the body must be an autoscaling/v1 Scale, got ${String(body.apiVersion)}, Kind=${String(body.kind)}`);
  const meta = body.metadata ?? {};
  const spec = body.spec ?? {};
  if (!isRecord(meta) || !isRecord(spec)) throw newBadRequest('Scale.metadata and Scale.spec must be objects');
  const out: ScaleRequest = { replicas: 0 };
  for (const k of ['name', 'namespace', 'resourceVersion'] as const) {
    const v = meta[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') throw newBadRequest(`Scale.metadata.${k} must be a string, got ${goType(v)}`);
    if (v) out[k] = v;
  }
  // The rest of a Scale is read back from the object, never taken from the body, but Go decodes it all the same.
  const metaError = objectMetaTypeErrors(meta)[0];
  if (metaError) throw newBadRequest(`Scale.${metaError.field}: ${metaError.detail}`);
  const status = body.status;
  if (status !== undefined && status !== null) {
    if (!isRecord(status)) throw newBadRequest(`Scale.status must be an object, got ${goType(status)}`);
    checkInt32('status.replicas', status.replicas);
    if (status.selector !== undefined && status.selector !== null && typeof status.selector !== 'string')
      throw newBadRequest(`Scale.status.selector must be a string, got ${goType(status.selector)}`);
  }
  // A missing spec.replicas is Go's zero value: the update scales to 0.
  const r = spec.replicas;
  if (checkInt32('spec.replicas', r)) out.replicas = r;
  return out;
}

/** Whether `v` is a Go int32 (false for null or absent, which decode as 0); a 400 for anything else. */
function checkInt32(field: string, v: unknown): v is number {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < MIN_INT32 || v > MAX_INT32)
    throw newBadRequest(`Scale.${field} must be a 32-bit integer, got ${goValue(v)}`);
  return true;
}

/**
 * The scale subresource of a kind, over its Store: autoscaling/v1 Scale read from and written to the fields the
 * definition's `subresources.scale` names, after apiextensions-apiserver's ScaleREST. Writes go through the Store's
 * update flow (strategy, validation, generation), changing only the spec replicas.
 */
export class ScaleREST<T extends KubeObject = KubeObject> {
  readonly store: Store<T>;

  constructor(store: Store<T>) {
    this.store = store;
  }

  get #scale(): ScaleSubresource {
    const scale = this.store.definition.subresources.scale;
    if (!scale) throw noScaleSubresource();
    return scale;
  }

  /** GET …/scale. 500 when the object has no spec replicas (kube: "the spec replicas field … does not exist"). */
  async getScale(ctx: RequestContext, name: string): Promise<Scale> {
    const paths = this.#scale;
    const obj = await this.store.get(ctx, name);
    let res: ReturnType<typeof scaleFromObject>;
    try {
      res = scaleFromObject(obj, paths);
    } catch (err) {
      throw newInternalError(err);
    }
    if (!res.specFound) throw newInternalError(new Error(`the spec replicas field "${paths.specReplicasPath}" does not exist`));
    return res.scale;
  }

  /**
   * PUT …/scale: sets the spec replicas to the Scale's. A resourceVersion in the Scale makes the write conditional
   * (409 when stale); without one the current object is scaled whatever its version.
   */
  async updateScale(ctx: RequestContext, name: string, body: unknown, opts: ScaleUpdateOptions = {}): Promise<Scale> {
    const paths = this.#scale;
    const req = decodeScale(body);
    checkName(req.name, name);
    if (req.namespace && ctx.namespace && req.namespace !== ctx.namespace)
      throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
    const requested = scaleObject(body as Record<string, unknown>);
    return this.#write(ctx, name, paths, () => copyJson(requested), opts);
  }

  /**
   * PATCH …/scale: the patch applies to the current Scale, read afresh on every try of the update, and the result
   * is written as update writes it.
   */
  async patchScale(ctx: RequestContext, name: string, patch: unknown, type: PatchType, opts: ScaleUpdateOptions = {}): Promise<Scale> {
    const paths = this.#scale;
    checkJsonDepth(patch, 'the patch');
    if (type === 'apply') return this.#apply(ctx, name, paths, patch, opts);
    // Strategic merge of a Scale is a merge patch: it has no lists to merge by key.
    return this.#write(
      ctx,
      name,
      paths,
      (current) => {
        const scale = type === 'json' ? applyJsonPatch(current, patch) : applyMergePatch(current, patch);
        checkScalePatchFields(scale, patch, type, opts);
        return scale;
      },
      opts,
    );
  }

  /**
   * PATCH …/scale with an apply patch (an autoscaling/v1 Scale): its replicas set as a write would set them, owned by
   * the applier in the parent's managedFields (subresource scale, at the spec replicas path), conflicting with
   * another manager of the replicas unless forced. A Scale without spec.replicas leaves them as they are.
   */
  async #apply(ctx: RequestContext, name: string, paths: ScaleSubresource, patch: unknown, opts: ScaleUpdateOptions): Promise<Scale> {
    if (!isRecord(patch)) throw newBadRequest('error decoding patch: the patch is not a JSON or YAML object');
    if (patch.apiVersion !== 'autoscaling/v1' || patch.kind !== 'Scale')
      throw newBadRequest(`invalid object type: ${formatAPIVersionKind(patch.apiVersion, patch.kind)}`);
    // Typed as an autoscaling/v1 Scale, as kube's scale field manager types it: an undeclared field is refused.
    const errors = validateTyped(scaleTyped(), patch);
    if (errors.length) {
      const m = isRecord(patch.metadata) ? patch.metadata : {};
      throw newBadRequest(
        `failed to create typed patch object (${String(m.namespace ?? '')}/${String(m.name ?? '')}; autoscaling/v1, Kind=Scale): ${new ValidationErrors(errors).message}`,
      );
    }
    const spec = isRecord(patch.spec) ? patch.spec : {};
    const replicas = spec.replicas;
    if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas)))
      throw newBadRequest('error decoding patch: spec.replicas must be an integer');
    const steps = stepsOf(paths.specReplicasPath);
    return this.#write(
      ctx,
      name,
      paths,
      (current) => {
        const meta = isRecord(patch.metadata) ? patch.metadata : {};
        return { ...current, metadata: { ...current.metadata, ...meta }, spec: { replicas: replicas ?? current.spec.replicas } };
      },
      opts,
      (obj) => {
        const config: Record<string, unknown> = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name: obj.metadata.name } };
        if (replicas !== undefined) setNested(config as KubeObject, steps, nestedInt(obj, paths.specReplicasPath));
        return config;
      },
    );
  }

  /**
   * scaleUpdatedObjectInfo inside the Store's update (kube's ScaleREST.Update): on the freshest object, the Scale asked
   * for is computed from the current one, admitted, checked, and its replicas (and resourceVersion, a precondition)
   * set on the object; the kind's strategy and validation follow, then validating admission of the resulting Scale.
   */
  async #write(
    ctx: RequestContext,
    name: string,
    paths: ScaleSubresource,
    requested: (current: Scale) => unknown,
    opts: ScaleUpdateOptions,
    scaleApply?: (obj: KubeObject) => Record<string, unknown>,
  ): Promise<Scale> {
    const scaleOf = (obj: KubeObject): Scale => {
      try {
        return scaleFromObject(obj, paths).scale;
      } catch (err) {
        throw newBadRequest(err instanceof Error ? err.message : String(err));
      }
    };
    const admission: WriteAdmission = {
      mutate: async (obj, old) => {
        // Store.patch answers 404 for a missing object before it admits anything.
        const stored = old as KubeObject;
        const current = scaleOf(stored);
        // Marks missing spec replicas, so a write that leaves them alone is refused rather than scaling to 0.
        if (!nestedIntFound(stored, paths.specReplicasPath)) current.spec.replicas = UNSET_SPEC_REPLICAS;
        const asked = requested(copyJson(current));
        checkName(decodeScale(asked).name, name);
        const scale = scaleObject(asked as Record<string, unknown>);
        await opts.admission?.mutate?.(scale as unknown as KubeObject, current as unknown as KubeObject);
        const req = decodeScale(scale);
        checkName(req.name, name);
        if (req.replicas === UNSET_SPEC_REPLICAS)
          throw newBadRequest(`the spec replicas field "${paths.specReplicasPath}" cannot be empty`);
        if (req.replicas < 0)
          throw newInvalid(SCALE_KIND, name, [fieldErrors.invalid('spec.replicas', req.replicas, 'must be greater than or equal to 0')]);
        setNested(obj, stepsOf(paths.specReplicasPath), req.replicas);
        // The Scale's resourceVersion is the update's precondition (409 when stale), as in kube.
        if (req.resourceVersion) obj.metadata.resourceVersion = req.resourceVersion;
        await opts.objectAdmission?.mutate?.(obj, old);
      },
      validate: async (obj, old) => {
        await opts.objectAdmission?.validate?.(obj, old);
        if (opts.admission?.validate)
          await opts.admission.validate(scaleOf(obj) as unknown as KubeObject, old && (scaleOf(old) as unknown as KubeObject));
      },
    };
    // An empty merge patch: the object as stored (its resourceVersion making the try conditional on the state read),
    // which the hooks above change.
    const res = await this.store.patch(ctx, name, {}, 'merge', {
      ...(opts.dryRun ? { dryRun: true } : {}),
      admission,
      subresource: 'scale',
      fieldManager: opts.fieldManager ?? '',
      ...(scaleApply ? { scaleApply, force: opts.force ?? false } : {}),
    });
    return scaleOf(res.object);
  }
}

/** Whether the object has an integer at a path (scaleFromObject has already refused other types there). */
function nestedIntFound(obj: KubeObject, path: string): boolean {
  return nestedInt(obj, path) !== undefined;
}

/** unstructured.SetNestedField: sets a value at a path, making (or replacing non-object) steps on the way objects. */
function setNested(obj: KubeObject, steps: readonly string[], value: unknown): void {
  let at = obj as unknown as Record<string, unknown>;
  for (const step of steps.slice(0, -1)) {
    const next = at[step];
    if (!isRecord(next)) at[step] = {};
    at = at[step] as Record<string, unknown>;
  }
  at[steps[steps.length - 1] as string] = value;
}

/**
 * The Scale a write body or patched Scale stands for, as kube decodes it into autoscaling/v1 Scale: apiVersion and
 * kind set, metadata as sent, spec.replicas as sent or 0, status as sent or replicas 0. decodeScale checked its types.
 */
function scaleObject(body: Record<string, unknown>): Scale {
  const spec = isRecord(body.spec) ? body.spec : {};
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : 0;
  const status = isRecord(body.status) ? (copyJson(body.status) as Scale['status']) : { replicas: 0 };
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: isRecord(body.metadata) ? (copyJson(body.metadata) as Scale['metadata']) : {},
    spec: { replicas },
    status,
  };
}

let scaleTypedSchema: TypedSchema | undefined;

/** autoscaling/v1 Scale as a typed schema (kube's OpenAPI of it, with ObjectMeta), built on first use. */
function scaleTyped(): TypedSchema {
  scaleTypedSchema ??= fromOpenAPI(
    withTypeAndObjectMeta({
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' } } },
        status: {
          type: 'object',
          properties: { replicas: { type: 'integer', format: 'int32' }, selector: { type: 'string' } },
        },
      },
    }),
  );
  return scaleTypedSchema;
}
