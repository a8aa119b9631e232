import { jsonEqual } from '@kapi/apimachinery';
import { covers } from '../escalation/covers.ts';
import type { AggregationRule, ClusterRole, LabelSelector, PolicyRule, Role } from '../types.ts';
import { AUTOUPDATE_ANNOTATION } from './kube-policy.ts';
import { reconcileMetadata } from './reconcile-metadata.ts';

/** A Role or ClusterRole: kube's RuleOwner. A Role simply never has an aggregationRule. */
export type RuleOwner = Role | ClusterRole;

export interface ReconciledRole<T extends RuleOwner> {
  /** The object to write (a copy of the existing one with what is missing added), or the existing one for 'none'. */
  role: T;
  operation: 'update' | 'none';
  /** The existing object opted out (its autoupdate annotation is "false"): nothing is written whatever `operation` says. */
  protected: boolean;
  /** Expected rules the existing object does not cover, broken down to one verb, group, resource and name each. */
  missingRules: PolicyRule[];
  /** Rules of the existing object beyond the expected ones (not computed when both are aggregated). */
  extraRules: PolicyRule[];
  missingSelectors: LabelSelector[];
  extraSelectors: LabelSelector[];
}

/**
 * kube's computeReconciledRole (pkg/registry/rbac/reconciliation): the existing role with the expected labels and
 * annotations added (the existing values win), the expected rules it does not cover added, and the expected
 * aggregation selectors it lacks added. With removeExtraPermissions the rules and selectors are replaced by the
 * expected ones instead (kubectl auth reconcile --remove-extra-permissions); bootstrap reconciliation never does that.
 */
export function computeReconciledRole<T extends RuleOwner>(existing: T, expected: T, removeExtraPermissions = false): ReconciledRole<T> {
  const role = structuredClone(existing) as T;
  let operation: 'update' | 'none' = 'none';
  const isProtected = existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';

  if (reconcileMetadata(role, existing, expected)) operation = 'update';

  const expectedAggregation = aggregationOf(expected);
  const existingAggregation = aggregationOf(existing);
  const existingRules = existing.rules ?? [];
  const expectedRules = expected.rules ?? [];
  // an aggregated role's rules are the aggregation controller's: they are not extra when both are aggregated
  const extraRules = expectedAggregation && existingAggregation ? [] : covers(expectedRules, existingRules).missing;
  const missingRules = covers(existingRules, expectedRules).missing;
  if (!removeExtraPermissions && missingRules.length > 0) {
    role.rules = [...existingRules.map((r) => structuredClone(r)), ...missingRules];
    operation = 'update';
  } else if (removeExtraPermissions && (missingRules.length > 0 || extraRules.length > 0)) {
    role.rules = structuredClone(expectedRules);
    operation = 'update';
  }

  const extraSelectors = uncoveredSelectors(expectedAggregation, existingAggregation);
  const missingSelectors = uncoveredSelectors(existingAggregation, expectedAggregation);
  if (!expectedAggregation && existingAggregation) {
    // not expected to be aggregated at all: the aggregation goes
    delete (role as ClusterRole).aggregationRule;
    operation = 'update';
  } else if (!removeExtraPermissions && missingSelectors.length > 0) {
    const selectors = [
      ...(existingAggregation?.clusterRoleSelectors ?? []).map((s) => structuredClone(s)),
      ...structuredClone(missingSelectors),
    ];
    (role as ClusterRole).aggregationRule = { ...(role as ClusterRole).aggregationRule, clusterRoleSelectors: selectors };
    operation = 'update';
  } else if (removeExtraPermissions && (missingSelectors.length > 0 || extraSelectors.length > 0)) {
    (role as ClusterRole).aggregationRule = structuredClone(expectedAggregation);
    operation = 'update';
  }

  return {
    role: operation === 'none' ? existing : role,
    operation,
    protected: isProtected,
    missingRules,
    extraRules,
    missingSelectors,
    extraSelectors,
  };
}

function aggregationOf(owner: RuleOwner): AggregationRule | undefined {
  return (owner as ClusterRole).aggregationRule ?? undefined;
}

/** kube's aggregationRuleCovers: the servant's selectors no owner selector equals. */
function uncoveredSelectors(owner: AggregationRule | undefined, servant: AggregationRule | undefined): LabelSelector[] {
  if (!servant) return [];
  if (!owner) return servant.clusterRoleSelectors ?? [];
  const ownerSelectors = owner.clusterRoleSelectors ?? [];
  return (servant.clusterRoleSelectors ?? []).filter((s) => !ownerSelectors.some((o) => selectorsEqual(o, s)));
}

/** equality.Semantic.DeepEqual on label selectors: an empty list or map is the same as none. */
function selectorsEqual(a: LabelSelector, b: LabelSelector): boolean {
  const normal = (s: LabelSelector) => ({
    matchLabels: s.matchLabels && Object.keys(s.matchLabels).length > 0 ? s.matchLabels : undefined,
    matchExpressions: s.matchExpressions && s.matchExpressions.length > 0 ? s.matchExpressions : undefined,
  });
  return jsonEqual(normal(a), normal(b));
}
