import { type FieldError, fieldErrors } from '@kapi/apimachinery';
import { child } from './field-path.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { newStructural } from './new-structural.ts';
import type { Structural } from './structural.ts';
import { type ValueValidator, validateDefaults } from './validate-defaults.ts';
import { validateSchemaRules } from './validate-schema-rules.ts';
import { validateStructural } from './validate-structural.ts';
import { SCALAR_VALUE_FIELDS } from './value-validation-fields.ts';

export interface CRDSchemaOptions {
  /** The version serves the status subresource: only some fields may be set at the root. */
  statusSubresource?: boolean;
  /** Checks each default against its schema (see validateDefaults). */
  validateValue?: ValueValidator;
  /**
   * Whether the schema must be structural (default true). An update may keep a stored non-structural schema
   * (kube's ratchet): then neither the structural rules nor the defaults are checked.
   */
  requireStructuralSchema?: boolean;
  /** Whether defaults must be pruned already (default true); an update may keep stored unpruned defaults. */
  requirePrunedDefaults?: boolean;
}

/** The root fields allowed with the status subresource, in kube's Go names and order (printed as a Go slice). */
const ALLOWED_AT_ROOT: [goName: string, wire: keyof JSONSchemaProps][] = [
  ['Description', 'description'],
  ['Type', 'type'],
  ['Format', 'format'],
  ['Title', 'title'],
  ['Maximum', 'maximum'],
  ['ExclusiveMaximum', 'exclusiveMaximum'],
  ['Minimum', 'minimum'],
  ['ExclusiveMinimum', 'exclusiveMinimum'],
  ['MaxLength', 'maxLength'],
  ['MinLength', 'minLength'],
  ['Pattern', 'pattern'],
  ['MaxItems', 'maxItems'],
  ['MinItems', 'minItems'],
  ['UniqueItems', 'uniqueItems'],
  ['MultipleOf', 'multipleOf'],
  ['Required', 'required'],
  ['Items', 'items'],
  ['Properties', 'properties'],
  ['ExternalDocs', 'externalDocs'],
  ['Example', 'example'],
  ['XPreserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'],
  ['XValidations', 'x-kubernetes-validations'],
];
const ALLOWED_WIRE = new Set(ALLOWED_AT_ROOT.map(([, w]) => w as string));
const ALLOWED_TEXT = `[${ALLOWED_AT_ROOT.map(([g]) => g).join(' ')}]`;

/** The wire names of apiextensions.JSONSchemaProps' fields, in their Go declaration order. */
const GO_FIELD_ORDER: (keyof JSONSchemaProps)[] = [
  'id',
  '$schema',
  '$ref',
  'description',
  'type',
  'nullable',
  'format',
  'title',
  'default',
  ...SCALAR_VALUE_FIELDS,
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'patternProperties',
  'dependencies',
  'additionalItems',
  'definitions',
  'externalDocs',
  'example',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
];

/** Schemas within schemas (properties, items, additionalProperties, allOf, …) a CRD schema may nest. */
export const MAX_SCHEMA_DEPTH = 1000;

/**
 * Whether schemas nest deeper than `max` (the root is depth 1), found with an explicit stack. Reads the schema as
 * untyped JSON, so a field of the wrong JSON type (allOf: 5) is skipped here and refused by the shape checks.
 */
export function exceedsSchemaDepth(root: JSONSchemaProps, max: number): boolean {
  const work: [unknown, number][] = [[root, 1]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [s, depth] = item;
    if (typeof s !== 'object' || s === null || Array.isArray(s)) continue;
    if (depth > max) return true;
    const r = s as Record<string, unknown>;
    const subs: unknown[] = [r.not, r.additionalProperties, r.additionalItems];
    for (const k of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(r[k])) subs.push(...(r[k] as unknown[]));
    subs.push(...(Array.isArray(r.items) ? r.items : [r.items]));
    for (const k of ['properties', 'patternProperties', 'definitions', 'dependencies'])
      if (typeof r[k] === 'object' && r[k] !== null) subs.push(...Object.values(r[k] as object));
    for (const sub of subs) work.push([sub, depth + 1]);
  }
  return false;
}

