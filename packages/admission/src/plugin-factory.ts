import type { AdmissionAttributes, Operation } from './attributes.ts';
import { admissionForbidden } from './forbidden.ts';
import type { AdmissionPlugin, MutatingAdmission, ValidatingAdmission } from './plugin.ts';

const ALL_OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

export interface AdmissionPluginSpec {
  readonly name: string;
  /** The operations it handles; default all four. */
  readonly operations?: readonly Operation[];
  readonly admit?: (attrs: AdmissionAttributes) => Promise<void> | void;
  readonly validate?: (attrs: AdmissionAttributes) => Promise<void> | void;
}

/** A plugin from plain functions (kube's admission.NewHandler plus the functions); it is mutating and/or validating as given. */
export function admissionPlugin(spec: AdmissionPluginSpec): AdmissionPlugin & Partial<MutatingAdmission & ValidatingAdmission> {
  const ops = new Set(spec.operations ?? ALL_OPERATIONS);
  const plugin: AdmissionPlugin & Partial<MutatingAdmission & ValidatingAdmission> = {
    name: spec.name,
    handles: (op) => ops.has(op),
  };
  const { admit, validate } = spec;
  if (admit) plugin.admit = async (attrs) => admit(attrs);
  if (validate) plugin.validate = async (attrs) => validate(attrs);
  return plugin;
}

/** kube's AlwaysDeny admission plugin's message. */
export const DENY_ALL_MESSAGE = 'admission control is denying all modifications';

/**
 * kube's AlwaysDeny admission plugin, named: rejects every handled operation, in admit and in validate, with
 * `<resource> "<name>" is forbidden: admission control is denying all modifications`.
 */
export function denyAll(name = 'AlwaysDeny', operations: readonly Operation[] = ALL_OPERATIONS): MutatingAdmission & ValidatingAdmission {
  const deny = (attrs: AdmissionAttributes): never => {
    throw admissionForbidden(attrs, new Error(DENY_ALL_MESSAGE));
  };
  const ops = new Set(operations);
  return {
    name,
    handles: (op) => ops.has(op),
    admit: async (attrs) => deny(attrs),
    validate: async (attrs) => deny(attrs),
  };
}
