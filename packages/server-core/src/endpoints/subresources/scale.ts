import { ScaleREST, type ScaleUpdateOptions, type Store } from '@kapi/registry';
import { SCALE_KIND } from '../../discovery/documents.ts';
import { addWarning } from '../../filters/warning.ts';
import { fieldManagerOf } from '../request-options.ts';
import type { SubresourceStorage, SubresourceWriteRequest } from '../subresource-storage.ts';

/**
 * A scale write's options: dryRun; fieldValidation of a patch (its warnings go to the response); admission of the Scale (the request's attributes with kind autoscaling/v1 Scale,
 * as kube admits it); the kind's write checks on the parent object the Scale changes.
 */
function scaleWrite({ ctx, options, admission, writeChecks, documentStrictErrors }: SubresourceWriteRequest): ScaleUpdateOptions {
  return {
    fieldManager: fieldManagerOf(ctx, options),
    ...(options.fieldValidation ? { fieldValidation: options.fieldValidation } : {}),
    ...(documentStrictErrors ? { documentStrictErrors } : {}),
    warn: (text) => addWarning(ctx, text),
    ...(options.force !== undefined ? { force: options.force } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(admission ? { admission } : {}),
    ...(writeChecks ? { objectAdmission: writeChecks } : {}),
  };
}

/**
 * The scale subresource of a kind whose definition declares one (registry's ScaleREST): GET, PUT and PATCH of an
 * autoscaling/v1 Scale read from and written to the fields the definition names, through the parent's update flow
 * (its strategy and validation) with the Scale admitted around it.
 */
export function scaleSubresource(store: Store): SubresourceStorage {
  const scale = new ScaleREST(store);
  return {
    kind: SCALE_KIND,
    // A custom resource's scale scope shares the kind's table convertor: the Scale printed with the kind's columns.
    table: true,
    get: ({ context, info }) => scale.getScale(context, info.name),
    update: async (request, body) => ({
      object: await scale.updateScale(request.context, request.info.name, body, scaleWrite(request)),
    }),
    patch: async (request, patch, type) => ({
      object: await scale.patchScale(request.context, request.info.name, patch, type, scaleWrite(request)),
    }),
  };
}
