import { isNotFound, type KubeObject, newForbidden, newNotFound, StatusError } from '@kapi/apimachinery';
import type { ResourceDefinition } from '../resource-definition.ts';
import type { Store } from '../store/store.ts';
import type { RequestContext } from '../store/types.ts';
import type { Namespace } from './namespace.ts';

/** core/v1 NamespaceTerminatingCause: the cause type of the 403 for content created in a terminating namespace. */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/**
 * The create half of plugin/pkg/admission/namespace/lifecycle: content of a namespaced kind may only be created in
 * a namespace that exists and is not terminating. Pass `beforeCreate` as the StoreOptions hook of every namespaced
 * Store. kube-apiserver also creates default, kube-system and kube-public at start-up; kapi does not, so a server
 * should create the namespaces it wants before serving. Refusing to delete them is NamespaceRegistry.delete's part.
 */
export class NamespaceLifecycle {
  readonly #namespaces: Store<Namespace>;

  constructor(namespaces: Store<Namespace>) {
    this.#namespaces = namespaces;
  }

  /** The StoreOptions.beforeCreate hook; cluster-scoped kinds (Namespace itself included) pass untouched. */
  readonly beforeCreate = async (ctx: RequestContext, obj: KubeObject, def: ResourceDefinition): Promise<void> => {
    if (!def.namespaced) return;
    const namespace = obj.metadata.namespace || ctx.namespace;
    // Validation reports the missing namespace.
    if (!namespace) return;
    let ns: Namespace;
    try {
      ns = await this.#namespaces.get({}, namespace);
    } catch (err) {
      throw isNotFound(err) ? newNotFound({ group: '', resource: 'namespaces' }, namespace) : err;
    }
    if (ns.status?.phase !== 'Terminating') return;
    // admission.NewForbidden names the object by generateName when it has no name yet.
    const name = obj.metadata.name || obj.metadata.generateName || 'Unknown';
    const forbidden = newForbidden(
      def.groupResource,
      name,
      `unable to create new content in namespace ${namespace} because it is being terminated`,
    );
    const cause = {
      reason: NAMESPACE_TERMINATING_CAUSE,
      message: `namespace ${namespace} is being terminated`,
      field: 'metadata.namespace',
    };
    throw new StatusError({ ...forbidden.status, details: { ...forbidden.status.details, causes: [cause] } });
  };
}
