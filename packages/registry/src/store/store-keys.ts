import type { ResourceDefinition } from '../resource-definition.ts';

/**
 * Storage keys of one resource: `<prefix>/<group or "core">/<plural>/<namespace>/<name>`, without the namespace
 * for cluster-scoped kinds (kube-apiserver's NamespaceKeyFunc / NoNamespaceKeyFunc).
 */
export class StoreKeys {
  /** The subtree holding every object of the resource (what a watch cache is given as its resourcePrefix). */
  readonly resourcePrefix: string;
  readonly #namespaced: boolean;

  constructor(def: ResourceDefinition, keyPrefix = '/registry') {
    this.resourcePrefix = `${keyPrefix.replace(/\/+$/, '')}/${def.group || 'core'}/${def.plural}`;
    this.#namespaced = def.namespaced;
  }

  /** The prefix a list or watch reads: one namespace, or all of them when `namespace` is undefined or empty. */
  prefix(namespace: string | undefined): string {
    return this.#namespaced && namespace ? `${this.resourcePrefix}/${namespace}` : this.resourcePrefix;
  }

  key(namespace: string | undefined, name: string): string {
    return this.#namespaced ? `${this.resourcePrefix}/${namespace ?? ''}/${name}` : `${this.resourcePrefix}/${name}`;
  }
}
