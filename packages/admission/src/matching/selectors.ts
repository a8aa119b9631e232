import {
  type KubeObject,
  type LabelSelector,
  labelSelectorFromMetav1,
  type MetaV1LabelSelector,
  newInternalError,
  newNotFound,
} from '@kapi/apimachinery';
import type { MatchAttributes, NamespaceLookup } from './match-attributes.ts';

/**
 * kube's namespace and object selector predicates (webhook/predicates/namespace, .../object). A selector left out
 * is taken as {} (everything), the value defaulting gives every stored webhook and policy.
 */

// Webhook and policy objects are immutable once cached, so their selectors are parsed once per object.
const parsed = new WeakMap<MetaV1LabelSelector, LabelSelector | Error>();

/** The parsed selector, or the 500 kube returns for a selector it cannot parse. */
export function parseSelector(selector: MetaV1LabelSelector | undefined): LabelSelector | Error {
  if (selector === undefined) return labelSelectorFromMetav1({});
  let s = parsed.get(selector);
  if (s === undefined) {
    try {
      s = labelSelectorFromMetav1(selector);
    } catch (err) {
      s = newInternalError(err);
    }
    parsed.set(selector, s);
  }
  return s;
}

function labelsOf(obj: KubeObject | null | undefined): Record<string, string> | undefined {
  return obj?.metadata?.labels;
}

/**
 * True when the request's namespace has the selected labels. A cluster-scoped request other than of a Namespace is
 * never exempted; a Namespace being created or updated is matched by its own (new) labels. An Error (404 when the
 * namespace does not exist, 500 for a selector that does not parse) is returned, not thrown: kube reports it only
 * when the rules match too.
 */
export function matchesNamespaceSelector(
  selector: MetaV1LabelSelector | undefined,
  attrs: Pick<MatchAttributes, 'operation' | 'resource' | 'subresource' | 'namespace' | 'object'>,
  lookup: NamespaceLookup,
): boolean | Error {
  const isNamespace = attrs.resource.resource === 'namespaces';
  if (attrs.namespace === '' && !isNamespace) return true;
  const sel = parseSelector(selector);
  if (sel instanceof Error) return sel;
  if (sel.empty()) return true;
  let labels: Record<string, string> | undefined;
  if (isNamespace && attrs.subresource === '' && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) {
    // The namespace cache does not hold the Namespace this request writes yet.
    labels = labelsOf(attrs.object);
  } else {
    const ns = lookup.getNamespace(attrs.namespace);
    if (ns === undefined) return newNotFound({ group: '', resource: 'namespaces' }, attrs.namespace);
    labels = labelsOf(ns);
  }
  return sel.matches(labels ?? {});
}

/**
 * True when the object or the old object has the selected labels (either suffices, so that an update changing the
 * labels is seen by both sides). An Error for a selector that does not parse.
 */
export function matchesObjectSelectorOrError(
  selector: MetaV1LabelSelector | undefined,
  attrs: Pick<MatchAttributes, 'object' | 'oldObject'>,
): boolean | Error {
  const sel = parseSelector(selector);
  if (sel instanceof Error) return sel;
  if (sel.empty()) return true;
  const match = (obj: KubeObject | null): boolean => obj !== null && obj !== undefined && sel.matches(labelsOf(obj) ?? {});
  return match(attrs.object) || match(attrs.oldObject);
}

/** matchesObjectSelectorOrError for a selector known to be valid (validation refuses others); throws the 500 else. */
export function matchesObjectSelector(
  selector: MetaV1LabelSelector | undefined,
  attrs: Pick<MatchAttributes, 'object' | 'oldObject'>,
): boolean {
  const r = matchesObjectSelectorOrError(selector, attrs);
  if (r instanceof Error) throw r;
  return r;
}
