import type { GroupVersionKind, GroupVersionResource } from '@kapi/apimachinery';
import type { MatchResources } from '../admissionregistration/types.ts';
import type { MatchAttributes, NamespaceLookup } from './match-attributes.ts';
import { matchNamedRules } from './match-rules.ts';
import { matchesNamespaceSelector, matchesObjectSelectorOrError } from './selectors.ts';

/** The outcome of matching a policy's matchConstraints or a binding's matchResources. */
export interface ResourcesMatch {
  readonly matches: boolean;
  /** The kind and resource matched as (another version's under matchPolicy Equivalent); set when matches. */
  readonly kind?: GroupVersionKind;
  readonly resource?: GroupVersionResource;
  /** True when matched through another served version: the policy sees the object converted to `resource.version`. */
  readonly equivalent?: boolean;
  /** A selector that failed (404 namespace not found, 500 bad selector) on a request the rules cover. */
  readonly error?: Error;
}

const NO_MATCH: ResourcesMatch = Object.freeze({ matches: false });

/**
 * kube's policy matching.Matcher.Matches: namespace and object selectors, then excludeResourceRules (a match there
 * excludes), then resourceRules (none: every resource, as the request is). Selector errors count only for requests
 * the rules cover. `matchPolicy` left out is Exact, as in kube (defaulting sets Equivalent on stored objects).
 * `lookup` reads namespaces; the 4th argument replaces attrs.versions (the served versions for Equivalent).
 */
export function matchesResources(
  m: MatchResources,
  attrs: MatchAttributes,
  lookup: NamespaceLookup,
  equivalent?: { readonly served: readonly string[] },
): ResourcesMatch {
  const a: MatchAttributes = equivalent ? { ...attrs, versions: equivalent } : attrs;
  const ns = matchesNamespaceSelector(m.namespaceSelector, a, lookup);
  if (ns === false) return NO_MATCH;
  const obj = matchesObjectSelectorOrError(m.objectSelector, a);
  if (obj === false) return NO_MATCH;
  if (m.excludeResourceRules && matchNamedRules(m.excludeResourceRules, m.matchPolicy, a) !== undefined) return NO_MATCH;
  let kind = a.kind;
  let resource = a.resource;
  let viaEquivalent = false;
  if (m.resourceRules && m.resourceRules.length > 0) {
    const r = matchNamedRules(m.resourceRules, m.matchPolicy, a);
    if (r === undefined) return NO_MATCH;
    kind = r.kind;
    resource = r.resource;
    viaEquivalent = r.equivalent;
  }
  if (ns instanceof Error) return { matches: false, error: ns };
  if (obj instanceof Error) return { matches: false, error: obj };
  return { matches: true, kind, resource, equivalent: viaEquivalent };
}
