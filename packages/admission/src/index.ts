export type { AdmissionAttributes, Operation } from './attributes.ts';
export type { AdmissionPlugin, MutatingAdmission, ValidatingAdmission } from './plugin.ts';
