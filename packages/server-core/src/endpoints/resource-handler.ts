import { once } from 'node:events';
import type { AdmissionAttributes, Operation } from '@kapi/admission';
import {
  type Clock,
  type KubeObject,
  newBadRequest,
  newUnsupportedMediaType,
  type ObjectList,
  type Status,
  type WatchEvent,
} from '@kapi/apimachinery';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from '@kapi/authn';
import {
  convertObject,
  type NamespaceRegistry,
  type PatchType,
  parseIncludeObject,
  type ResourceDefinition,
  type ScaleREST,
  type Store,
  type StoreDeleteOptions,
  type RequestContext as StoreRequestContext,
  type StoreWatchOptions,
  toTable,
  type WriteAdmission,
} from '@kapi/registry';
import type { Watch } from '@kapi/storage';
import { encodedEvent } from '@kapi/watchcache';
import { parse as parseYAML } from 'yaml';
import { readRequestBody } from '../filters/body-limit.ts';
import type { RequestContext } from '../filters/context.ts';
import { addWarning } from '../filters/warning.ts';
import type { RequestInfo } from '../request-info.ts';
import { bodyTypeOf, contentTypeOf, type NegotiatedOutput, negotiateOutput } from './negotiation.ts';
import { decodeKubernetesProtobuf, KUBERNETES_PROTOBUF } from './protobuf/codec.ts';
import { deleteOptionsOf, listOptionsOf, watchOptionsOf, writeOptionsOf } from './request-options.ts';
import { encodeBody, methodNotAllowed, pathNotFound, wantsPretty, writeObject } from './response.ts';

/** One served resource: its definition, its Store, and the REST pieces some kinds add. */
export interface ResourceEndpoint {
  readonly definition: ResourceDefinition;
  readonly store: Store;
  /** The scale subresource, when the definition has one. */
  readonly scale?: ScaleREST;
  /** Namespaces only: delete marks Terminating, and the finalize subresource. */
  readonly namespaces?: NamespaceRegistry;
}

/** The admission plugins a server runs (an AdmissionChain from @kapi/admission fits). */
export interface Admission {
  admit(attrs: AdmissionAttributes): Promise<void>;
  validate(attrs: AdmissionAttributes): Promise<void>;
}

export interface ResourceHandlerOptions {
  readonly admission?: Admission;
  readonly clock: Clock;
  /** A watch without timeoutSeconds ends after a random time in [min, 2·min) seconds, as kube-apiserver's. */
  readonly minRequestTimeoutSeconds: number;
  /** Told of every watch that starts and ends (metrics). */
  readonly onWatch?: (def: ResourceDefinition, version: string, delta: 1 | -1) => void;
  /** Told of the decoded request object and the response object (audit at Request/RequestResponse level). */
  readonly onObjects?: (ctx: RequestContext, objects: { requestObject?: unknown; responseObject?: unknown }) => void;
}

const ANONYMOUS: UserInfo = { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] };

const PATCH_TYPES: ReadonlyMap<string, PatchType> = new Map([
  ['json-patch', 'json'],
  ['merge-patch', 'merge'],
  ['strategic-merge-patch', 'strategic'],
  ['apply-patch', 'apply'],
]);

const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/**
 * Serves one resource request whose RequestInfo has already been resolved to `endpoint`: every verb, the status,
 * scale and (namespaces) finalize subresources, content negotiation (JSON, YAML, Table, PartialObjectMetadata)
 * and watch streams. Errors are thrown as StatusErrors for the chain to write.
 */
