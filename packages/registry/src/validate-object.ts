import { copyJson, type FieldError, fieldErrors, type KubeObject } from '@kapi/apimachinery';
import type { z } from 'zod';
import { validateListSetsAndMaps } from './list-type.ts';
import type { ObjectSchema, ResourceDefinition, ResourceVersion } from './resource-definition.ts';
import { safeParseData } from './schema-parse.ts';
import { defOf, formatFieldPath, openAPITypeOf, schemaAt, unwrap } from './schema-walk.ts';
import { type NameValidator, validateObjectMeta } from './validate-object-meta.ts';

/**
 * Schema validation of an object with Kubernetes' field paths and error types. Details follow the words
 * kube-apiserver uses for custom resources (`spec.replicas in body must be of type integer: "string"`), so a
 * client sees what it would see from a CRD.
 */

export interface ValidateOptions {
  /** Overrides the definition's rule for metadata.name (its validateName, else a DNS-1123 subdomain). */
  validateName?: NameValidator;
  /**
   * Check that map lists' keys and set lists' items are unique (default true). An update skips it when the old
   * object already broke it, as kube ratchets the check for custom resources.
   */
  listSetsAndMaps?: boolean;
  /** On update, the old object (same version): the schema's transition rules compare against it. */
  old?: KubeObject;
}

/** The JSON type of a value as Kubernetes names it in messages. */
function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const k of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, k)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

function regexSource(pattern: string | undefined): string {
  const m = /^\/(.*)\/[a-z]*$/s.exec(pattern ?? '');
  return m ? (m[1] as string) : (pattern ?? '');
}

function mapIssue(root: ObjectSchema, body: unknown, issue: z.core.$ZodIssue, base: readonly PropertyKey[], out: FieldError[]): void {
  const path = [...base, ...issue.path];
  const field = formatFieldPath(root, path);
  const value = 'input' in issue ? issue.input : valueAt(body, path);
  const inBody = `${field} in body`;
  switch (issue.code) {
    case 'invalid_type': {
      if (value === undefined) {
        out.push(fieldErrors.required(field));
        return;
      }
      const expected = openAPITypeOf(schemaAt(root, path)) ?? issue.expected;
      const actual = jsonType(value);
      out.push(fieldErrors.typeInvalid(field, actual, `${inBody} must be of type ${expected}: ${JSON.stringify(actual)}`));
      return;
    }
    case 'invalid_value':
      out.push(
        fieldErrors.notSupported(
          field,
          value,
          issue.values.map((v) => String(v)),
        ),
      );
      return;
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') out.push(fieldErrors.tooLong(field, max));
      else if (issue.origin === 'array' || issue.origin === 'set') out.push(fieldErrors.tooMany(field, (value as unknown[]).length, max));
      else if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
        out.push(fieldErrors.invalid(field, value, `${inBody} should be less than ${issue.inclusive ? 'or equal to ' : ''}${max}`));
      else out.push(fieldErrors.invalid(field, value, issue.message));
      return;
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') out.push(fieldErrors.invalid(field, value, `${inBody} should be at least ${min} chars long`));
      else if (issue.origin === 'array' || issue.origin === 'set')
        out.push(fieldErrors.invalid(field, value, `${inBody} should have at least ${min} items`));
      else if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
        out.push(fieldErrors.invalid(field, value, `${inBody} should be greater than ${issue.inclusive ? 'or equal to ' : ''}${min}`));
      else out.push(fieldErrors.invalid(field, value, issue.message));
      return;
    }
    case 'invalid_format':
      if (issue.format === 'regex') out.push(fieldErrors.invalid(field, value, `${inBody} should match '${regexSource(issue.pattern)}'`));
      else out.push(fieldErrors.invalid(field, value, `${inBody} must be of type ${issue.format}: ${JSON.stringify(value)}`));
      return;
    case 'not_multiple_of':
      out.push(fieldErrors.invalid(field, value, `${inBody} should be a multiple of ${String(issue.divisor)}`));
      return;
    case 'unrecognized_keys':
      // Only strict objects get here: the schema's author asked for unknown fields to be rejected.
      for (const k of issue.keys) out.push(fieldErrors.forbidden(formatFieldPath(root, [...path, k]), 'field not declared in schema'));
      return;
    case 'invalid_union': {
      const branches = issue.errors;
      // Every branch failed on the value's type itself: one type error naming every accepted type (int-or-string).
      if (branches.length && branches.every((b) => b.length === 1 && b[0]?.code === 'invalid_type' && b[0].path.length === 0)) {
        if (value === undefined) {
          out.push(fieldErrors.required(field));
          return;
        }
        const union = schemaAt(root, path);
        const options = union ? (defOf(unwrap(union)).options ?? []) : [];
        const types = [...new Set(options.map((o) => openAPITypeOf(o) ?? 'object'))];
        const actual = jsonType(value);
        out.push(fieldErrors.typeInvalid(field, actual, `${inBody} must be of type ${types.join(',')}: ${JSON.stringify(actual)}`));
        return;
      }
      // Otherwise report the branch that came closest.
      const best = [...branches].sort((a, b) => a.length - b.length)[0];
      if (best?.length) for (const i of best) mapIssue(root, body, i, path, out);
      else out.push(fieldErrors.invalid(field, value, issue.message));
      return;
    }
    case 'invalid_key':
      out.push(fieldErrors.invalid(field, path[path.length - 1], issue.issues.map((i) => i.message).join('; ')));
      return;
    default:
      out.push(fieldErrors.invalid(field, value, issue.message));
  }
}

