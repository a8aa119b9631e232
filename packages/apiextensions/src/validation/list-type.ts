import { type FieldError, fieldErrors, goSharpV, OMIT_VALUE } from '@kapi/apimachinery';
import { child, index, key } from '../schema/field-path.ts';
import type { Structural } from '../schema/structural.ts';
import { goJSON, isInt64 } from './go-text.ts';

/**
 * ValidateListSetsAndMaps (apiextensions-apiserver schema/listtype): items of an `x-kubernetes-list-type: set`
 * are unique, and the keys (`x-kubernetes-list-map-keys`) of a `map` list's items are unique, each later copy
 * reported once as `Duplicate value` at its index. The walk follows the structural schema: properties,
 * additionalProperties and items.
 */
export function validateListSetsAndMaps(fldPath: string, s: Structural | undefined, obj: unknown): FieldError[] {
  if (!s || obj === null || typeof obj !== 'object' || Array.isArray(obj)) return [];
  const errs: FieldError[] = [];
  const o = obj as Record<string, unknown>;
  const additional = s.additionalProperties?.structural;
  if (additional) for (const [k, v] of Object.entries(o)) errs.push(...listSetsAndMaps(key(fldPath, k), additional, v));
  if (s.properties) {
    for (const [k, v] of Object.entries(o)) {
      const sub = s.properties.get(k);
      if (sub) errs.push(...listSetsAndMaps(child(fldPath, k), sub, v));
    }
  }
  return errs;
}

function listSetsAndMaps(fldPath: string, s: Structural, v: unknown): FieldError[] {
  if (Array.isArray(v)) return validateArray(fldPath, s, v);
  if (v !== null && typeof v === 'object') return validateListSetsAndMaps(fldPath, s, v);
  return [];
}

/** field.Duplicate as kube prints it: a scalar as ErrorBody does, a map or list with Go's %#v (map[string]interface {}{…}). */
function duplicate(field: string, value: unknown): FieldError {
  if (typeof value === 'object' && value !== null)
    return { type: 'FieldValueDuplicate', field, badValue: OMIT_VALUE, detail: goSharpV(value) };
  return { type: 'FieldValueDuplicate', field, badValue: value };
}

function validateArray(fldPath: string, s: Structural, list: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  switch (s.xListType) {
    case 'set':
      for (const i of nonUniqueIndices(list)) errs.push(duplicate(index(fldPath, i), list[i]));
      break;
    case 'map':
      errs.push(...validateListMap(fldPath, s, list));
      break;
  }
  const items = s.items;
  if (items && !Array.isArray(items))
    for (let i = 0; i < list.length; i++) errs.push(...listSetsAndMaps(index(fldPath, i), items, list[i]));
  return errs;
}

/** An absent key differs from every value, null included. */
const UNSPECIFIED = Symbol('unspecified key');

/** How Go tells scalars apart as map keys: int64 1 and float64 1.5 are different keys, so are "1" and 1. */
function scalarKey(x: unknown): string {
  if (x === UNSPECIFIED) return 'u';
  if (x === null || x === undefined) return 'n';
  if (typeof x === 'number') return `${isInt64(x) ? 'i' : 'f'}${x}`;
  return `${typeof x}:${String(x)}`;
}

/** validateListSet: the index of each value's second occurrence (later ones are not reported again). */
function nonUniqueIndices(list: unknown[]): number[] {
  if (list.length <= 1) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  list.forEach((x, i) => {
    const k = x !== null && typeof x === 'object' ? `c${goJSON(x)}` : `s${scalarKey(x)}`;
    const times = seen.get(k) ?? 0;
    seen.set(k, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

function validateListMap(fldPath: string, s: Structural, list: unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && (typeof x !== 'object' || Array.isArray(x)))
      return [fieldErrors.invalid(index(fldPath, i), x, 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keyFields = s.xListMapKeys ?? [];
  if (keyFields.length === 1) {
    const keyField = keyFields[0] as string;
    const keys = list.map((x) => {
      const o = x as Record<string, unknown> | null;
      return o !== null && Object.hasOwn(o, keyField) ? o[keyField] : UNSPECIFIED;
    });
    return nonUniqueIndices(keys).map((i) => duplicate(index(fldPath, i), keys[i] === UNSPECIFIED ? {} : { [keyField]: keys[i] }));
  }
  const keys = list.map((x) => {
    const key: Record<string, unknown> = {};
    const o = x as Record<string, unknown> | null;
    if (o !== null) for (const f of keyFields) if (Object.hasOwn(o, f)) key[f] = o[f];
    return key;
  });
  return nonUniqueIndices(keys).map((i) => duplicate(index(fldPath, i), keys[i]));
}