export async function handleResource(
  ctx: RequestContext,
  endpoint: ResourceEndpoint,
  info: RequestInfo,
  options: ResourceHandlerOptions,
): Promise<void> {
  const def = endpoint.definition;
  const sub = info.subresource;
  const allowed =
    sub === '' ||
    (sub === 'status' && def.subresources.status) ||
    (sub === 'scale' && endpoint.scale) ||
    (sub === 'finalize' && endpoint.namespaces);
  // No route for an unknown subresource (404); a known path without a route for the method is 405, as go-restful answers.
  if (!allowed) throw pathNotFound();
  const rctx: StoreRequestContext = info.namespace ? { namespace: info.namespace } : {};
  const q = ctx.url.searchParams;
  const respond = (code: number, value: unknown, out: NegotiatedOutput = negotiateOutput(ctx.req.headers.accept)): void => {
    options.onObjects?.(ctx, { responseObject: value });
    writeObject(ctx, code, value, out.mediaType);
  };

  switch (info.verb) {
    case 'get': {
      if (sub === 'scale' && endpoint.scale) return respond(200, await endpoint.scale.getScale(rctx, info.name));
      if (sub !== '' && sub !== 'status') throw methodNotAllowed();
      const out = negotiateOutput(ctx.req.headers.accept, { table: sub === '', partial: 'PartialObjectMetadata' });
      const rv = q.get('resourceVersion');
      const obj = await endpoint.store.get(rctx, info.name, {
        ...(rv !== null ? { resourceVersion: rv } : {}),
        ...storeVersion(info, out),
      });
      return respond(200, transform(def, obj, out, ctx, options.clock, false, info.apiVersion), out);
    }
    case 'list': {
      if (sub !== '') throw methodNotAllowed();
      const out = negotiateOutput(ctx.req.headers.accept, { table: true, partial: 'PartialObjectMetadataList' });
      const { watch: _w, ...listOpts } = listOptionsOf(q);
      const list = await endpoint.store.list(rctx, { ...listOpts, ...storeVersion(info, out) });
      return respond(200, transform(def, list, out, ctx, options.clock, false, info.apiVersion), out);
    }
    case 'watch':
      if (sub !== '') throw methodNotAllowed();
      return serveWatch(ctx, endpoint, info, rctx, options);
    case 'create': {
      if (sub !== '' || info.name) throw methodNotAllowed();
      const w = writeOptionsOf(q, 'CreateOptions');
      const body = await readObjectBody(ctx, def);
      options.onObjects?.(ctx, { requestObject: auditable(body) });
      const res = await endpoint.store.create(rctx, body, {
        version: info.apiVersion,
        dryRun: w.dryRun,
        ...(w.fieldValidation ? { fieldValidation: w.fieldValidation } : {}),
        admission: writeAdmission(ctx, def, info, w.dryRun, options),
      });
      for (const warning of res.warnings) addWarning(ctx, warning);
      return respond(201, res.object);
    }
    case 'update': {
      const w = writeOptionsOf(q, 'UpdateOptions');
      if (sub === 'scale' && endpoint.scale) {
        // ScaleREST takes the decoded Scale; JSON bodies arrive from readObjectBody as bytes.
        const raw = await readObjectBody(ctx, def);
        const body = raw instanceof Uint8Array ? parseJSONBody(raw) : raw;
        return respond(200, await endpoint.scale.updateScale(rctx, info.name, body, { dryRun: w.dryRun }));
      }
      const body = await readObjectBody(ctx, def);
      options.onObjects?.(ctx, { requestObject: auditable(body) });
      const common = { dryRun: w.dryRun, ...(w.fieldValidation ? { fieldValidation: w.fieldValidation } : {}) };
      if (sub === 'finalize' && endpoint.namespaces)
        return respond(200, (await endpoint.namespaces.finalize(info.name, body, common)).object);
      const res = await endpoint.store.update(rctx, info.name, body, {
        version: info.apiVersion,
        ...common,
        ...(sub === 'status' ? { subresource: 'status' as const } : {}),
        admission: writeAdmission(ctx, def, info, w.dryRun, options),
      });
      for (const warning of res.warnings) addWarning(ctx, warning);
      return respond(res.created ? 201 : 200, res.object);
    }
    case 'patch': {
      const w = writeOptionsOf(q, 'PatchOptions');
      const mediaType = contentTypeOf(ctx.req.headers['content-type']);
      const patchType = PATCH_TYPES.get(bodyTypeOf(mediaType) ?? '');
      if (!patchType) throw newUnsupportedMediaType(PATCH_MEDIA_TYPES);
      const raw = await readRequestBody(ctx);
      const patch = patchType === 'apply' ? parseYAMLBody(raw) : parseJSONBody(raw);
      options.onObjects?.(ctx, { requestObject: patch });
      if (sub === 'scale' && endpoint.scale)
        return respond(200, await endpoint.scale.patchScale(rctx, info.name, patch, patchType, { dryRun: w.dryRun }));
      if (sub !== '' && sub !== 'status') throw methodNotAllowed();
      const res = await endpoint.store.patch(rctx, info.name, patch, patchType, {
        version: info.apiVersion,
        dryRun: w.dryRun,
        ...(w.fieldValidation ? { fieldValidation: w.fieldValidation } : {}),
        ...(sub === 'status' ? { subresource: 'status' as const } : {}),
        admission: writeAdmission(ctx, def, info, w.dryRun, options),
      });
      for (const warning of res.warnings) addWarning(ctx, warning);
      return respond(200, res.object);
    }
    case 'delete': {
      if (sub !== '') throw methodNotAllowed();
      const opts = await admitDeletion(ctx, def, info, deleteOptionsOf(q, await readDeleteBody(ctx)), options);
      const res = endpoint.namespaces
        ? await endpoint.namespaces.delete(info.name, opts)
        : await endpoint.store.delete(rctx, info.name, { ...opts, version: info.apiVersion });
      // Built-in core kinds answer a finished delete with a Success Status; custom kinds (and namespaces) with the object.
      if (res.deleted && def.group === '' && !endpoint.namespaces) return respond(200, successStatus(def, res.object));
      return respond(200, res.object);
    }
    case 'deletecollection': {
      if (sub !== '' || endpoint.namespaces) throw methodNotAllowed();
      const { watch: _w, ...listOpts } = listOptionsOf(q);
      const del = await admitDeletion(ctx, def, info, deleteOptionsOf(q, await readDeleteBody(ctx)), options);
      const list = await endpoint.store.deleteCollection(rctx, { ...listOpts, version: info.apiVersion }, del);
      return respond(200, list);
    }
    default:
      throw methodNotAllowed();
  }
}

