import type { KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/registry';
import type { RequestContext } from '../filters/context.ts';
import { addWarning } from '../filters/warning.ts';
import type { RequestInfo } from '../request-info.ts';
import { negotiateOutput } from './negotiation.ts';
import { storeVersion, transform } from './output-transform.ts';
import { admissionHooks, writeAdmission, writeCheckHooks } from './request-admission.ts';
import { applyDuplicateKeyWarnings, auditable, patchTypeOf, readObjectBody, readPatchBody } from './request-body.ts';
import { type WriteOptions, writeOptionsOf } from './request-options.ts';
import type { ResourceEndpoint, ResourceHandlerOptions } from './resource-handler.ts';
import { methodNotAllowed, pathNotFound, writeObject } from './response.ts';
import type {
  SubresourceBody,
  SubresourceRequest,
  SubresourceStorage,
  SubresourceWriteRequest,
  SubresourceWriteResult,
} from './subresource-storage.ts';
import { CONNECT_METHODS } from './subresources/proxy.ts';
import { readKindBody } from './virtual-handler.ts';

/**
 * Serves a request for `<object path>/<subresource>` through the storage registered under that name, by the verb
 * interfaces it implements: 404 when the kind has no such subresource, 405 for a verb the storage lacks (as kube's
 * go-restful router answers, before anything of the request is read). Decode → admit → storage → encode, as the
 * resource's own verbs do; no subresource is known here by name.
 */
export async function handleSubresource(
  ctx: RequestContext,
  endpoint: ResourceEndpoint,
  info: RequestInfo,
  options: ResourceHandlerOptions,
): Promise<void> {
  const storage = endpoint.subresources.get(info.subresource);
  if (!storage) throw pathNotFound();
  const def = endpoint.definition;
  const q = ctx.url.searchParams;
  const request: SubresourceRequest = { ctx, info, context: info.namespace ? { namespace: info.namespace } : {} };
  const writeRequest = (w: WriteOptions, documentStrictErrors?: readonly string[]): SubresourceWriteRequest => ({
    ...request,
    options: w,
    ...(documentStrictErrors?.length ? { documentStrictErrors } : {}),
    storeAdmission: writeAdmission(ctx, def, info, w.dryRun, options),
    admission: admissionHooks(ctx, def, info, w.dryRun, options, storage.kind),
    writeChecks: writeCheckHooks(ctx, def, info, w.dryRun, options),
  });
  const respond = (code: number, value: unknown, mediaType = negotiateOutput(ctx.req.headers.accept).mediaType): void => {
    options.onObjects?.(ctx, { responseObject: storage.auditResponse ? storage.auditResponse(value) : value });
    writeObject(ctx, code, value, mediaType);
  };
  const written = (code: number, res: SubresourceWriteResult): void => {
    for (const warning of res.warnings ?? []) addWarning(ctx, warning);
    respond(code, res.object);
  };

  if (storage.connect) {
    if (!CONNECT_METHODS.has(ctx.req.method ?? '')) throw methodNotAllowed();
    return storage.connect(request);
  }
  // Each verb is refused (405) before anything of the request is read when the storage does not implement it.
  switch (info.verb) {
    case 'get': {
      if (!storage.get) throw methodNotAllowed();
      // As the parent's own GET: a Table when the storage has one, and metadata alone of whatever object it answers.
      const out = negotiateOutput(ctx.req.headers.accept, { table: storage.table ?? !storage.kind, partial: 'PartialObjectMetadata' });
      const rv = q.get('resourceVersion');
      const obj = (await storage.get({
        ...request,
        ...(rv !== null ? { resourceVersion: rv } : {}),
        ...storeVersion(info, out),
      })) as KubeObject;
      // Rows of an object of the storage's own kind carry it as it is; the parent's are converted as its GET's.
      const version = storage.kind ? undefined : info.apiVersion;
      return respond(200, await transform(def, obj, out, ctx, options.clock, false, version), out.mediaType);
    }
    case 'update': {
      if (!storage.update) throw methodNotAllowed();
      const w = writeOptionsOf(q, 'UpdateOptions');
      const { body, strictErrors } = await readBody(ctx, def, storage, w);
      options.onObjects?.(ctx, { requestObject: auditable(body) });
      const res = await storage.update(writeRequest(w, strictErrors), body);
      return written(res.created ? 201 : 200, res);
    }
    case 'patch': {
      if (!storage.patch) throw methodNotAllowed();
      const type = patchTypeOf(ctx, def);
      const w = writeOptionsOf(q, 'PatchOptions', type);
      const { patch, duplicateKeys, strictErrors } = await readPatchBody(ctx, type);
      const keyWarnings = applyDuplicateKeyWarnings(duplicateKeys ?? [], w.fieldValidation);
      options.onObjects?.(ctx, { requestObject: patch });
      const res = await storage.patch(writeRequest(w, strictErrors), patch, type);
      return written(200, { ...res, warnings: [...keyWarnings, ...(res.warnings ?? [])] });
    }
    case 'create': {
      if (!storage.create) throw methodNotAllowed();
      const w = writeOptionsOf(q, 'CreateOptions');
      const { body, strictErrors } = await readBody(ctx, def, storage, w);
      const object = (body instanceof Uint8Array ? auditable(body) : body) as KubeObject;
      options.onObjects?.(ctx, { requestObject: object });
      // kube admits a subresource create with the subresource's kind and the parent's resource (serviceaccounts/token).
      const req = writeRequest(w, strictErrors);
      await req.admission?.mutate?.(object, null);
      await req.admission?.validate?.(object, null);
      return written(201, await storage.create(req, body));
    }
    default:
      throw methodNotAllowed();
  }
}

/**
 * A write's body: as the parent's create reads it for a storage of the parent's kind (with its document's strict
 * errors, for the Store), else as an object of its kind (whose fieldValidation readKindBody applies itself).
 */
async function readBody(
  ctx: RequestContext,
  def: ResourceDefinition,
  storage: SubresourceStorage,
  w: WriteOptions,
): Promise<{ body: SubresourceBody; strictErrors: string[] }> {
  if (storage.kind) return { body: await readKindBody(ctx, storage.kind, w.fieldValidation), strictErrors: [] };
  return readObjectBody(ctx, def);
}
