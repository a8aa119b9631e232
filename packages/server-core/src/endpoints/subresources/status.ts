import type { Store, StorePatchOptions } from '@kapi/registry';
import { fieldManagerOf } from '../request-options.ts';
import type { SubresourceStorage, SubresourceWriteRequest } from '../subresource-storage.ts';

/** The Store options of a status write: the request's version and write options, status only, the request's admission. */
function statusWrite({ ctx, info, options, storeAdmission, documentStrictErrors }: SubresourceWriteRequest): StorePatchOptions {
  return {
    ...(documentStrictErrors ? { documentStrictErrors } : {}),
    fieldManager: fieldManagerOf(ctx, options),
    ...(options.force !== undefined ? { force: options.force } : {}),
    version: info.apiVersion,
    dryRun: options.dryRun,
    ...(options.fieldValidation ? { fieldValidation: options.fieldValidation } : {}),
    subresource: 'status',
    ...(storeAdmission ? { admission: storeAdmission } : {}),
  };
}

/**
 * The status subresource of a kind (kube's StatusREST): GET reads the object (or serves its Table), PUT and PATCH
 * change only its status, through the Store's update flow with the subresource's admission.
 */
export function statusSubresource(store: Store): SubresourceStorage {
  return {
    get: ({ context, info, resourceVersion, version }) =>
      store.get(context, info.name, {
        ...(resourceVersion !== undefined ? { resourceVersion } : {}),
        ...(version !== undefined ? { version } : {}),
      }),
    async update(request, body) {
      const res = await store.update(request.context, request.info.name, body, statusWrite(request));
      return { object: res.object, created: res.created, warnings: res.warnings };
    },
    async patch(request, patch, type) {
      const res = await store.patch(request.context, request.info.name, patch, type, statusWrite(request));
      return { object: res.object, warnings: res.warnings };
    },
  };
}
