import type { NamespaceRegistry } from '@kapi/registry';
import type { SubresourceStorage } from '../subresource-storage.ts';

/**
 * namespaces/finalize (kube's FinalizeREST): PUT replaces a namespace's spec.finalizers, nothing else. Admitted as an
 * update of the Namespace with subresource finalize, as kube admits it, the kind's write checks included.
 */
export function finalizeSubresource(namespaces: NamespaceRegistry): SubresourceStorage {
  return {
    async update({ info, options, storeAdmission }, body) {
      const res = await namespaces.finalize(info.name, body, {
        dryRun: options.dryRun,
        ...(options.fieldValidation ? { fieldValidation: options.fieldValidation } : {}),
        ...(storeAdmission ? { admission: storeAdmission } : {}),
      });
      return { object: res.object, warnings: res.warnings };
    },
  };
}
