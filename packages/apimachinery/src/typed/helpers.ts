/**
 * What the typed walkers share (SMD typed/helpers.go): validation errors, picking the part of an Atom a value
 * has (deduceAtom), scalar checks with SMD's messages, and the PathElement of an associative-list item.
 *
 * Values are plain JSON as JSON.parse returns them; `undefined` means absent (SMD's nil Value), `null` is a
 * present null.
 */
import type { PathElement } from '../fieldpath/path-element.ts';
import { goSharpV } from '../go-format.ts';
import { isJsonObject, type JsonRendering, renderJson } from '../json-data.ts';
import { type Atom, type ListType, type Scalar, type Schema, type TypeRef, typeRefName } from './schema.ts';

/** One problem found while walking a value, at a path as SMD prints it (`.spec.ports[port=80]`). */
export interface ValidationError {
  path: string;
  message: string;
}

export function validationErrorString(e: ValidationError): string {
  return e.path ? `${e.path}: ${e.message}` : e.message;
}

/** The errors of a walk, thrown by toFieldSet / compare / merge; the message is SMD's ValidationErrors.Error(). */
export class ValidationErrors extends Error {
  readonly errors: readonly ValidationError[];
  constructor(errors: readonly ValidationError[]) {
    super(
      errors.length === 1
        ? validationErrorString(errors[0] as ValidationError)
        : ['errors:', ...errors.map((e) => `  ${validationErrorString(e)}`)].join('\n'),
    );
    this.name = 'ValidationErrors';
    this.errors = errors;
  }
}

export const errorf = (message: string): ValidationError[] => [{ path: '', message }];

/** Bits of an Atom's parts. */
const SCALAR = 1;
const LIST = 2;
const MAP = 4;

/** The parts an Atom has, as bits. */
function atomMask(a: Atom): number {
  return (a.scalar ? SCALAR : 0) | (a.list ? LIST : 0) | (a.map ? MAP : 0);
}

/**
 * SMD's deduceAtom as bits: the one part of `a` that fits `v`, or all of `a`'s parts when `v` is absent, null
 * or fits none (validation then reports the mismatch). Two deduced atoms are equal when their bits are.
 */
export function deduceMask(a: Atom, v: unknown): number {
  if (v === undefined || v === null) return atomMask(a);
  if (Array.isArray(v)) return a.list ? LIST : atomMask(a);
  if (typeof v === 'object') return a.map ? MAP : atomMask(a);
  return a.scalar ? SCALAR : atomMask(a);
}

/** Which handler runs for deduced bits (SMD's handleAtom tries map, then scalar, then list). */
export function handlerOf(mask: number): 'map' | 'scalar' | 'list' | undefined {
  if (mask & MAP) return 'map';
  if (mask & SCALAR) return 'scalar';
  if (mask & LIST) return 'list';
  return undefined;
}

export function invalidAtomError(tr: TypeRef): ValidationError[] {
  return errorf(`schema error: invalid atom: ${tr.namedType !== undefined ? `named type: ${tr.namedType}` : 'inlined'}`);
}

export function noTypeError(tr: TypeRef): ValidationError[] {
  return errorf(`schema error: no type found matching: ${typeRefName(tr)}`);
}

// Go's formatting of a decoded JSON value, for the messages SMD prints with %v / %T (%#v is goSharpV, shared). renderJson
// walks with an explicit stack, so a value nested as deep as the decoder allows prints without overflowing.
const GO_V: JsonRendering = {
  scalar: (v) => (v === null || v === undefined ? '<nil>' : String(v)),
  keys: (o) => Object.keys(o).sort(),
  key: (k) => `${k}:`,
  array: ['[', ' ', ']'],
  object: ['map[', ' ', ']'],
};

const goV = (v: unknown): string => renderJson(v, GO_V);

function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** The answer for a valid scalar, shared: every leaf of every compare and merge is checked. */
const NO_ERRORS: readonly ValidationError[] = Object.freeze([]);

