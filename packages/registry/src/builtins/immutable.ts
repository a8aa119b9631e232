import { type FieldError, fieldErrors } from '@kapi/apimachinery';
import { jsonEqual } from '@kapi/storage';

/** The Forbidden detail of ValidateConfigMapUpdate / ValidateSecretUpdate. */
export const IMMUTABLE_SET_MSG = 'field is immutable when `immutable` is set';

/**
 * Once an object was stored with immutable=true, `immutable` may not be unset and the listed fields may not change
 * (kube-apiserver's ConfigMap and Secret rule). An empty map equals an absent one: omitempty drops it on the wire.
 */
export function validateImmutableData(obj: Record<string, unknown>, old: Record<string, unknown>, fields: readonly string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push(fieldErrors.forbidden('immutable', IMMUTABLE_SET_MSG));
  for (const f of fields) if (!jsonEqual(orAbsent(obj[f]), orAbsent(old[f]))) errs.push(fieldErrors.forbidden(f, IMMUTABLE_SET_MSG));
  return errs;
}

function orAbsent(v: unknown): unknown {
  return typeof v === 'object' && v !== null && Object.keys(v).length === 0 ? undefined : v;
}
