import { ScaleREST, type Store } from '@kapi/registry';
import { SCALE_KIND } from '../../discovery/documents.ts';
import type { SubresourceStorage } from '../subresource-storage.ts';

/**
 * The scale subresource of a kind whose definition declares one (registry's ScaleREST): GET, PUT and PATCH of an
 * autoscaling/v1 Scale read from and written to the fields the definition names.
 */
export function scaleSubresource(store: Store): SubresourceStorage {
  const scale = new ScaleREST(store);
  const dryRun = (d: boolean) => (d ? { dryRun: true } : {});
  return {
    kind: SCALE_KIND,
    get: ({ context, info }) => scale.getScale(context, info.name),
    update: async ({ context, info, options }, body) => ({
      object: await scale.updateScale(context, info.name, body, dryRun(options.dryRun)),
    }),
    patch: async ({ context, info, options }, patch, type) => ({
      object: await scale.patchScale(context, info.name, patch, type, dryRun(options.dryRun)),
    }),
  };
}
