import type { MutatingAdmission, ValidatingAdmission } from '../plugin.ts';

/** kube's admission plugin name. */
export const ALWAYS_ADMIT = 'AlwaysAdmit';

/**
 * kube's AlwaysAdmit: admits every request, in admit and in validate. Deprecated in kube (it is the same as no
 * admission control); kept so a configuration naming it works.
 */
export function alwaysAdmit(): MutatingAdmission & ValidatingAdmission {
  return {
    name: ALWAYS_ADMIT,
    handles: () => true,
    admit: async () => {},
    validate: async () => {},
  };
}