function successStatus(def: ResourceDefinition, obj: KubeObject): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: obj.metadata.name ?? '', kind: def.plural, ...(obj.metadata.uid ? { uid: obj.metadata.uid } : {}) },
  } as Status;
}

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
): AdmissionAttributes {
  return {
    operation,
    kind: { group: def.group, version: info.apiVersion, kind: def.kind },
    resource: { group: def.group, version: info.apiVersion, resource: def.plural },
    subresource: info.subresource,
    namespace: info.namespace,
    name: object?.metadata.name ?? oldObject?.metadata.name ?? info.name,
    object,
    oldObject,
    dryRun,
    userInfo: userOf(ctx),
  };
}

/** Runs one admission phase (mutating `admit` or `validate`) with the attributes of this request. */
async function runAdmission(
  phase: 'admit' | 'validate',
  ctx: RequestContext,
  def: ResourceDefinition,
  info: RequestInfo,
  op: Operation,
  dryRun: boolean,
  obj: KubeObject | null,
  old: KubeObject | null,
  options: ResourceHandlerOptions,
): Promise<void> {
  if (options.admission) await options.admission[phase](attributes(ctx, def, info, op, dryRun, obj, old));
}

/** Mutating admission of a DELETE (no objects, as kube passes), and the validating hook the Store runs on each object. */
async function admitDeletion(
  ctx: RequestContext,
  def: ResourceDefinition,
  info: RequestInfo,
  del: StoreDeleteOptions,
  options: ResourceHandlerOptions,
): Promise<StoreDeleteOptions> {
  if (!options.admission) return del;
  const dryRun = del.dryRun ?? false;
  await runAdmission('admit', ctx, def, info, 'DELETE', dryRun, null, null, options);
  return { ...del, validateDeletion: (current) => runAdmission('validate', ctx, def, info, 'DELETE', dryRun, null, current, options) };
}

