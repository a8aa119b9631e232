import type { AdmissionAttributes } from '@kapi/admission';
import { type Clock, type KubeObject, newUnsupportedMediaType, type Status } from '@kapi/apimachinery';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER } from '@kapi/authn';
import type {
  NamespaceRegistry,
  PatchType,
  ResourceDefinition,
  ScaleREST,
  Store,
  RequestContext as StoreRequestContext,
} from '@kapi/registry';
import { readRequestBody } from '../filters/body-limit.ts';
import type { RequestContext } from '../filters/context.ts';
import { addWarning } from '../filters/warning.ts';
import type { RequestInfo } from '../request-info.ts';
import type { WriteCheck } from '../server/api-provider.ts';
import { bodyTypeOf, contentTypeOf, type NegotiatedOutput, negotiateOutput } from './negotiation.ts';
import { storeVersion, transform } from './output-transform.ts';
import { admitDeletion, writeAdmission } from './request-admission.ts';
import { auditable, parseJSONBody, parseYAMLBody, readDeleteBody, readObjectBody } from './request-body.ts';
import { deleteOptionsOf, listOptionsOf, writeOptionsOf } from './request-options.ts';
import { methodNotAllowed, pathNotFound, writeObject } from './response.ts';
import type { SubresourceCreater } from './subresource-creater.ts';
import { readKindBody } from './virtual-handler.ts';
import { serveWatch } from './watch-stream.ts';

/** One served resource: its definition, its Store, and the REST pieces some kinds add. */
export interface ResourceEndpoint {
  readonly definition: ResourceDefinition;
  readonly store: Store;
  /** The scale subresource, when the definition has one. */
  readonly scale?: ScaleREST;
  /** Namespaces only: delete marks Terminating, and the finalize subresource. */
  readonly namespaces?: NamespaceRegistry;
  /** Create-only subresources by name (e.g. serviceaccounts' `token`). */
  readonly creaters?: ReadonlyMap<string, SubresourceCreater>;
  /** Aborted when the resource stops being served (GenericAPIServer.removeResource): its watch streams end cleanly. */
  readonly removed?: AbortSignal;
}

/** The admission plugins a server runs (an AdmissionChain from @kapi/admission fits). */
export interface Admission {
  admit(attrs: AdmissionAttributes): Promise<void>;
  validate(attrs: AdmissionAttributes): Promise<void>;
}

