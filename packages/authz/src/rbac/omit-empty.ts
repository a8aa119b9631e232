import type { KubeObject } from '@kapi/apimachinery';

/** A rule's lists Go writes with `omitempty` (verbs has none). */
const RULE_LISTS = ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmptyList = (v: unknown): boolean => Array.isArray(v) && v.length === 0;

/**
 * Drops the empty lists kube's rbac/v1 types mark `omitempty` (a rule's apiGroups, resources, resourceNames and
 * nonResourceURLs; a binding's subjects; an aggregationRule's clusterRoleSelectors), as kube-apiserver stores and
 * returns them: `resourceNames: []` sent is not there when read back.
 */
export function omitEmptyLists(obj: KubeObject): void {
  const o = obj as Record<string, unknown>;
  if (Array.isArray(o.rules))
    for (const rule of o.rules) if (isRecord(rule)) for (const k of RULE_LISTS) if (isEmptyList(rule[k])) delete rule[k];
  if (isEmptyList(o.subjects)) delete o.subjects;
  if (isRecord(o.aggregationRule) && isEmptyList(o.aggregationRule.clusterRoleSelectors)) delete o.aggregationRule.clusterRoleSelectors;
}
