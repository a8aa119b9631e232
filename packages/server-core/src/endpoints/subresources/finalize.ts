import type { NamespaceRegistry } from '@kapi/registry';
import type { SubresourceStorage } from '../subresource-storage.ts';

/** namespaces/finalize (kube's FinalizeREST): PUT replaces a namespace's spec.finalizers, nothing else. */
export function finalizeSubresource(namespaces: NamespaceRegistry): SubresourceStorage {
  return {
    async update({ info, options }, body) {
      const res = await namespaces.finalize(info.name, body, {
        dryRun: options.dryRun,
        ...(options.fieldValidation ? { fieldValidation: options.fieldValidation } : {}),
      });
      return { object: res.object, warnings: res.warnings };
    },
  };
}
