import { isValidPathSegmentName, newBadRequest } from '@kapi/apimachinery';
import type { ResourceDefinition } from '../resource-definition.ts';

/**
 * Storage keys of one resource: `<prefix>/<group or "core">/<plural>/<namespace>/<name>`, without the namespace
 * for cluster-scoped kinds (kube-apiserver's NamespaceKeyFunc / NoNamespaceKeyFunc).
 *
 * A name or namespace that is not one path segment ("." and "..", or containing "/" or "%") is refused with a 400
 * here, before it can reach storage: every verb builds its key through this class, so a request path can never name
 * a key outside the resource's subtree.
 */
export class StoreKeys {
  /** The subtree holding every object of the resource (what a watch cache is given as its resourcePrefix). */
  readonly resourcePrefix: string;
  readonly #namespaced: boolean;

  constructor(def: ResourceDefinition, keyPrefix = '/registry') {
    // A kind stored with another (events.k8s.io events with core's) uses that kind's keys.
    const home = def.storedWith ?? def;
    this.resourcePrefix = `${keyPrefix.replace(/\/+$/, '')}/${home.group || 'core'}/${home.plural}`;
    this.#namespaced = def.namespaced;
  }

  /** The prefix a list or watch reads: one namespace, or all of them when `namespace` is undefined or empty. */
  prefix(namespace: string | undefined): string {
    if (!this.#namespaced || !namespace) return this.resourcePrefix;
    return `${this.resourcePrefix}/${checkSegment('Namespace', namespace)}`;
  }

  key(namespace: string | undefined, name: string): string {
    checkSegment('Name', name);
    return this.#namespaced
      ? `${this.resourcePrefix}/${checkSegment('Namespace', namespace ?? '')}/${name}`
      : `${this.resourcePrefix}/${name}`;
  }
}

/** kube's key functions' check, worded as theirs: `Name parameter invalid: "..": may not be '..'`. */
function checkSegment(what: 'Name' | 'Namespace', value: string): string {
  const msgs = isValidPathSegmentName(value);
  if (msgs.length) throw newBadRequest(`${what} parameter invalid: ${JSON.stringify(value)}: ${msgs.join(';')}`);
  return value;
}
