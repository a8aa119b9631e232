import type { AdmissionAttributes, Operation } from './attributes.ts';

/** Every admission plugin says which operations it cares about (kube's admission.Interface). */
export interface AdmissionPlugin {
  readonly name: string;
  handles(operation: Operation): boolean;
}

/** Runs before the store: may change `attrs.object` in place. Throw a StatusError to reject. */
export interface MutatingAdmission extends AdmissionPlugin {
  admit(attrs: AdmissionAttributes): Promise<void>;
}

/** Runs inside the store, after validation, on the final object. Must not mutate. Throw a StatusError to reject. */
export interface ValidatingAdmission extends AdmissionPlugin {
  validate(attrs: AdmissionAttributes): Promise<void>;
}
