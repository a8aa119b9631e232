import { isForbidden, newForbidden, type StatusError } from '@kapi/apimachinery';
import type { AdmissionAttributes } from './attributes.ts';

/**
 * kube's admission.NewForbidden: `<resource> "<name>" is forbidden: <why>`, naming the request's
 * resource and its name (or, on CREATE without one, the object's name or generateName; else "Unknown").
 * A Forbidden StatusError is returned as is rather than wrapped twice.
 */
export function admissionForbidden(attrs: AdmissionAttributes, why: string | Error): StatusError {
  if (isForbidden(why)) return why as StatusError;
  let name = attrs.name;
  if (name === '') {
    const meta = attrs.object?.metadata;
    name = meta?.name || meta?.generateName || 'Unknown';
  }
  return newForbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, name, why);
}
