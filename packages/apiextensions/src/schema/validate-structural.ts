import { type FieldError, fieldErrorMessage, fieldErrors } from '@kapi/apimachinery';
import { compileRE2, RE2SyntaxError } from '@kapi/cel';
import { child, index, key } from './field-path.ts';
import type { NestedValueValidation, Structural, ValueValidation } from './structural.ts';

type Level = 'root' | 'item' | 'field';

/**
 * ValidateStructural (schema/validation.go, complete.go): the invariants that make `s` structural, as field errors
 * under `path` (the caller's, e.g. `spec.versions[0].schema.openAPIV3Schema`), sorted by message as kube sorts them:
 *
 * - every value validation under allOf/anyOf/oneOf/not leaves type, default, title, description, nullable,
 *   externalDocs, additionalProperties, the x-kubernetes extensions and metadata alone, except the two int-or-string
 *   patterns (`anyOf: [{type: integer}, {type: string}]`, alone or first in an allOf);
 * - a type everywhere unless x-kubernetes-preserve-unknown-fields or x-kubernetes-int-or-string says otherwise; items
 *   for arrays; object at the root; no additionalProperties at the root;
 * - x-kubernetes-embedded-resource with type object, and properties unless unknown fields are preserved;
 * - apiVersion and kind strings and metadata an object at the root and in embedded resources, the root's metadata
 *   restricting nothing but name and generateName;
 * - every property and items a value validation names is also in the structural schema.
 */
