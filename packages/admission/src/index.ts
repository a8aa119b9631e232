export type { AdmissionAttributes, Operation } from './attributes.ts';
export { isMutatingAdmission, isValidatingAdmission } from './capabilities.ts';
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
export { AdmissionReinvocationContext, type ReinvocationContext } from './reinvocation.ts';
