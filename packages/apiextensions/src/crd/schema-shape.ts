import { type FieldError, fieldErrors } from '@kapi/apimachinery';

/**
 * The JSON types of a JSONSchemaProps, checked before any schema walk: what Go's decoding of the CRD refuses (a string
 * where properties are expected, a number as a rule, null as a schema). Errors are worded as the registry words
 * decoding errors (`<path> in body must be of type object: "string"`); kube answers these with a 400 decode error
 * instead. Found with an explicit stack, so any depth is safe.
 */

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'strings' | 'array' | 'any';
const FIELDS: Record<string, Kind> = {
  id: 'string',
  $schema: 'string',
  $ref: 'string',
  description: 'string',
  type: 'string',
  format: 'string',
  title: 'string',
  pattern: 'string',
  'x-kubernetes-list-type': 'string',
  'x-kubernetes-map-type': 'string',
  maximum: 'number',
  minimum: 'number',
  multipleOf: 'number',
  maxLength: 'integer',
  minLength: 'integer',
  maxItems: 'integer',
  minItems: 'integer',
  maxProperties: 'integer',
  minProperties: 'integer',
  exclusiveMaximum: 'boolean',
  exclusiveMinimum: 'boolean',
  uniqueItems: 'boolean',
  nullable: 'boolean',
  'x-kubernetes-preserve-unknown-fields': 'boolean',
  'x-kubernetes-embedded-resource': 'boolean',
  'x-kubernetes-int-or-string': 'boolean',
  required: 'strings',
  'x-kubernetes-list-map-keys': 'strings',
  enum: 'array',
  default: 'any',
  example: 'any',
};
const RULE_FIELDS: Record<string, Kind> = {
  rule: 'string',
  message: 'string',
  messageExpression: 'string',
  reason: 'string',
  fieldPath: 'string',
  optionalOldSelf: 'boolean',
};

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function mismatch(path: string, v: unknown, expected: string): FieldError {
  const actual = typeOf(v);
  return fieldErrors.invalid(path, actual, `${path} in body must be of type ${expected}: "${actual}"`);
}

function checkFields(obj: Record<string, unknown>, fields: Record<string, Kind>, path: string, errs: FieldError[]): void {
  for (const [k, kind] of Object.entries(fields)) {
    const v = obj[k];
    if (v === undefined || v === null || kind === 'any') continue;
    const at = `${path}.${k}`;
    const t = typeOf(v);
    if (kind === 'strings') {
      if (!Array.isArray(v)) errs.push(mismatch(at, v, 'array'));
      else for (const [i, x] of v.entries()) if (typeof x !== 'string') errs.push(mismatch(`${at}[${i}]`, x, 'string'));
    } else if (kind === 'array') {
      if (!Array.isArray(v)) errs.push(mismatch(at, v, 'array'));
    } else if (kind === 'number' ? t !== 'number' && t !== 'integer' : t !== kind) errs.push(mismatch(at, v, kind));
  }
}

export function schemaShapeErrors(root: unknown, rootPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const work: [unknown, string][] = [[root, rootPath]];
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [s, path] = item;
    if (!isObj(s)) {
      errs.push(mismatch(path, s, 'object'));
      continue;
    }
    checkFields(s, FIELDS, path, errs);
    for (const k of ['not']) if (s[k] != null) work.push([s[k], `${path}.${k}`]);
    for (const k of ['additionalProperties', 'additionalItems'])
      if (s[k] != null && typeof s[k] !== 'boolean') work.push([s[k], `${path}.${k}`]);
    if (s.items != null) {
      if (Array.isArray(s.items)) for (const [i, x] of s.items.entries()) work.push([x, `${path}.items[${i}]`]);
      else work.push([s.items, `${path}.items`]);
    }
    for (const k of ['allOf', 'oneOf', 'anyOf']) {
      const v = s[k];
      if (v == null) continue;
      if (!Array.isArray(v)) errs.push(mismatch(`${path}.${k}`, v, 'array'));
      else for (const [i, x] of v.entries()) work.push([x, `${path}.${k}[${i}]`]);
    }
    for (const k of ['properties', 'patternProperties', 'definitions', 'dependencies']) {
      const v = s[k];
      if (v == null) continue;
      if (!isObj(v)) errs.push(mismatch(`${path}.${k}`, v, 'object'));
      else
        for (const [name, x] of Object.entries(v)) {
          // A dependency may be a list of property names instead of a schema.
          if (k === 'dependencies' && Array.isArray(x)) continue;
          work.push([x, `${path}.${k}[${name}]`]);
        }
    }
    const docs = s.externalDocs;
    if (docs != null) {
      if (!isObj(docs)) errs.push(mismatch(`${path}.externalDocs`, docs, 'object'));
      else checkFields(docs, { description: 'string', url: 'string' }, `${path}.externalDocs`, errs);
    }
    const rules = s['x-kubernetes-validations'];
    if (rules != null) {
      const at = `${path}.x-kubernetes-validations`;
      if (!Array.isArray(rules)) errs.push(mismatch(at, rules, 'array'));
      else
        rules.forEach((r, i) => {
          if (!isObj(r)) errs.push(mismatch(`${at}[${i}]`, r, 'object'));
          else checkFields(r, RULE_FIELDS, `${at}[${i}]`, errs);
        });
    }
  }
  return errs;
}
