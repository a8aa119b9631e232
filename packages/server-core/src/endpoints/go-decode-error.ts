import { newBadRequest, type StatusError } from '@kapi/apimachinery';

/** The Go JSON type names of a value, as a decode error names what it found. */
function goJsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** How kube's decoding errors begin: `<kind> in version "v1" cannot be handled as a <kind>`. */
export function cannotBeHandled(kind: string, version: string): string {
  return `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}`;
}

/**
 * The 400 kube answers when a field of a body does not decode into its Go type, before anything else looks at it:
 * `<kind> in version "v1" cannot be handled as a <kind>: json: cannot unmarshal number into Go struct field
 * SubjectAccessReviewSpec.spec.user of type string`.
 */
export function goDecodeError(kind: string, version: string, found: unknown, struct: string, path: string, type: string): StatusError {
  return newBadRequest(
    `${cannotBeHandled(kind, version)}: json: cannot unmarshal ${goJsonType(found)} into Go struct field ${struct}.${path} of type ${type}`,
  );
}