function versionOf(def: ResourceDefinition, version: string): ResourceVersion {
  const v = def.version(version);
  if (!v) throw new Error(`${def.kind}.${def.group} has no version ${JSON.stringify(version)}`);
  return v;
}

function split(obj: unknown): { metadata: unknown; body: Record<string, unknown> } | undefined {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
  const { apiVersion: _a, kind: _k, metadata, ...body } = obj as Record<string, unknown>;
  return { metadata, body };
}

function check(
  def: ResourceDefinition,
  version: string,
  obj: unknown,
  opts: ValidateOptions,
): { errors: FieldError[]; data?: Record<string, unknown> } {
  const v = versionOf(def, version);
  const parts = split(obj);
  if (!parts)
    return { errors: [fieldErrors.typeInvalid('', jsonType(obj), `body must be of type object: ${JSON.stringify(jsonType(obj))}`)] };
  const { listSetsAndMaps = true, validateName = def.validateName, old } = opts;
  const errors = validateObjectMeta(parts.metadata, { namespaced: def.namespaced, ...(validateName ? { validateName } : {}) });
  const whole = obj as Record<string, unknown>;
  const result = v.schema.validate(parts.body, {
    listSetsAndMaps,
    object: whole,
    ...(old ? { old: old as unknown as Record<string, unknown> } : {}),
  });
  errors.push(...result.errors);
  return result.value && !result.errors.length ? { errors, data: result.value } : { errors };
}

/**
 * A zod schema's FieldErrors for `body` (zodVersionSchema's validate): the zod issues in kube's words, then with
 * `listSetsAndMaps` the list-set/map duplicates, as kube appends them, on the defaulted object when there is one
 * (kube defaults first).
 */
export function validateZodBody(
  schema: ObjectSchema,
  body: Record<string, unknown>,
  opts: { listSetsAndMaps: boolean },
): { errors: FieldError[]; value?: Record<string, unknown> } {
  const errors: FieldError[] = [];
  const result = safeParseData(schema, body, { reportInput: true });
  if (!result.success) for (const issue of result.error.issues) mapIssue(schema, body, issue, [], errors);
  if (opts.listSetsAndMaps) errors.push(...validateListSetsAndMaps(schema, result.success ? result.data : body));
  return result.success ? { errors, value: result.data } : { errors };
}

/**
 * Validates an object against one version of its kind: ObjectMeta by Kubernetes' rules and everything else by
 * the version's zod schema. Returns one FieldError per problem (empty when valid); apiVersion and kind are the
 * decoder's to check.
 */
export function validateObject(def: ResourceDefinition, version: string, obj: unknown, opts: ValidateOptions = {}): FieldError[] {
  return check(def, version, obj, opts).errors;
}

export type ParseResult = { ok: true; object: KubeObject } | { ok: false; errors: FieldError[] };

/**
 * Validates like validateObject and, when valid, returns the object as the schema outputs it: defaults applied and
 * fields the schema does not declare pruned (kept where the schema is loose), as kube-apiserver stores a custom resource.
 */
export function parseObject(def: ResourceDefinition, version: string, obj: unknown, opts: ValidateOptions = {}): ParseResult {
  const { errors, data } = check(def, version, obj, opts);
  if (errors.length || !data) return { ok: false, errors };
  const o = obj as KubeObject;
  // metadata.managedFields is the field manager's, never changed after it: shared, not copied again.
  const { managedFields, ...metadata } = o.metadata ?? {};
  const meta = copyJson(metadata) as KubeObject['metadata'];
  if (managedFields !== undefined) meta.managedFields = managedFields;
  return { ok: true, object: { apiVersion: o.apiVersion, kind: o.kind, metadata: meta, ...data } };
}

/** True when `obj` has a repeated map-list key or set-list item (ValidateListSetsAndMaps finds errors). */
export function hasListSetOrMapDuplicates(def: ResourceDefinition, version: string, obj: unknown): boolean {
  const parts = split(obj);
  return !!parts && versionOf(def, version).schema.listSetAndMapErrors(parts.body).length > 0;
}
