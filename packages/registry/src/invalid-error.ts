import { type FieldError, newInvalid, type StatusError } from '@kapi/apimachinery';
import type { ResourceDefinition } from './resource-definition.ts';

/** The 422 Invalid a client gets for `errs`: `Widget.example.kapi.dev "w1" is invalid: …`, one cause per error. */
export function invalidError(def: ResourceDefinition, name: string, errs: readonly FieldError[]): StatusError {
  return newInvalid(def.groupKind, name, errs);
}