/** SMD's validateScalar: absent and null pass; otherwise the value's kind must be the scalar's. */
export function validateScalar(t: Scalar, v: unknown, prefix: string): readonly ValidationError[] {
  if (v === undefined || v === null) return NO_ERRORS;
  switch (t) {
    case 'numeric':
      return typeof v === 'number' ? NO_ERRORS : errorf(`${prefix}expected numeric (int or float), got ${goType(v)}`);
    case 'string':
      return typeof v === 'string' ? NO_ERRORS : errorf(`${prefix}expected string, got &value.valueUnstructured{Value:${goSharpV(v)}}`);
    case 'boolean':
      return typeof v === 'boolean' ? NO_ERRORS : errorf(`${prefix}expected boolean, got &{${goV(v)}}`);
    case 'untyped':
      return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean'
        ? NO_ERRORS
        : errorf(`${prefix}expected any scalar, got &{${goV(v)}}`);
    default:
      return errorf(`${prefix}unexpected scalar type in schema: ${String(t)}`);
  }
}

/**
 * The scalar check of a two-sided walk (compare, merge): an error only when neither side fits, then both sides'
 * errors (`lhs: …`, `rhs: …`), as SMD's doScalar reports them.
 */
export function validateScalarPair(t: Scalar, lhs: unknown, rhs: unknown): readonly ValidationError[] {
  const lerrs = validateScalar(t, lhs, 'lhs: ');
  if (!lerrs.length) return lerrs;
  const rerrs = validateScalar(t, rhs, 'rhs: ');
  return rerrs.length ? [...lerrs, ...rerrs] : rerrs;
}

/** "expected list/map, got …" for a value of the wrong kind (SMD's listValue / mapValue). */
export function wrongKind(expected: 'list' | 'map', v: unknown): string {
  return v === undefined ? `expected ${expected}, got nil` : `expected ${expected}, got &{${goV(v)}}`;
}

function goQuoteList(keys: readonly string[]): string {
  return `[${keys.map((k) => JSON.stringify(k)).join(' ')}]`;
}

/**
 * The PathElement of an item of an associative list (SMD's listItemToPathElement): a map-list item's key fields
 * (a missing key field takes its schema default; one without a default is left out), a set item's value.
 * Returns an error message for items that cannot be identified.
 */
export function listItemToPathElement(schema: Schema, list: ListType, child: unknown): PathElement | string {
  if (list.elementRelationship !== 'associative') return 'invalid indexing of non-associative list';
  const keys = list.keys;
  if (keys && keys.length > 0) {
    if (child === null || child === undefined) return 'associative list with keys may not have a null element';
    if (!isJsonObject(child)) return 'associative list with keys may not have non-map elements';
    const key: Record<string, unknown> = {};
    let n = 0;
    for (const name of keys) {
      if (Object.hasOwn(child, name)) {
        key[name] = child[name];
        n++;
        continue;
      }
      const atom = schema.resolve(list.elementType);
      if (!atom) return `couldn't find default value for ${name}: invalid elementType for list`;
      if (!atom.map) return `couldn't find default value for ${name}: associative list may not have non-map types`;
      const def = schema.findField(atom.map, name)?.default;
      if (def !== undefined && def !== null) {
        key[name] = def;
        n++;
      }
    }
    if (n === 0)
      return `associative list with keys has an element that omits all key fields ${goQuoteList(keys)} (and doesn't have default values for any key fields)`;
    return { key };
  }
  if (isJsonObject(child)) return "associative list without keys has an element that's a map type";
  if (Array.isArray(child)) return 'not supported: associative list with lists as elements';
  if (child === null || child === undefined) return "associative list without keys has an element that's an explicit null";
  return { value: child };
}

/**
 * A cheap identity for a list item's path element, equal exactly when the elements are (SMD compares keys and
 * values as values), to match items and find repeated ones without serializing FieldsV1 keys.
 */
export function itemIdentity(pe: PathElement): string {
  if ('value' in pe) return scalarIdentity(pe.value);
  const key = (pe as { key: Record<string, unknown> }).key;
  let out = '';
  for (const name of Object.keys(key).sort()) out += `${name}\u0000${scalarIdentity(key[name])}\u0000`;
  return out;
}

function scalarIdentity(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return `s${v}`;
    case 'number':
      return `n${v}`;
    case 'boolean':
      return v ? 't' : 'f';
    default:
      return `j${JSON.stringify(v)}`;
  }
}

/** Whether an object has no keys (without building Object.keys). */
export function isEmptyObject(o: object): boolean {
  for (const _ in o) return false;
  return true;
}
