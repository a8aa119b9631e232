import type { PolicyRule } from '../types.ts';

/** A resource this server serves: its API group ("" for the core group), plural name and subresources. */
export interface ServedResource {
  group: string;
  resource: string;
  subresources?: readonly string[];
}

/**
 * Whether rule patterns `group` and `resource` (each may be `*`; resource `r/sub` or `*\/sub`) may name anything
 * served: every part the pattern names must be served, a wildcard matches anything, even kinds served later (CRDs).
 */
function namesServed(served: readonly ServedResource[], group: string, resource: string): boolean {
  if (group === '*' && resource === '*') return true;
  const slash = resource.indexOf('/');
  const main = slash < 0 ? resource : resource.slice(0, slash);
  const sub = slash < 0 ? undefined : resource.slice(slash + 1);
  return served.some((s) => {
    if (group !== '*' && group !== s.group) return false;
    if (resource === '*') return true;
    if (main !== '*' && main !== s.resource) return false;
    if (sub === undefined) return true;
    const subs = s.subresources ?? [];
    return sub === '*' ? subs.length > 0 : subs.includes(sub);
  });
}

/**
 * The rules narrowed to what `served` serves: every (group, resource) pair a rule grants that names nothing served is
 * dropped, wildcards stay, a rule left with no group or resource goes, and non-resource rules are kept as they are.
 * A rule's groups that keep the same resources stay one rule, so a rule whose pairs are all served comes back
 * unchanged; groups that keep different resources become separate rules (a rule grants every group × resource).
 */
export function restrictRulesToServed(rules: readonly PolicyRule[], served: readonly ServedResource[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const rule of rules) {
    const resources = rule.resources ?? [];
    if (resources.length === 0) {
      if ((rule.nonResourceURLs ?? []).length > 0) out.push(structuredClone(rule));
      continue;
    }
    // group → the rule's resources it keeps; groups keeping the same list are merged back, in the rule's order
    const byResources = new Map<string, { groups: string[]; resources: string[] }>();
    for (const group of rule.apiGroups ?? []) {
      const kept = resources.filter((resource) => namesServed(served, group, resource));
      if (kept.length === 0) continue;
      const key = JSON.stringify(kept);
      const entry = byResources.get(key);
      if (entry) entry.groups.push(group);
      else byResources.set(key, { groups: [group], resources: kept });
    }
    for (const { groups, resources: kept } of byResources.values()) {
      const narrowed: PolicyRule = { ...structuredClone(rule), apiGroups: groups, resources: kept };
      out.push(narrowed);
    }
  }
  return out;
}
