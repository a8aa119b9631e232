import type { GroupVersionKind, GroupVersionResource } from '@kapi/apimachinery';
import type { MatchPolicyType, NamedRuleWithOperations, RuleWithOperations } from '../admissionregistration/types.ts';
import type { MatchAttributes, RuleMatch } from './match-attributes.ts';
import { matchesRule } from './rule.ts';

/**
 * The rules of a webhook or policy against a request, with kube's matchPolicy: Exact compares the request's own
 * group/version/resource; Equivalent also tries the other served versions of the same resource (kube's
 * EquivalentResourceMapper), earlier rules first, and reports the version matched.
 */

type RulesAttributes = Pick<MatchAttributes, 'operation' | 'resource' | 'subresource' | 'namespace' | 'name' | 'kind' | 'versions'>;

/**
 * The kind of the request's resource in another version. A subresource whose kind has its own group/version (a Scale)
 * keeps it, as kube's KindFor does; otherwise the kind is the same in each version.
 */
export function equivalentKind(attrs: Pick<MatchAttributes, 'kind' | 'resource'>, version: string): GroupVersionKind {
  const k = attrs.kind;
  if (k.group !== attrs.resource.group || k.version !== attrs.resource.version) return k;
  return { group: k.group, version, kind: k.kind };
}

/** The request's resource in each other served version, in the order they are served. */
export function equivalentResources(attrs: Pick<MatchAttributes, 'resource' | 'versions'>): GroupVersionResource[] {
  const out: GroupVersionResource[] = [];
  for (const v of attrs.versions?.served ?? [])
    if (v !== attrs.resource.version) out.push({ group: attrs.resource.group, version: v, resource: attrs.resource.resource });
  return out;
}

function nameAllowed(rule: NamedRuleWithOperations, name: string): boolean {
  const names = rule.resourceNames;
  // An empty list allows every name. (A CREATE with generateName has no name yet and matches only the empty list.)
  return names === undefined || names.length === 0 || names.includes(name);
}

/**
 * kube's webhook ShouldCallHook rule step: the first rule that covers the request as it is; failing that, with
 * Equivalent, the first rule (in order) covering another served version. undefined when none does.
 */
export function matchRules(
  rules: readonly RuleWithOperations[] | undefined,
  matchPolicy: MatchPolicyType | undefined,
  attrs: RulesAttributes,
): RuleMatch | undefined {
  return matchNamedRules(rules, matchPolicy, attrs, false);
}

/**
 * kube's policy matchesResourceRules: as matchRules, but each rule may also be limited to resourceNames.
 */
export function matchNamedRules(
  rules: readonly NamedRuleWithOperations[] | undefined,
  matchPolicy: MatchPolicyType | undefined,
  attrs: RulesAttributes,
  checkNames = true,
): RuleMatch | undefined {
  if (!rules || rules.length === 0) return undefined;
  for (const rule of rules)
    if (matchesRule(rule, attrs) && (!checkNames || nameAllowed(rule, attrs.name)))
      return { resource: attrs.resource, kind: attrs.kind, equivalent: false };
  if (matchPolicy !== 'Equivalent') return undefined;
  const equivalents = equivalentResources(attrs);
  if (equivalents.length === 0) return undefined;
  for (const rule of rules)
    for (const resource of equivalents) {
      if (!matchesRule(rule, { ...attrs, resource })) continue;
      if (checkNames && !nameAllowed(rule, attrs.name)) continue;
      return { resource, kind: equivalentKind(attrs, resource.version), equivalent: true };
    }
  return undefined;
}
