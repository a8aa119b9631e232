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
export { type BootstrapPolicyOptions, bootstrapPolicy } from './rbac/bootstrap/bootstrap-policy.ts';
export { AUTOUPDATE_ANNOTATION, BOOTSTRAPPING_LABEL, type BootstrapPolicy, kubeBootstrapPolicy } from './rbac/bootstrap/kube-policy.ts';
export { restrictRulesToServed, type ServedResource } from './rbac/bootstrap/served-rules.ts';
export { RULES_NOT_SUPPORTED, rulesOf } from './rules.ts';
export { unionAuthorizer } from './union.ts';
