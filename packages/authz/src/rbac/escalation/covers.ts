import { RBAC_WILDCARD } from '../rule-matching.ts';
import type { PolicyRule } from '../types.ts';

/**
 * kube's BreakdownRule: the rule as rules of one verb, one group and one resource (and one resource name when it
 * names some), then one rule per non-resource URL and verb.
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const names = rule.resourceNames ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (names.length > 0) {
          for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

/**
 * kube's Covers (component-helpers/auth/rbac/validation): whether the owner's rules allow everything the servant
 * rules do, and the broken-down servant rules they do not. Each broken-down rule is either wholly covered by one
 * owner rule or not at all.
 */
export function covers(
  ownerRules: readonly PolicyRule[],
  servantRules: readonly PolicyRule[],
): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const servant of servantRules) {
    for (const sub of breakdownRule(servant)) {
      if (!ownerRules.some((owner) => ruleCovers(owner, sub))) missing.push(sub);
    }
  }
  return { covered: missing.length === 0, missing };
}

const has = (set: readonly string[] | undefined, s: string): boolean => set?.includes(s) ?? false;

function hasAll(set: readonly string[] | undefined, contains: readonly string[] | undefined): boolean {
  if (!contains || contains.length === 0) return true;
  const owning = new Set(set);
  return contains.every((s) => owning.has(s));
}

/** `*`, an exact match, or `*\/sub` for `resource/sub`. */
function resourceCoversAll(set: readonly string[] | undefined, covered: readonly string[] | undefined): boolean {
  if (has(set, RBAC_WILDCARD) || hasAll(set, covered)) return true;
  for (const path of covered ?? []) {
    if (has(set, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!has(set, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(ownerPath: string, subPath: string): boolean {
  if (ownerPath === subPath) return true;
  return ownerPath.endsWith('*') && subPath.startsWith(ownerPath.replace(/\*+$/, ''));
}

function nonResourceURLsCoversAll(set: readonly string[] | undefined, covered: readonly string[] | undefined): boolean {
  return (covered ?? []).every((path) => (set ?? []).some((owner) => nonResourceURLCovers(owner, path)));
}

/** kube's ruleCovers: whether one owner rule covers a broken-down rule (at most one verb, resource and name). */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, RBAC_WILDCARD) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, RBAC_WILDCARD) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = nonResourceURLsCoversAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const ownerNames = owner.resourceNames ?? [];
  // A rule for any name is covered only by a rule for any name.
  const names =
    (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}