export function validateStructural(path: string, s: Structural): FieldError[] {
  const errs = [...validateInvariants(s, 'root', path), ...validateCompleteness(s.valueValidation, s, path, path)];
  const msg = new Map(errs.map((e) => [e, fieldErrorMessage(e)]));
  return errs.sort((a, b) => compare(msg.get(a) as string, msg.get(b) as string));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function validateInvariants(s: Structural | undefined, lvl: Level, path: string): FieldError[] {
  if (s === undefined) return [];
  const errs: FieldError[] = [];

  if (s.type === 'array' && s.items === undefined) errs.push(fieldErrors.required(child(path, 'items'), 'must be specified'));
  errs.push(...validateInvariants(s.items, 'item', child(path, 'items')));
  for (const [k, v] of s.properties ?? []) errs.push(...validateInvariants(v, 'field', key(child(path, 'properties'), k)));
  if (s.additionalProperties !== undefined) {
    if (lvl === 'root') errs.push(fieldErrors.forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    errs.push(...validateInvariants(s.additionalProperties.structural, 'field', child(path, 'additionalProperties')));
  }

  if (s.xIntOrString && s.xPreserveUnknownFields) {
    errs.push(
      fieldErrors.invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'),
    );
  }
  if (s.xIntOrString && s.xEmbeddedResource) {
    errs.push(
      fieldErrors.invalid(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'),
    );
  }

  errs.push(
    ...validateValueValidation(s.valueValidation, isIntOrStringAnyOf(s.valueValidation), isIntOrStringAllOf(s.valueValidation), lvl, path),
  );

  const checkMetadata = lvl === 'root' || s.xEmbeddedResource === true;
  const type = s.type ?? '';
  if (s.xEmbeddedResource && type !== 'object') {
    const detail = 'must be object if x-kubernetes-embedded-resource is true';
    errs.push(type === '' ? fieldErrors.required(child(path, 'type'), detail) : fieldErrors.invalid(child(path, 'type'), type, detail));
  } else if (type === '' && !s.xIntOrString && !s.xPreserveUnknownFields) {
    const detail = {
      root: 'must not be empty at the root',
      item: 'must not be empty for specified array items',
      field: 'must not be empty for specified object fields',
    }[lvl];
    errs.push(fieldErrors.required(child(path, 'type'), detail));
  }
  if (s.xEmbeddedResource && s.additionalProperties !== undefined) {
    errs.push(fieldErrors.forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && type !== '' && type !== 'object')
    errs.push(fieldErrors.invalid(child(path, 'type'), type, 'must be object at the root'));

  for (const meta of ['kind', 'apiVersion']) {
    const p = s.properties?.get(meta);
    if (p !== undefined && checkMetadata && p.type !== 'string') {
      errs.push(fieldErrors.invalid(child(key(child(path, 'properties'), meta), 'type'), p.type ?? '', 'must be string'));
    }
  }
  const metadata = s.properties?.get('metadata');
  if (metadata !== undefined)
    errs.push(...validateMetadataInvariants(metadata, checkMetadata, lvl, key(child(path, 'properties'), 'metadata')));

  if (s.xEmbeddedResource && !s.xPreserveUnknownFields && (s.properties?.size ?? 0) === 0) {
    errs.push(
      fieldErrors.required(
        child(path, 'properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
  return errs;
}

function validateMetadataInvariants(s: Structural, checkMetadata: boolean, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && s.type !== 'object') errs.push(fieldErrors.invalid(child(path, 'type'), s.type ?? '', 'must be object'));
  if (lvl === 'root') {
    // What may be said of the root's metadata: its type (checked above), its default (checked by the CRD validation),
    // and properties name and/or generateName (their schemas are ignored, ObjectMeta validation decides).
    const { type: _t, default: _d, properties, valueValidation, ...rest } = s;
    const onlyNames = properties === undefined || [...properties.keys()].every((k) => k === 'name' || k === 'generateName');
    if (!onlyNames || !isEmpty(rest) || !isEmpty(valueValidation ?? {})) {
      errs.push(
        fieldErrors.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'),
      );
    }
  }
  return errs;
}

/** A conversion sets only fields that differ from Go's zero values, so "no own keys" is Go's zero struct. */
function isEmpty(o: object): boolean {
  return Object.values(o).every((v) => v === undefined);
}

/** Exactly `{type: t}` and nothing else, as reflect.DeepEqual against kube's intOrStringAnyOf entries. */
function isOnlyType(n: NestedValueValidation | undefined, t: string): boolean {
  if (n === undefined) return false;
  const { forbiddenGenerics, forbiddenExtensions, ...rest } = n;
  const { type, ...otherGenerics } = forbiddenGenerics;
  return type === t && isEmpty(otherGenerics) && isEmpty(forbiddenExtensions) && isEmpty(rest);
}

function isIntOrStringPair(anyOf: NestedValueValidation[] | undefined): boolean {
  return anyOf?.length === 2 && isOnlyType(anyOf[0], 'integer') && isOnlyType(anyOf[1], 'string');
}

function isIntOrStringAnyOf(v: ValueValidation | undefined): boolean {
  return isIntOrStringPair(v?.anyOf);
}

function isIntOrStringAllOf(v: ValueValidation | undefined): boolean {
  return (v?.allOf?.length ?? 0) >= 1 && isIntOrStringPair(v?.allOf?.[0]?.anyOf);
}

function validateValueValidation(
  v: ValueValidation | undefined,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  lvl: Level,
  path: string,
): FieldError[] {
  if (v === undefined) return [];
  const errs: FieldError[] = [];
  if (!skipAnyOf)
    for (const [i, n] of (v.anyOf ?? []).entries()) errs.push(...validateNested(n, false, lvl, index(child(path, 'anyOf'), i)));
  for (const [i, n] of (v.allOf ?? []).entries())
    errs.push(...validateNested(n, skipFirstAllOfAnyOf && i === 0, lvl, index(child(path, 'allOf'), i)));
  for (const [i, n] of (v.oneOf ?? []).entries()) errs.push(...validateNested(n, false, lvl, index(child(path, 'oneOf'), i)));
  errs.push(...validateNested(v.not, false, lvl, child(path, 'not')));
  if (v.pattern) {
    const problem = regexpProblem(v.pattern);
    if (problem !== undefined)
      errs.push(fieldErrors.invalid(child(path, 'pattern'), v.pattern, `must be a valid regular expression, but isn't: ${problem}`));
  }
  return errs;
}

/** Why a pattern does not compile as Go's regexp (RE2) compiles it, in Go's words, or undefined. */
function regexpProblem(pattern: string): string | undefined {
  try {
    compileRE2(pattern);
    return undefined;
  } catch (e) {
    if (e instanceof RE2SyntaxError) return e.message;
    throw e;
  }
}

function validateNested(v: NestedValueValidation | undefined, skipAnyOf: boolean, lvl: Level, path: string): FieldError[] {
  if (v === undefined) return [];
  const errs: FieldError[] = [];
  errs.push(...validateValueValidation(v, skipAnyOf, false, lvl, path));
  errs.push(...validateNested(v.items, false, lvl, child(path, 'items')));
  for (const [k, p] of v.properties ?? []) errs.push(...validateNested(p, false, 'field', key(child(path, 'properties'), k)));

  const g = v.forbiddenGenerics;
  const x = v.forbiddenExtensions;
  const forbid = (name: string, detail: string) => errs.push(fieldErrors.forbidden(child(path, name), detail));
  if (g.type) forbid('type', 'must be empty to be structural');
  if (v.additionalProperties !== undefined) forbid('additionalProperties', 'must be undefined to be structural');
  if (g.default !== undefined) forbid('default', 'must be undefined to be structural');
  if (g.title) forbid('title', 'must be empty to be structural');
  if (g.description) forbid('description', 'must be empty to be structural');
  if (g.nullable) forbid('nullable', 'must be false to be structural');
  if (g.externalDocs !== undefined) forbid('externalDocs', 'must be undefined to be structural');
  if (x.xPreserveUnknownFields) forbid('x-kubernetes-preserve-unknown-fields', 'must be false to be structural');
  if (x.xEmbeddedResource) forbid('x-kubernetes-embedded-resource', 'must be false to be structural');
  if (x.xIntOrString) forbid('x-kubernetes-int-or-string', 'must be false to be structural');
  if (x.xListMapKeys?.length) forbid('x-kubernetes-list-map-keys', 'must be empty to be structural');
  if (x.xListType !== undefined) forbid('x-kubernetes-list-type', 'must be undefined to be structural');
  if (x.xMapType !== undefined) forbid('x-kubernetes-map-type', 'must be undefined to be structural');
  if (v.xValidations?.length) forbid('x-kubernetes-validations', 'must be empty to be structural');
  // Reasoning about metadata here could restrict it in ways ObjectMeta validation does not expect.
  if (v.properties?.has('metadata'))
    errs.push(fieldErrors.forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  return errs;
}

/** validateStructuralCompleteness: what a value validation names (properties, items) the structural schema names too. */
function validateCompleteness(v: ValueValidation | undefined, s: Structural | undefined, sPath: string, vPath: string): FieldError[] {
  if (v === undefined) return [];
  if (s === undefined) return [fieldErrors.required(sPath, `because it is defined in ${vPath}`)];
  const errs: FieldError[] = [];
  errs.push(...validateNestedCompleteness(v.not, s, sPath, child(vPath, 'not')));
  for (const [i, n] of (v.allOf ?? []).entries()) errs.push(...validateNestedCompleteness(n, s, sPath, index(child(vPath, 'allOf'), i)));
  for (const [i, n] of (v.anyOf ?? []).entries()) errs.push(...validateNestedCompleteness(n, s, sPath, index(child(vPath, 'anyOf'), i)));
  for (const [i, n] of (v.oneOf ?? []).entries()) errs.push(...validateNestedCompleteness(n, s, sPath, index(child(vPath, 'oneOf'), i)));
  return errs;
}

function validateNestedCompleteness(
  v: NestedValueValidation | undefined,
  s: Structural | undefined,
  sPath: string,
  vPath: string,
): FieldError[] {
  if (v === undefined) return [];
  if (s === undefined) return [fieldErrors.required(sPath, `because it is defined in ${vPath}`)];
  const errs: FieldError[] = [];
  errs.push(...validateCompleteness(v, s, sPath, vPath));
  errs.push(...validateNestedCompleteness(v.items, s.items, child(sPath, 'items'), child(vPath, 'items')));
  for (const [k, p] of v.properties ?? []) {
    const sp = key(child(sPath, 'properties'), k);
    const vp = key(child(vPath, 'properties'), k);
    const sFld = s.properties?.get(k);
    if (sFld === undefined) errs.push(fieldErrors.required(sp, `because it is defined in ${vp}`));
    else errs.push(...validateNestedCompleteness(p, sFld, sp, vp));
  }
  return errs;
}
