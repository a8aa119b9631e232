export type { AdmissionAttributes, Operation } from './attributes.ts';
export { isMutatingAdmission, isValidatingAdmission } from './capabilities.ts';
export { AdmissionChain } from './chain.ts';
export { admissionForbidden } from './forbidden.ts';
export type { AdmissionPlugin, MutatingAdmission, ValidatingAdmission } from './plugin.ts';
export { type AdmissionPluginSpec, admissionPlugin, DENY_ALL_MESSAGE, denyAll } from './plugin-factory.ts';
