import type { GroupVersionKind, GroupVersionResource, KubeObject } from '@kapi/apimachinery';
import type { AdmissionAttributes } from '../attributes.ts';

/** What matching reads of a request; AdmissionAttributes has all of it. */
export type MatchAttributes = Pick<
  AdmissionAttributes,
  'operation' | 'resource' | 'subresource' | 'namespace' | 'name' | 'object' | 'oldObject' | 'kind'
> & {
  /** The other served versions of the request's resource (kube's equivalent resources), for matchPolicy Equivalent. */
  readonly versions?: { readonly served: readonly string[] };
};

/** Where the namespace of a request is looked up (kube's namespace lister, here usually an ObjectCache). */
export interface NamespaceLookup {
  getNamespace(name: string): KubeObject | undefined;
}

/**
 * A match: the resource and kind the request matched as. They differ from the request's when matchPolicy Equivalent
 * matched another version; the webhook or policy then sees the object converted to that version.
 */
export interface RuleMatch {
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
  /** True when the match is through another version than the request's. */
  readonly equivalent: boolean;
}
