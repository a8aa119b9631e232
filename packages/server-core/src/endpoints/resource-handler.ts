import type { AdmissionAttributes } from '@kapi/admission';
import type { Clock, KubeObject, Status } from '@kapi/apimachinery';
import type { DeleteResult, ResourceDefinition, Store, StoreDeleteOptions, RequestContext as StoreRequestContext } from '@kapi/registry';
import type { RequestContext } from '../filters/context.ts';
import { addWarning } from '../filters/warning.ts';
import type { RequestInfo } from '../request-info.ts';
import type { WriteCheck } from '../server/api-provider.ts';
import { type NegotiatedOutput, negotiateOutput } from './negotiation.ts';
import { storeVersion, transform } from './output-transform.ts';
import { admitDeletion, writeAdmission } from './request-admission.ts';
import { applyDuplicateKeyWarnings, auditable, patchTypeOf, readDeleteBody, readObjectBody, readPatchBody } from './request-body.ts';
import { deleteOptionsOf, fieldManagerOf, listOptionsOf, writeOptionsOf } from './request-options.ts';
import { methodNotAllowed, writeObject } from './response.ts';
import { handleSubresource } from './subresource-handler.ts';
import type { SubresourceStorage } from './subresource-storage.ts';
import { serveWatch } from './watch-stream.ts';

/**
 * A delete that replaces the Store's, as kube's namespace REST does (the first delete marks a namespace Terminating).
 * Such a resource has no deletecollection, and answers a finished delete with the object.
 */
export interface ResourceDeleter {
  delete(name: string, options: StoreDeleteOptions): Promise<DeleteResult>;
}

