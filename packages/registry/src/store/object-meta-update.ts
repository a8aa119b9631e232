import { type FieldError, fieldErrors, type KubeObject } from '@kapi/apimachinery';

const IMMUTABLE = ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const;

/**
 * apimachinery's ValidateObjectMetaUpdate: what no update may change, and no new finalizers once deletion started.
 * Go prints a []string with %#v, so the message keeps that form.
 */
export function validateObjectMetaUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const m = obj.metadata;
  const o = old.metadata;
  if (o.deletionTimestamp) {
    const extra = [...new Set(m.finalizers ?? [])].filter((f) => !(o.finalizers ?? []).includes(f)).sort();
    if (extra.length)
      errs.push(
        fieldErrors.forbidden(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
  }
  // Every update runs this: the fields are read by name, nothing is built unless one changed.
  for (const field of IMMUTABLE) {
    const now = m[field];
    if ((now ?? '') !== (o[field] ?? '')) errs.push(fieldErrors.invalid(`metadata.${field}`, now ?? null, 'field is immutable'));
  }
  return errs;
}