/** The Store's admission hooks for one write: CREATE when there is no stored object, UPDATE otherwise. */
function writeAdmission(
  ctx: RequestContext,
  def: ResourceDefinition,
  info: RequestInfo,
  dryRun: boolean,
  options: ResourceHandlerOptions,
): WriteAdmission | undefined {
  if (!options.admission) return undefined;
  return {
    mutate: (obj, old) => runAdmission('admit', ctx, def, info, old ? 'UPDATE' : 'CREATE', dryRun, obj, old, options),
    validate: (obj, old) => runAdmission('validate', ctx, def, info, old ? 'UPDATE' : 'CREATE', dryRun, obj, old, options),
  };
}

function parseJSONBody(raw: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch (err) {
    throw newBadRequest(`error decoding patch: ${(err as Error).message}`);
  }
}

function parseYAMLBody(raw: Uint8Array): unknown {
  try {
    return parseYAML(Buffer.from(raw).toString('utf8'));
  } catch (err) {
    throw newBadRequest(`error decoding YAML: ${(err as Error).message}`);
  }
}

/** A request body as audit records it: raw JSON bytes parsed (only done when audit asked for objects). */
function auditable(body: Uint8Array | KubeObject): unknown {
  if (!(body instanceof Uint8Array)) return body;
  try {
    return JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A DeleteOptions body as JSON bytes (typed clients may send it as protobuf). */
async function readDeleteBody(ctx: RequestContext): Promise<Uint8Array> {
  const raw = await readRequestBody(ctx);
  if (raw.byteLength && contentTypeOf(ctx.req.headers['content-type']) === KUBERNETES_PROTOBUF)
    return Buffer.from(JSON.stringify(decodeKubernetesProtobuf(raw, { apiVersion: 'v1', kind: 'DeleteOptions' })));
  return raw;
}

/** A create/update body: raw JSON bytes for the Store (which detects duplicate fields), YAML decoded here. */
async function readObjectBody(ctx: RequestContext, def: ResourceDefinition): Promise<Uint8Array | KubeObject> {
  const mediaType = contentTypeOf(ctx.req.headers['content-type']);
  // kubectl's typed clients (create configmap, create namespace, …) send built-in kinds as Kubernetes protobuf.
  if (mediaType === KUBERNETES_PROTOBUF)
    return decodeKubernetesProtobuf(await readRequestBody(ctx), {
      apiVersion: def.group ? `${def.group}/${def.storageVersion.name}` : def.storageVersion.name,
      kind: def.kind,
    });
  const type = mediaType === '' ? 'json' : bodyTypeOf(mediaType);
  if (type !== 'json' && type !== 'yaml') throw newUnsupportedMediaType(['application/json', 'application/yaml', KUBERNETES_PROTOBUF]);
  const raw = await readRequestBody(ctx);
  if (type === 'json') return raw;
  const value = parseYAMLBody(raw);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw newBadRequest(`the object provided is unrecognized (must be of type ${def.kind})`);
  return value as KubeObject;
}

/**
 * The version the Store answers in: the request's, except for Tables, whose cells read the printer columns' fields
 * of the stored (storage version) object; transform converts their rows' objects to the request's version.
 */
function storeVersion(info: RequestInfo, out: NegotiatedOutput): { version?: string } {
  return out.target === 'Table' ? {} : { version: info.apiVersion };
}

/** The response body for a negotiated target: the object, a Table, or partial metadata. */
function transform(
  def: ResourceDefinition,
  value: KubeObject | ObjectList,
  out: NegotiatedOutput,
  ctx: RequestContext,
  clock: Clock,
  noHeaders = false,
  version?: string,
): unknown {
  switch (out.target) {
    case 'object':
      return value;
    case 'Table': {
      const include = parseIncludeObject(ctx.url.searchParams.get('includeObject') ?? undefined);
      if ('message' in include) throw newBadRequest(include.message);
      // A Table is built from stored objects (see storeVersion); includeObject=Object rows carry the request's version.
      const rowObject =
        version !== undefined && version !== def.storageVersion.name ? (o: KubeObject) => convertObject(def, o, version) : undefined;
      const table = toTable(def, value, { includeObject: include.policy, noHeaders, clock, ...(rowObject ? { rowObject } : {}) });
      // kube answers in the meta.k8s.io version asked for (kubectl ≤ 1.14 asked for v1beta1).
      return out.metaVersion === 'v1beta1' ? { ...table, apiVersion: 'meta.k8s.io/v1beta1' } : table;
    }
    case 'PartialObjectMetadata':
      return partial(value as KubeObject, `meta.k8s.io/${out.metaVersion ?? 'v1'}`);
    case 'PartialObjectMetadataList': {
      const list = value as ObjectList;
      const apiVersion = `meta.k8s.io/${out.metaVersion ?? 'v1'}`;
      return {
        apiVersion,
        kind: 'PartialObjectMetadataList',
        metadata: list.metadata,
        items: list.items.map((o) => partial(o, apiVersion)),
      };
    }
  }
}

function partial(obj: KubeObject, apiVersion: string): KubeObject {
  return { apiVersion, kind: 'PartialObjectMetadata', metadata: obj.metadata };
}

/**
 * A watch as a chunked stream of JSON lines, `{"type":…,"object":…}` each. Plain JSON events are written from the
 * watch cache's shared encoding (one encode per event for all watchers); Table and partial-metadata watches
 * transform each event. The stream ends on timeoutSeconds (or the server's randomized default), when the client
 * goes away, or when the server shuts down (which ends the response).
 */
async function serveWatch(
  ctx: RequestContext,
  endpoint: ResourceEndpoint,
  info: RequestInfo,
  rctx: StoreRequestContext,
  options: ResourceHandlerOptions,
): Promise<void> {
  const def = endpoint.definition;
  const q = ctx.url.searchParams;
  const out = negotiateOutput(ctx.req.headers.accept, { table: true, partial: 'PartialObjectMetadata', jsonOnly: true });
  const { watch: _w, limit: _l, continue: _c, ...listOpts } = listOptionsOf(q);
  const wopts = watchOptionsOf(q);
  // A watch of one object (…/watch/ns/widgets/name or a name in the path with ?watch) is a field selector on the name.
  if (info.name) {
    const byName = `metadata.name=${info.name}`;
    listOpts.fieldSelector = listOpts.fieldSelector ? `${listOpts.fieldSelector},${byName}` : byName;
  }
  const min = options.minRequestTimeoutSeconds;
  const timeoutSeconds = wopts.timeoutSeconds && wopts.timeoutSeconds > 0 ? wopts.timeoutSeconds : min * (1 + Math.random());
  const abort = new AbortController();
  const res = ctx.res;
  const onClose = (): void => abort.abort();
  res.on('close', onClose);
  // In the storage version the Store passes the watch cache's events through, so encodedEvent shares their bytes.
  const watchOpts: StoreWatchOptions = { ...listOpts, ...wopts, timeoutSeconds, signal: abort.signal, ...storeVersion(info, out) };
  let watch: Watch;
  try {
    watch = endpoint.store.watch(rctx, watchOpts);
  } catch (err) {
    res.off('close', onClose);
    throw err;
  }
  options.onWatch?.(def, info.apiVersion, 1);
  try {
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Cache-Control', 'no-cache, private');
    // Headers go out now: clients wait for them before they consider the watch established.
    res.flushHeaders();
    const pretty = wantsPretty(ctx);
    let first = true;
    for await (const ev of watch) {
      if (abort.signal.aborted || res.writableEnded || res.destroyed) break;
      let bytes: Uint8Array | string;
      if ((out.target === 'object' && !pretty) || ev.type === 'ERROR' || ev.type === 'BOOKMARK') {
        bytes = encodedEvent(ev);
      } else {
        const object = transform(def, ev.object as KubeObject, out, ctx, options.clock, !first, info.apiVersion);
        first = false;
        bytes = `${encodeBody({ type: ev.type, object } satisfies WatchEvent | { type: string; object: unknown }, 'application/json', false)}\n`;
      }
      if (!res.write(bytes)) {
        try {
          await once(res, 'drain', { signal: abort.signal });
        } catch {
          break;
        }
      }
    }
    if (!res.writableEnded && !res.destroyed) res.end();
  } finally {
    watch.stop();
    res.off('close', onClose);
    options.onWatch?.(def, info.apiVersion, -1);
  }
}
