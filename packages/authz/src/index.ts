export { ABAC_NO_POLICY_MATCHED, ABACAuthorizer } from './abac/abac-authorizer.ts';
export {
  ABAC_GROUP,
  ABAC_V0,
  ABAC_V1BETA1,
  type ABACPolicy,
  ABACPolicyLoadError,
  loadABACPolicyFile,
  parseABACPolicies,
} from './abac/policy.ts';
export { AlwaysAllowAuthorizer } from './always-allow.ts';
export { AlwaysDenyAuthorizer, EVERYTHING_IS_FORBIDDEN } from './always-deny.ts';
export type {
  AuthorizationAttributes,
  AuthorizationResult,
  Authorizer,
  Decision,
  NonResourceRule,
  ResourceRule,
  RulesResult,
} from './authorizer.ts';
export { forbiddenMessage } from './forbidden-message.ts';
export { type Edge, Graph, type Vertex } from './graph/graph.ts';
export {
  GraphAuthorizer,
  type GraphAuthorizerOptions,
  type GraphRule,
  type GraphSubject,
  nodeIdentity,
} from './graph/graph-authorizer.ts';
export { type GraphEventType, GraphFeed, vertexOf } from './graph/graph-feed.ts';
export {
  AUTHORIZATION_MODES,
  type AuthorizationMode,
  type AuthorizationOptions,
  type AuthorizerFactories,
  buildAuthorizer,
  isAuthorizationMode,
  parseAuthorizationModes,
  validateAuthorizationOptions,
} from './modes/authorization-modes.ts';
export { PrivilegedGroupsAuthorizer, systemMastersAuthorizer } from './modes/privileged-groups.ts';
export { type BootstrapPolicyOptions, bootstrapPolicy } from './rbac/bootstrap/bootstrap-policy.ts';
export { AUTOUPDATE_ANNOTATION, BOOTSTRAPPING_LABEL, type BootstrapPolicy, kubeBootstrapPolicy } from './rbac/bootstrap/kube-policy.ts';
export type { RbacObjectStore, RbacStores } from './rbac/bootstrap/rbac-object-store.ts';
export {
  type BootstrapReconcileResult,
  type ReconcileBootstrapPolicyOptions,
  reconcileBootstrapPolicy,
} from './rbac/bootstrap/reconcile-bootstrap-policy.ts';
export { computeReconciledRole, type ReconciledRole, type RuleOwner } from './rbac/bootstrap/reconcile-role.ts';
export { computeReconciledRoleBinding, type ReconciledRoleBinding } from './rbac/bootstrap/reconcile-role-binding.ts';
export { restrictRulesToServed, type ServedResource } from './rbac/bootstrap/served-rules.ts';
export { ClusterRoleResource } from './rbac/cluster-role.ts';
export {
  ClusterRoleAggregationController,
  type ClusterRoleAggregationControllerOptions,
  type ClusterRoleClient,
} from './rbac/cluster-role-aggregation-controller.ts';
export { ClusterRoleBindingResource } from './rbac/cluster-role-binding.ts';
export { compactRules, compactString } from './rbac/escalation/compact-rules.ts';
export { confirmNoEscalation } from './rbac/escalation/confirm-no-escalation.ts';
export { breakdownRule, covers } from './rbac/escalation/covers.ts';
export { bindingAuthorized, escalationAllowed, roleEscalationAuthorized } from './rbac/escalation/escalation-check.ts';
export { isOnlyMutatingGCFields } from './rbac/escalation/gc-fields.ts';
export { type RBACWriteCheckOptions, rbacWriteChecks } from './rbac/escalation/rbac-write-checks.ts';
export type { WriteCheck, WriteCheckAttributes } from './rbac/escalation/write-check.ts';
export type { RBACPolicySource } from './rbac/policy-source.ts';
export { RBAC, type RBACHost, type RBACKindStore, type RBACOptions, servedResources } from './rbac/rbac.ts';
export { RBACAuthorizer } from './rbac/rbac-authorizer.ts';
export { RBACCache, type RBACCacheFeed, type RBACEventType } from './rbac/rbac-cache.ts';
export { rbacResources } from './rbac/rbac-resources.ts';
export { RoleResource } from './rbac/role.ts';
export { RoleBindingResource } from './rbac/role-binding.ts';
export {
  apiGroupMatches,
  nonResourceURLMatches,
  RBAC_WILDCARD,
  resourceMatches,
  resourceNameMatches,
  ruleAllows,
  rulesAllow,
  verbMatches,
} from './rbac/rule-matching.ts';
export {
  type AuthorizationRuleResolver,
  appliesToUser,
  type PolicyRulesResult,
  RBACRuleResolver,
  type RBACRuleResolverOptions,
  RuleSource,
  type RuleVisitor,
} from './rbac/rule-resolver.ts';
export { SubjectIndex, serviceAccountUsername } from './rbac/subject-index.ts';
export {
  type AggregationRule,
  type ClusterRole,
  type ClusterRoleBinding,
  type LabelSelector,
  type LabelSelectorRequirement,
  type PolicyRule,
  RBAC_GROUP,
  type Role,
  type RoleBinding,
  type RoleRef,
  type Subject,
} from './rbac/types.ts';
export {
  type ClusterRoleValidationOptions,
  hasInvalidLabelValueInSelectors,
  type LabelSelectorValidationOptions,
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validateLabelSelector,
  validatePolicyRule,
  validateRBACName,
  validateRole,
  validateRoleBinding,
  validateRoleBindingSubject,
  validateRoleBindingUpdate,
  validateRoleUpdate,
} from './rbac/validation.ts';
export { RULES_NOT_SUPPORTED, rulesOf } from './rules.ts';
export { unionAuthorizer } from './union.ts';
export {
  DEFAULT_AUTHORIZED_TTL_MS,
  DEFAULT_UNAUTHORIZED_TTL_MS,
  DEFAULT_WEBHOOK_NAME,
  WEBHOOK_RULES_NOT_SUPPORTED,
  WebhookAuthorizer,
  WebhookAuthorizerError,
  type WebhookAuthorizerMetrics,
  type WebhookAuthorizerOptions,
  type WebhookEvaluationResult,
} from './webhook/webhook-authorizer.ts';
