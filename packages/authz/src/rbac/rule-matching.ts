import type { AuthorizationAttributes } from '../authorizer.ts';
import type { PolicyRule } from './types.ts';

/** rbacv1.VerbAll, APIGroupAll, ResourceAll, NonResourceAll: the wildcard in every rule field. */
export const RBAC_WILDCARD = '*';

/** kube's VerbMatches: `*` or the exact verb. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs) if (v === RBAC_WILDCARD || v === verb) return true;
  return false;
}

/** kube's APIGroupMatches: `*` or the exact group ("" is the core group). */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === RBAC_WILDCARD || g === group) return true;
  return false;
}

/**
 * kube's ResourceMatches: `*`, the exact `resource` or `resource/subresource`, or `*\/subresource` for a request
 * on a subresource. `combined` is `resource/subresource` when there is one.
 */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === RBAC_WILDCARD || r === combined) return true;
    if (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** kube's ResourceNameMatches: no resourceNames means any name; else the name must be listed (so "" never is). */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames;
  if (!names || names.length === 0) return true;
  return names.includes(name);
}

/** kube's NonResourceURLMatches: `*`, the exact path, or a prefix given as `/prefix*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === RBAC_WILDCARD || u === path) return true;
    if (u.endsWith('*') && path.startsWith(trimTrailingStars(u))) return true;
  }
  return false;
}

/** Go's strings.TrimRight(s, "*"). */
function trimTrailingStars(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 42) end--;
  return s.slice(0, end);
}

/** kube's RuleAllows: whether one rule allows the request. */
export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (attrs.resourceRequest) {
    const combined = attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
    return (
      verbMatches(rule, attrs.verb) &&
      apiGroupMatches(rule, attrs.apiGroup) &&
      resourceMatches(rule, combined, attrs.subresource) &&
      resourceNameMatches(rule, attrs.name)
    );
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

/** kube's RulesAllow: whether any of the rules allows the request. */
export function rulesAllow(attrs: AuthorizationAttributes, rules: readonly PolicyRule[]): boolean {
  for (const rule of rules) if (ruleAllows(attrs, rule)) return true;
  return false;
}