export interface ResourceHandlerOptions {
  readonly admission?: Admission;
  /** The checks on each served kind's writes (from the server's providers), run even without admission. */
  readonly writeChecks?: ReadonlyMap<ResourceDefinition, readonly WriteCheck[]>;
  readonly clock: Clock;
  /** A watch without timeoutSeconds ends after a random time in [min, 2·min) seconds, as kube-apiserver's. */
  readonly minRequestTimeoutSeconds: number;
  /** Told of every watch that starts and ends (metrics). */
  readonly onWatch?: (def: ResourceDefinition, version: string, delta: 1 | -1) => void;
  /** Told of the decoded request object and the response object (audit at Request/RequestResponse level). */
  readonly onObjects?: (ctx: RequestContext, objects: { requestObject?: unknown; responseObject?: unknown }) => void;
}

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
  const verbs = routeVerbs(endpoint, info);
  // No route for an unknown subresource (404); a known path without a route for the method is 405, as go-restful
  // answers before reading anything of the request.
  if (!verbs) throw pathNotFound();
  if (!verbs.has(info.verb)) throw methodNotAllowed();
  const rctx: StoreRequestContext = info.namespace ? { namespace: info.namespace } : {};
  const q = ctx.url.searchParams;
  const respond = (code: number, value: unknown, out: NegotiatedOutput = negotiateOutput(ctx.req.headers.accept)): void => {
    options.onObjects?.(ctx, { responseObject: value });
    writeObject(ctx, code, value, out.mediaType);
  };

  switch (info.verb) {
    case 'get': {
      if (sub === 'scale' && endpoint.scale) return respond(200, await endpoint.scale.getScale(rctx, info.name));
      const out = negotiateOutput(ctx.req.headers.accept, { table: sub === '', partial: 'PartialObjectMetadata' });
      const rv = q.get('resourceVersion');
      const obj = await endpoint.store.get(rctx, info.name, {
        ...(rv !== null ? { resourceVersion: rv } : {}),
        ...storeVersion(info, out),
      });
      return respond(200, transform(def, obj, out, ctx, options.clock, false, info.apiVersion), out);
    }
    case 'list': {
      const out = negotiateOutput(ctx.req.headers.accept, { table: true, partial: 'PartialObjectMetadataList' });
      const { watch: _w, ...listOpts } = listOptionsOf(q);
      const list = await endpoint.store.list(rctx, { ...listOpts, ...storeVersion(info, out) });
      return respond(200, transform(def, list, out, ctx, options.clock, false, info.apiVersion), out);
    }
    case 'watch':
      return serveWatch(ctx, endpoint, info, rctx, options);
    case 'create': {
      const w = writeOptionsOf(q, 'CreateOptions');
      const creater = sub ? endpoint.creaters?.get(sub) : undefined;
      if (creater) {
        const body = await readKindBody(ctx, creater);
        options.onObjects?.(ctx, { requestObject: body });
        if (options.admission) {
          // kube admits a subresource create with the subresource's kind and the parent's resource (e.g. serviceaccounts/token).
          const attrs: AdmissionAttributes = {
            operation: 'CREATE',
            kind: { group: creater.group, version: creater.version, kind: creater.kind },
            resource: { group: def.group, version: info.apiVersion, resource: def.plural },
            subresource: sub,
            namespace: info.namespace,
            name: info.name,
            object: body,
            oldObject: null,
            dryRun: w.dryRun,
            userInfo: ctx.user ?? { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] },
          };
          await options.admission.admit(attrs);
          await options.admission.validate(attrs);
        }
        const req = { ctx, namespace: info.namespace, name: info.name, body, dryRun: w.dryRun, user: ctx.user };
        const result = await creater.create(req);
        options.onObjects?.(ctx, { responseObject: creater.auditResponse ? creater.auditResponse(result) : result });
        return writeObject(ctx, 201, result, negotiateOutput(ctx.req.headers.accept).mediaType);
      }
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
      const opts = await admitDeletion(ctx, def, info, deleteOptionsOf(q, await readDeleteBody(ctx)), options);
      const res = endpoint.namespaces
        ? await endpoint.namespaces.delete(info.name, opts)
        : await endpoint.store.delete(rctx, info.name, { ...opts, version: info.apiVersion });
      // Built-in core kinds answer a finished delete with a Success Status; custom kinds (and namespaces) with the object.
      if (res.deleted && def.group === '' && !endpoint.namespaces) return respond(200, successStatus(def, res.object));
      return respond(200, res.object);
    }
    case 'deletecollection': {
      const { watch: _w, ...listOpts } = listOptionsOf(q);
      const del = await admitDeletion(ctx, def, info, deleteOptionsOf(q, await readDeleteBody(ctx)), options);
      const list = await endpoint.store.deleteCollection(rctx, { ...listOpts, version: info.apiVersion }, del);
      return respond(200, list);
    }
    default:
      throw methodNotAllowed();
  }
}

const COLLECTION: ReadonlySet<string> = new Set(['list', 'watch', 'create', 'deletecollection']);
const COLLECTION_WITHOUT_DELETECOLLECTION: ReadonlySet<string> = new Set(['list', 'watch', 'create']);
const ITEM: ReadonlySet<string> = new Set(['get', 'watch', 'update', 'patch', 'delete']);
const STATUS_OR_SCALE: ReadonlySet<string> = new Set(['get', 'update', 'patch']);
const FINALIZE: ReadonlySet<string> = new Set(['update']);
const CREATE_ONLY: ReadonlySet<string> = new Set(['create']);

/**
 * The verbs the request's route serves, as kube's installer registers them for a storage (collection: list, watch,
 * create, deletecollection; object: get, watch, update, patch, delete; status and scale: get, update, patch; a
 * namespace's finalize: update), or undefined when there is no such route (an undeclared subresource).
 * Namespaces' storage has no deletecollection.
 */
function routeVerbs(endpoint: ResourceEndpoint, info: RequestInfo): ReadonlySet<string> | undefined {
  // The path decides, not info.name: a list or watch with fieldSelector=metadata.name=x is named for authorization.
  if (info.parts.length < 2) return endpoint.namespaces ? COLLECTION_WITHOUT_DELETECOLLECTION : COLLECTION;
  switch (info.subresource) {
    case '':
      return ITEM;
    case 'status':
      return endpoint.definition.subresources.status ? STATUS_OR_SCALE : undefined;
    case 'scale':
      return endpoint.scale ? STATUS_OR_SCALE : undefined;
    case 'finalize':
      return endpoint.namespaces ? FINALIZE : undefined;
    default:
      return endpoint.creaters?.has(info.subresource) ? CREATE_ONLY : undefined;
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
