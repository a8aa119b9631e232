import type { FieldSelector, Fields, KubeObject, LabelSelector, Labels } from '@kapi/apimachinery';

/** What selectors see of an object: its labels, and the fields a field selector may name. */
export interface ObjectAttributes {
  labels: Labels;
  fields: Fields;
}

export type AttrFunc = (obj: KubeObject) => ObjectAttributes;

/**
 * Which objects a list or watch returns, and how many per page (storage.SelectionPredicate).
 * Absent selectors match everything.
 */
export interface SelectionPredicate {
  label?: LabelSelector;
  field?: FieldSelector;
  /** At most this many items per page; 0 or absent = all. */
  limit?: number;
  /** A continue token from a previous page. */
  continue?: string;
  /** Defaults to `defaultAttrs` (labels, metadata.name, metadata.namespace). */
  getAttrs?: AttrFunc;
}

/** Labels plus metadata.name and metadata.namespace, as kube-apiserver's DefaultNamespaceScopedAttr. */
export function defaultAttrs(obj: KubeObject): ObjectAttributes {
  return {
    labels: obj.metadata.labels ?? {},
    fields: { 'metadata.name': obj.metadata.name ?? '', 'metadata.namespace': obj.metadata.namespace ?? '' },
  };
}

/** True when the predicate has no label or field constraint. */
export function matchesEverything(p: SelectionPredicate | undefined): boolean {
  return !p || ((!p.label || p.label.empty()) && (!p.field || p.field.empty()));
}

/** Whether `obj` satisfies the predicate's selectors (limit and continue aside). */
export function predicateMatches(p: SelectionPredicate | undefined, obj: KubeObject): boolean {
  if (matchesEverything(p)) return true;
  const attrs = (p?.getAttrs ?? defaultAttrs)(obj);
  if (p?.label && !p.label.empty() && !p.label.matches(attrs.labels)) return false;
  if (p?.field && !p.field.empty() && !p.field.matches(attrs.fields)) return false;
  return true;
}