/** One served resource: its definition, its Store, and the storages of its subresources. */
export interface ResourceEndpoint {
  readonly definition: ResourceDefinition;
  readonly store: Store;
  /** `subresource` → its storage (status, scale, finalize, token, …), served by the verbs each implements. */
  readonly subresources: ReadonlyMap<string, SubresourceStorage>;
  /** The resource's own delete, when not the Store's (see ResourceDeleter). */
  readonly deleter?: ResourceDeleter;
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

/**
 * Serves one resource request whose RequestInfo has already been resolved to `endpoint`: every verb, content
 * negotiation (JSON, YAML, Table, PartialObjectMetadata) and watch streams; a subresource's request goes to its
 * storage (handleSubresource). Errors are thrown as StatusErrors for the chain to write.
 */
export async function handleResource(
  ctx: RequestContext,
  endpoint: ResourceEndpoint,
  info: RequestInfo,
  options: ResourceHandlerOptions,
): Promise<void> {
  const def = endpoint.definition;
  // The path decides, not info.name: a list or watch with fieldSelector=metadata.name=x is named for authorization.
  const collection = info.parts.length < 2;
  if (!collection && info.subresource) return handleSubresource(ctx, endpoint, info, options);
  // A path without a route for the method is 405, as go-restful answers before reading anything of the request.
  if (!(collection ? (endpoint.deleter ? COLLECTION_WITHOUT_DELETECOLLECTION : COLLECTION) : ITEM).has(info.verb)) throw methodNotAllowed();
  const rctx: StoreRequestContext = info.namespace ? { namespace: info.namespace } : {};
  const q = ctx.url.searchParams;
  const respond = (code: number, value: unknown, out: NegotiatedOutput = negotiateOutput(ctx.req.headers.accept)): void => {
    options.onObjects?.(ctx, { responseObject: value });
    writeObject(ctx, code, value, out.mediaType);
  };

  switch (info.verb) {
    case 'get': {
      const out = negotiateOutput(ctx.req.headers.accept, { table: true, partial: 'PartialObjectMetadata' });
      const rv = q.get('resourceVersion');
      const obj = await endpoint.store.get(rctx, info.name, {
        ...(rv !== null ? { resourceVersion: rv } : {}),
        ...storeVersion(info, out),
      });
      return respond(200, await transform(def, obj, out, ctx, options.clock, false, info.apiVersion), out);
    }
    case 'list': {
      const out = negotiateOutput(ctx.req.headers.accept, { table: true, partial: 'PartialObjectMetadataList' });
      const { watch: _w, ...listOpts } = listOptionsOf(q);
      const list = await endpoint.store.list(rctx, { ...listOpts, ...storeVersion(info, out) });
      return respond(200, await transform(def, list, out, ctx, options.clock, false, info.apiVersion), out);
    }
    case 'watch':
      return serveWatch(ctx, endpoint, info, rctx, options);
    case 'create': {
      const w = writeOptionsOf(q, 'CreateOptions');
      const { body, strictErrors } = await readObjectBody(ctx, def);
      options.onObjects?.(ctx, { requestObject: auditable(body) });
      const res = await endpoint.store.create(rctx, body, {
        version: info.apiVersion,
        dryRun: w.dryRun,
        ...(w.fieldValidation ? { fieldValidation: w.fieldValidation } : {}),
        ...(strictErrors.length ? { documentStrictErrors: strictErrors } : {}),
        admission: writeAdmission(ctx, def, info, w.dryRun, options),
        fieldManager: fieldManagerOf(ctx, w),
      });
      for (const warning of res.warnings) addWarning(ctx, warning);
      return respond(201, res.object);
    }
    case 'update': {
      const w = writeOptionsOf(q, 'UpdateOptions');
      const { body, strictErrors } = await readObjectBody(ctx, def);
      options.onObjects?.(ctx, { requestObject: auditable(body) });
      const res = await endpoint.store.update(rctx, info.name, body, {
        version: info.apiVersion,
        dryRun: w.dryRun,
        ...(w.fieldValidation ? { fieldValidation: w.fieldValidation } : {}),
        ...(strictErrors.length ? { documentStrictErrors: strictErrors } : {}),
        admission: writeAdmission(ctx, def, info, w.dryRun, options),
        fieldManager: fieldManagerOf(ctx, w),
      });
      for (const warning of res.warnings) addWarning(ctx, warning);
      return respond(res.created ? 201 : 200, res.object);
    }
    case 'patch': {
      // The type first (415), then the options it decides on (force, fieldManager), as kube's PatchResource.
      const patchType = patchTypeOf(ctx, def);
      const w = writeOptionsOf(q, 'PatchOptions', patchType);
      const { patch, duplicateKeys, strictErrors } = await readPatchBody(ctx, patchType);
      const keyWarnings = applyDuplicateKeyWarnings(duplicateKeys ?? [], w.fieldValidation);
      options.onObjects?.(ctx, { requestObject: patch });
      const res = await endpoint.store.patch(rctx, info.name, patch, patchType, {
        version: info.apiVersion,
        dryRun: w.dryRun,
        ...(w.fieldValidation ? { fieldValidation: w.fieldValidation } : {}),
        ...(strictErrors?.length ? { documentStrictErrors: strictErrors } : {}),
        admission: writeAdmission(ctx, def, info, w.dryRun, options),
        fieldManager: fieldManagerOf(ctx, w),
        ...(w.force !== undefined ? { force: w.force } : {}),
      });
      for (const warning of [...keyWarnings, ...res.warnings]) addWarning(ctx, warning);
      // An apply that created the object answers 201, as kube's PatchResource.
      return respond(res.created ? 201 : 200, res.object);
    }
    case 'delete': {
      const opts = await admitDeletion(ctx, def, info, deleteOptionsOf(q, await readDeleteBody(ctx)), options);
      const res = endpoint.deleter
        ? await endpoint.deleter.delete(info.name, opts)
        : await endpoint.store.delete(rctx, info.name, { ...opts, version: info.apiVersion });
      // Built-in core kinds answer a finished delete with a Success Status; custom kinds (and own deleters) with the object.
      if (res.deleted && def.group === '' && !endpoint.deleter) return respond(200, successStatus(def, res.object));
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

// The verbs of the resource's own routes, as kube's installer registers them for a Store (collection: list, watch,
// create, deletecollection; object: get, watch, update, patch, delete); a resource with its own deleter (namespaces)
// has no deletecollection.
const COLLECTION: ReadonlySet<string> = new Set(['list', 'watch', 'create', 'deletecollection']);
const COLLECTION_WITHOUT_DELETECOLLECTION: ReadonlySet<string> = new Set(['list', 'watch', 'create']);
const ITEM: ReadonlySet<string> = new Set(['get', 'watch', 'update', 'patch', 'delete']);

function successStatus(def: ResourceDefinition, obj: KubeObject): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: obj.metadata.name ?? '', kind: def.plural, ...(obj.metadata.uid ? { uid: obj.metadata.uid } : {}) },
  } as Status;
}
