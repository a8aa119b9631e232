import type { AdmissionPlugin, MutatingAdmission, ValidatingAdmission } from './plugin.ts';

/** The plugin can mutate (has `admit`), as kube's `handler.(MutationInterface)` check. */
export function isMutatingAdmission(plugin: AdmissionPlugin): plugin is MutatingAdmission {
  return typeof (plugin as Partial<MutatingAdmission>).admit === 'function';
}

/** The plugin can validate (has `validate`), as kube's `handler.(ValidationInterface)` check. */
export function isValidatingAdmission(plugin: AdmissionPlugin): plugin is ValidatingAdmission {
  return typeof (plugin as Partial<ValidatingAdmission>).validate === 'function';
}
