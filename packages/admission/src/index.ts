export { AdmissionControl, type AdmissionControlHost, type AdmissionControlOptions } from './admission-control.ts';
export { admissionExpressionChecker } from './admissionregistration/cel-expression-checker.ts';
export { namespaceLookupOf, ObjectCache, type ObjectCacheOptions } from './admissionregistration/object-cache.ts';
export { admissionRegistrationResources, admissionRegistrationResourcesWith } from './admissionregistration/resources.ts';
export type * from './admissionregistration/types.ts';
export {
  ADMISSION_REGISTRATION_API_VERSION,
  ADMISSION_REGISTRATION_GROUP,
} from './admissionregistration/types.ts';
export {
  ValidatingAdmissionPolicyBindingResource,
  ValidatingAdmissionPolicyResource,
} from './admissionregistration/validating-admission-policy-resources.ts';
export type { ExpressionChecker } from './admissionregistration/validation.ts';
export {
  MutatingWebhookConfigurationResource,
  ValidatingWebhookConfigurationResource,
} from './admissionregistration/webhook-configuration-resources.ts';
export type { AdmissionAttributes, Operation } from './attributes.ts';
export { isMutatingAdmission, isValidatingAdmission } from './capabilities.ts';
export { AdmissionCompiler } from './cel/compiler.ts';
export { AdmissionEvaluation, RUNTIME_CEL_COST_BUDGET } from './cel/evaluation.ts';
export { compileMatchConditions, type MatchConditionResult, type MatchConditions } from './cel/match-conditions.ts';
export { admissionRequest } from './cel/request.ts';
export { AdmissionChain, type AdmissionChainOptions } from './chain.ts';
export {
  ADMISSION_CONFIGURATION_VERSIONS,
  type AdmissionConfiguration,
  type AdmissionPluginConfiguration,
  parseAdmissionConfiguration,
  pluginConfigFor,
  readAdmissionConfiguration,
} from './config/admission-configuration.ts';
export { decodePluginConfig, type PluginConfigKind } from './config/plugin-config.ts';
export { ALL_ORDERED_PLUGINS, DEFAULT_ON_PLUGINS } from './config/plugin-names.ts';
export { type AdmissionPluginFactory, AdmissionPluginRegistry, type BuildChainOptions } from './config/plugin-registry.ts';
export { admissionForbidden } from './forbidden.ts';
export { type HostParamSource, hostParamSource, type ParamHost } from './host-param-source.ts';
export type { MatchAttributes, NamespaceLookup, RuleMatch } from './matching/match-attributes.ts';
export { matchesResources, type ResourcesMatch } from './matching/match-resources.ts';
export { matchNamedRules, matchRules } from './matching/match-rules.ts';
export { matchesRule } from './matching/rule.ts';
export { matchesNamespaceSelector, matchesObjectSelector } from './matching/selectors.ts';
export { isExemptAdmissionConfigurationResource, matchWebhook, type WebhookMatch } from './matching/webhook.ts';
export {
  type AdmissionMetrics,
  type AdmissionStepType,
  noopAdmissionMetrics,
  type PolicyCheckErrorType,
  type PolicyEnforcementAction,
  type WebhookRejectionErrorType,
} from './metrics.ts';
export type { AdmissionPlugin, MutatingAdmission, ValidatingAdmission } from './plugin.ts';
export { type AdmissionPluginSpec, admissionPlugin, DENY_ALL_MESSAGE, denyAll } from './plugin-factory.ts';
export { ALWAYS_ADMIT, alwaysAdmit } from './plugins/always-admit.ts';
export {
  OWNER_REFERENCES_PERMISSION_ENFORCEMENT,
  type OwnerReferencesPermissionEnforcementOptions,
  ownerReferencesPermissionEnforcement,
} from './plugins/owner-references/owner-references-permission.ts';
export { type RESTMapper, type RESTMapping, restMapperFor } from './plugins/owner-references/rest-mapper.ts';
export type { LimitedResource } from './plugins/resource-quota/quota-check.ts';
export { QuotaController, type QuotaControllerOptions } from './plugins/resource-quota/quota-controller.ts';
export { objectCountName } from './plugins/resource-quota/quota-names.ts';
export { ResourceQuota } from './plugins/resource-quota/resource-quota.ts';
export {
  RESOURCE_QUOTA_PLUGIN,
  ResourceQuotaAdmission,
  type ResourceQuotaAdmissionOptions,
  type ResourceQuotaHost,
} from './plugins/resource-quota/resource-quota-admission.ts';
export {
  parseResourceQuotaConfiguration,
  RESOURCE_QUOTA_CONFIGURATION_KINDS,
  type ResourceQuotaConfiguration,
} from './plugins/resource-quota/resource-quota-configuration.ts';
export { type ParamKindRef, type ParamSource, paramsFromObjects } from './policy/param-source.ts';
export {
  reasonToCode,
  VALIDATING_ADMISSION_POLICY_PLUGIN_NAME,
  VALIDATION_FAILURE_ANNOTATION,
  type ValidatingAdmissionPolicyOptions,
  ValidatingAdmissionPolicyPlugin,
} from './policy/plugin.ts';
export {
  type KindSchemas,
  type PolicyStatusWriter,
  PolicyTypeCheckingController,
  TYPE_CHECKING_CONTROLLER_NAME,
  typeCheckPolicy,
} from './policy/type-checking.ts';
export { AdmissionReinvocationContext, type ReinvocationContext } from './reinvocation.ts';
export * from './webhook/index.ts';
