import type { RuleWithOperations } from '../admissionregistration/types.ts';
import type { MatchAttributes } from './match-attributes.ts';

/** kube's predicates/rules.Matcher: does a webhook or policy rule cover the request? */

type RuleAttributes = Pick<MatchAttributes, 'operation' | 'resource' | 'subresource' | 'namespace'>;

function exactOrWildcard(items: readonly string[] | undefined, requested: string): boolean {
  if (!items) return false;
  for (const item of items) if (item === '*' || item === requested) return true;
  return false;
}

function isNamespaceResource(r: RuleAttributes['resource']): boolean {
  return r.group === '' && r.version === 'v1' && r.resource === 'namespaces';
}

function scopeMatches(rule: RuleWithOperations, attrs: RuleAttributes): boolean {
  const scope = rule.scope;
  if (scope === undefined || scope === '*') return true;
  // A Namespace is cluster-scoped although its requests carry its own name as their namespace.
  if (scope === 'Namespaced') return !isNamespaceResource(attrs.resource) && attrs.namespace !== '';
  if (scope === 'Cluster') return isNamespaceResource(attrs.resource) || attrs.namespace === '';
  return false;
}

function operationMatches(rule: RuleWithOperations, attrs: RuleAttributes): boolean {
  for (const op of rule.operations ?? []) if (op === '*' || op === attrs.operation) return true;
  return false;
}

function resourceMatches(rule: RuleWithOperations, attrs: RuleAttributes): boolean {
  const opRes = attrs.resource.resource;
  const opSub = attrs.subresource;
  for (const entry of rule.resources ?? []) {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    if ((res === '*' || res === opRes) && (sub === '*' || sub === opSub)) return true;
  }
  return false;
}

/**
 * True when the rule covers the request: scope, operation ('*' for all), API group and version (exact or '*') and
 * resource ('*', 'r', 'r/s', 'r/*', '*' + '/s', '*' + '/*'; a bare resource never matches a subresource).
 */
export function matchesRule(rule: RuleWithOperations, attrs: RuleAttributes): boolean {
  return (
    scopeMatches(rule, attrs) &&
    operationMatches(rule, attrs) &&
    exactOrWildcard(rule.apiGroups, attrs.resource.group) &&
    exactOrWildcard(rule.apiVersions, attrs.resource.version) &&
    resourceMatches(rule, attrs)
  );
}