/** The fields Go declares as a plain bool or string (not a pointer): false or "" is their zero value. */
const PLAIN_BOOLS = new Set<string>([
  'nullable',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
]);
const PLAIN_STRINGS = new Set<string>(['id', '$schema', 'description', 'type', 'format', 'title', 'pattern']);

/**
 * Go's zero value of a field, which reflect.DeepEqual skips: absent or null, false for a plain bool, "" for a plain
 * string. A pointer (default: false, $ref: "") or an empty list or map is set.
 */
function isZero(key: string, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (PLAIN_BOOLS.has(key)) return v === false;
  return PLAIN_STRINGS.has(key) && v === '';
}

export interface CRDSchemaResult {
  errors: FieldError[];
  /** The structural schema, when the schema is one (no errors). */
  structural?: Structural;
}

/**
 * validateCustomResourceDefinitionValidation (apis/apiextensions/validation/validation.go) for one CRD version's
 * schema, without its CEL part: `fldPath` is where the schema's CustomResourceValidation sits
 * (`spec.versions[0].schema`); errors name `fldPath.openAPIV3Schema…`, in kube's order: the status-subresource root
 * restriction, nullable at the root, the structural rules ({@link validateStructural}) and, when they pass, the
 * defaults ({@link validateDefaults}), then the rules on the schema itself ({@link validateSchemaRules}); the reason
 * newStructural refuses a schema is given only when nothing else was found, as kube does.
 */
export function validateCRDSchema(schema: JSONSchemaProps, fldPath: string, opts: CRDSchemaOptions = {}): CRDSchemaResult {
  const errors: FieldError[] = [];
  const path = child(fldPath, 'openAPIV3Schema');
  // The schema walks here and in the value validator recurse once per level; Go's growable stacks take any depth the
  // decoder lets in (thousands of levels), V8's does not. No real schema comes near this limit.
  if (exceedsSchemaDepth(schema, MAX_SCHEMA_DEPTH)) {
    return { errors: [fieldErrors.forbidden(path, `must not be nested more than ${MAX_SCHEMA_DEPTH} schemas deep`)] };
  }
  if (opts.statusSubresource) {
    // kube walks the fields in declaration order and reports the first that is not allowed, then stops.
    for (const k of GO_FIELD_ORDER) {
      const v = schema[k];
      if (isZero(k, v)) continue;
      if (k === 'type') {
        if (v !== 'object') {
          errors.push(
            fieldErrors.invalid(
              child(fldPath, 'openAPIV3Schema.type'),
              v,
              'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
            ),
          );
          break;
        }
        continue;
      }
      if (!ALLOWED_WIRE.has(k)) {
        errors.push(
          fieldErrors.invalid(
            path,
            schema,
            `only ${ALLOWED_TEXT} fields are allowed at the root of the schema if the status subresource is enabled`,
          ),
        );
        break;
      }
    }
  }
  if (schema.nullable)
    errors.push(fieldErrors.forbidden(child(fldPath, 'openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));

  let structural: Structural | undefined;
  let initErrors: FieldError[] = [];
  let structuralOk = false;
  if (opts.requireStructuralSchema ?? true) {
    try {
      structural = newStructural(schema);
    } catch (e) {
      // Shown only when nothing else is wrong: these overlap with the schema rules' errors.
      initErrors = [fieldErrors.invalid(path, '', (e as Error).message)];
    }
    if (structural !== undefined) {
      const structuralErrors = validateStructural(path, structural);
      if (structuralErrors.length > 0) errors.push(...structuralErrors);
      else {
        const defaultErrors = validateDefaults(path, structural, {
          isResourceRoot: true,
          requirePrunedDefaults: opts.requirePrunedDefaults ?? true,
          validateValue: opts.validateValue,
        });
        errors.push(...defaultErrors);
        structuralOk = defaultErrors.length === 0;
      }
    }
  }
  errors.push(...validateSchemaRules(schema, path));
  if (errors.length === 0 && initErrors.length > 0) errors.push(...initErrors);
  return errors.length === 0 && structuralOk ? { errors, structural } : { errors };
}
