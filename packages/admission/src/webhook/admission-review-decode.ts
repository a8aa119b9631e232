/**
 * The type checks Go's JSON decoder makes when kube reads a webhook's AdmissionReview into admissionv1 types: a field
 * of the wrong JSON type (`allowed: "yes"`, `status.code: 404.5`, `status.reason: {}`, `status.details.causes: "x"`)
 * fails the call (`failed to call webhook: json: cannot unmarshal …`), so the webhook's failurePolicy decides, as in
 * kube. Without them such an answer was taken as a denial under Ignore too, and a malformed Status reached the client.
 * Only the response is checked (kube decodes the request an answer echoes as well, but never reads it).
 */

type Kind =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'bytes'
  | 'strings'
  | 'stringMap'
  | { struct: string; fields: Fields }
  | { list: { struct: string; fields: Fields } };
interface Fields {
  [name: string]: Kind;
}

const statusCause: Fields = { reason: 'string', message: 'string', field: 'string' };
const statusDetails: Fields = {
  name: 'string',
  group: 'string',
  kind: 'string',
  uid: 'string',
  causes: { list: { struct: 'StatusCause', fields: statusCause } },
  retryAfterSeconds: 'int32',
};
const listMeta: Fields = { selfLink: 'string', resourceVersion: 'string', continue: 'string', remainingItemCount: 'int64' };
const status: Fields = {
  kind: 'string',
  apiVersion: 'string',
  metadata: { struct: 'ListMeta', fields: listMeta },
  status: 'string',
  message: 'string',
  reason: 'string',
  details: { struct: 'StatusDetails', fields: statusDetails },
  code: 'int32',
};
const admissionResponse: Fields = {
  uid: 'string',
  allowed: 'bool',
  status: { struct: 'Status', fields: status },
  patch: 'bytes',
  patchType: 'string',
  auditAnnotations: 'stringMap',
  warnings: 'strings',
};
const admissionReview: Fields = {
  kind: 'string',
  apiVersion: 'string',
  response: { struct: 'AdmissionResponse', fields: admissionResponse },
};

function jsonType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  return Array.isArray(v) ? 'array' : 'object';
}

/** Go's number text for a JSON number (enough for the error's `number 404.5`). */
function numberText(n: number): string {
  return String(n).replace('e+', 'e');
}

class TypeMismatch extends Error {}

/** Go names a number by its text only when the target is an integer it does not fit (`number 404.5`). */
function mismatch(value: unknown, struct: string, path: string, goType: string): TypeMismatch {
  const t = jsonType(value);
  const shown = t === 'number' && (goType === 'int32' || goType === 'int64') ? `number ${numberText(value as number)}` : t;
  return new TypeMismatch(`json: cannot unmarshal ${shown} into Go struct field ${struct}.${path} of type ${goType}`);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function checkValue(value: unknown, kind: Kind, struct: string, path: string): void {
  if (value === null) return; // null leaves Go's zero value
  if (kind === 'string') {
    if (typeof value !== 'string') throw mismatch(value, struct, path, 'string');
  } else if (kind === 'bool') {
    if (typeof value !== 'boolean') throw mismatch(value, struct, path, 'bool');
  } else if (kind === 'int32' || kind === 'int64') {
    const ok =
      typeof value === 'number' &&
      Number.isInteger(value) &&
      (kind === 'int32' ? value >= -2147483648 && value <= 2147483647 : Number.isSafeInteger(value));
    if (!ok) throw mismatch(value, struct, path, kind);
  } else if (kind === 'bytes') {
    if (typeof value !== 'string') throw mismatch(value, struct, path, '[]uint8');
    const text = value.replace(/[\r\n]/g, '');
    if (!BASE64.test(text) || text.length % 4 !== 0) {
      const bad = text.search(/[^A-Za-z0-9+/=]/);
      throw new TypeMismatch(`illegal base64 data at input byte ${bad >= 0 ? bad : text.length - (text.length % 4)}`);
    }
  } else if (kind === 'strings') {
    if (!Array.isArray(value)) throw mismatch(value, struct, path, '[]string');
    for (const item of value) if (item !== null && typeof item !== 'string') throw mismatch(item, struct, path, 'string');
  } else if (kind === 'stringMap') {
    if (typeof value !== 'object' || Array.isArray(value)) throw mismatch(value, struct, path, 'map[string]string');
    for (const item of Object.values(value)) if (item !== null && typeof item !== 'string') throw mismatch(item, struct, path, 'string');
  } else if ('struct' in kind) {
    if (typeof value !== 'object' || Array.isArray(value)) throw mismatch(value, struct, path, `v1.${kind.struct}`);
    checkFields(value as Record<string, unknown>, kind.struct, kind.fields, path);
  } else {
    if (!Array.isArray(value)) throw mismatch(value, struct, path, `[]v1.${kind.list.struct}`);
    for (const item of value) {
      if (item === null) continue;
      if (typeof item !== 'object' || Array.isArray(item)) throw mismatch(item, struct, path, `v1.${kind.list.struct}`);
      checkFields(item as Record<string, unknown>, kind.list.struct, kind.list.fields, path);
    }
  }
}

/** In the document's order: Go reports the first mismatch it meets. */
function checkFields(obj: Record<string, unknown>, struct: string, fields: Fields, prefix: string): void {
  for (const [name, value] of Object.entries(obj)) {
    const kind = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (kind !== undefined) checkValue(value, kind, struct, prefix ? `${prefix}.${name}` : name);
  }
}

/**
 * Undefined when `review` decodes into admissionv1.AdmissionReview as Go decodes it; otherwise the decoder's error
 * text. A body that is not an object was refused earlier (couldn't get version/kind).
 */
export function admissionReviewDecodeError(review: unknown): string | undefined {
  if (!review || typeof review !== 'object' || Array.isArray(review)) return undefined;
  try {
    checkFields(review as Record<string, unknown>, 'AdmissionReview', admissionReview, '');
    return undefined;
  } catch (err) {
    if (err instanceof TypeMismatch) return err.message;
    throw err;
  }
}
