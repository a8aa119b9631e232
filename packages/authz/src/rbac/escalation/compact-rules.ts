import { goQuote } from '@kapi/apimachinery';
import type { PolicyRule } from '../types.ts';

/** Go's %q of a []string: `["a" "b"]`. */
const quoteList = (values: readonly string[]): string => `[${values.map(goQuote).join(' ')}]`;

/**
 * kube's CompactString (rbacv1helpers), as escalation messages print a rule: the non-empty fields in this order,
 * e.g. `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`.
 */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${quoteList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${quoteList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${quoteList(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${quoteList(rule.resourceNames)}`);
  if (rule.verbs?.length) parts.push(`Verbs:${quoteList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/**
 * kube's CompactRules: rules of one group, one resource and at most one resource name, and nothing else, that differ
 * only by verb are merged into one rule with all their verbs. Works well on the broken-down list Covers returns.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const key = simpleResourceKey(rule);
    if (key === undefined) {
      compacted.push(rule);
      continue;
    }
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...rule.verbs);
    else simple.set(key, { ...structuredClone(rule), verbs: [...rule.verbs] });
  }
  compacted.push(...simple.values());
  return compacted;
}

/** kube's isSimpleResourceRule: one group, one resource, at most one resource name, no URLs; keyed by those. */
function simpleResourceKey(rule: PolicyRule): string | undefined {
  const names = rule.resourceNames ?? [];
  if (names.length > 1 || (rule.nonResourceURLs?.length ?? 0) > 0) return undefined;
  if (rule.apiGroups?.length !== 1 || rule.resources?.length !== 1) return undefined;
  // kube compares the rule with a copy of only the simple fields: an empty URL list set is not simple.
  if (rule.nonResourceURLs !== undefined) return undefined;
  return JSON.stringify([rule.apiGroups[0], rule.resources[0], names.length > 0, names[0] ?? '']);
}
