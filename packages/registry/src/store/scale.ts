import {
  applyJsonPatch,
  applyMergePatch,
  checkJsonDepth,
  fieldErrors,
  isConflict,
  type KubeObject,
  newBadRequest,
  newInternalError,
  newInvalid,
  newUnsupportedMediaTypeMessage,
  StatusError,
  stringifyJson,
} from '@kapi/apimachinery';
import type { ScaleSubresource } from '../resource-definition.ts';
import { parseSimplePath } from '../simple-path.ts';
import { checkName } from './check-name.ts';
import type { Store } from './store.ts';
import type { PatchType, RequestContext } from './types.ts';

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

export interface ScaleUpdateOptions {
  /** Validate and return the result without storing it (dryRun=All). */
  dryRun?: boolean;
}

/** The Scale's GroupKind, as kube-apiserver names it in 422s of the scale subresource. */
const SCALE_KIND = { group: 'autoscaling', kind: 'Scale' };
const MIN_INT32 = -2147483648;
const MAX_INT32 = 2147483647;
/** scaleUpdatedObjectInfo's marker for "the object has no spec replicas": a patch must set them. */
const UNSET_SPEC_REPLICAS = MIN_INT32;
/** Patches re-read the object and re-apply when it changed under them, as guaranteedUpdate does, this often. */
const MAX_PATCH_ATTEMPTS = 10;

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
  // A missing spec.replicas is Go's zero value: the update scales to 0.
  const r = spec.replicas;
  if (r !== undefined && r !== null) {
    if (typeof r !== 'number' || !Number.isInteger(r) || r < MIN_INT32 || r > MAX_INT32)
      throw newBadRequest(`Scale.spec.replicas must be a 32-bit integer, got ${goValue(r)}`);
    out.replicas = r;
  }
  return out;
}

/** `{a: {b: value}}` for the steps ['a', 'b']. */
function nest(steps: readonly string[], value: unknown): Record<string, unknown> {
  let out: unknown = value;
  for (let i = steps.length - 1; i >= 0; i--) out = { [steps[i] as string]: out };
  return out as Record<string, unknown>;
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
    return this.#write(ctx, name, paths, req, opts);
  }

  /**
   * PATCH …/scale: the patch applies to the current Scale, and the result is written as update writes it. The
   * current resourceVersion rides along, so a concurrent write makes the attempt start over on the fresh object.
   */
  async patchScale(ctx: RequestContext, name: string, patch: unknown, type: PatchType, opts: ScaleUpdateOptions = {}): Promise<Scale> {
    const paths = this.#scale;
    if (type === 'apply') throw newUnsupportedMediaTypeMessage('apply-patch (server-side apply) is not supported yet');
    checkJsonDepth(patch, 'the patch');
    for (let attempt = 1; ; attempt++) {
      const current = await this.store.get(ctx, name);
      let old: ReturnType<typeof scaleFromObject>;
      try {
        old = scaleFromObject(current, paths);
      } catch (err) {
        throw newBadRequest(err instanceof Error ? err.message : String(err));
      }
      // Marks missing spec replicas, so a patch that leaves them alone is refused rather than scaling to 0.
      if (!old.specFound) old.scale.spec.replicas = UNSET_SPEC_REPLICAS;
      // Strategic merge of a Scale is a merge patch: it has no lists to merge by key.
      const patched = type === 'json' ? applyJsonPatch(old.scale, patch) : applyMergePatch(old.scale, patch);
      const req = decodeScale(patched);
      checkName(req.name, name);
      const ownPrecondition = req.resourceVersion === current.metadata.resourceVersion;
      try {
        return await this.#write(ctx, name, paths, req, opts);
      } catch (err) {
        // Only a conflict on the version this attempt read is retried; one the patch asked for is the client's.
        if (!(ownPrecondition && isConflict(err) && attempt < MAX_PATCH_ATTEMPTS)) throw err;
      }
    }
  }

  /** scaleUpdatedObjectInfo plus the Store's update: checks the Scale, then sets the spec replicas on the stored object. */
  async #write(ctx: RequestContext, name: string, paths: ScaleSubresource, req: ScaleRequest, opts: ScaleUpdateOptions): Promise<Scale> {
    if (req.replicas === UNSET_SPEC_REPLICAS) throw newBadRequest(`the spec replicas field "${paths.specReplicasPath}" cannot be empty`);
    if (req.replicas < 0)
      throw newInvalid(SCALE_KIND, name, [fieldErrors.invalid('spec.replicas', req.replicas, 'must be greater than or equal to 0')]);
    // A merge patch applied inside the Store's guaranteedUpdate: only the replicas change, on the freshest object,
    // and a resourceVersion in it makes the update conditional, as the Scale's precondition does in kube.
    const patch = nest(stepsOf(paths.specReplicasPath), req.replicas);
    if (req.resourceVersion) patch.metadata = { resourceVersion: req.resourceVersion };
    const res = await this.store.patch(ctx, name, patch, 'merge', opts.dryRun ? { dryRun: true } : {});
    try {
      return scaleFromObject(res.object, paths).scale;
    } catch (err) {
      throw newBadRequest(err instanceof Error ? err.message : String(err));
    }
  }
}
