/**
 * Removing (SMD `TypedValue.RemoveItems`) or keeping only (`TypedValue.ExtractItems`) the fields of a set in a
 * value, what apply's prune and kube's field extraction do. A map entry or list item that is a member of the set
 * goes (or, extracting, stays whole); one with members below it is walked into. As SMD does, a list or map left
 * with no items becomes null (not `[]` / `{}`), and atomic or empty containers are never walked into.
 *
 * Inputs are plain JSON values (from JSON.parse) and are never mutated; the result is new where it changed and
 * shares untouched subtrees with `value`.
 */
import { fieldElement, type PathElement } from '../fieldpath/path-element.ts';
import type { FieldSet } from '../fieldpath/set.ts';
import { isJsonObject, setOwn } from '../json-data.ts';
import { deduceMask, handlerOf, isEmptyObject, listItemToPathElement } from './helpers.ts';
import { EMPTY_TYPE_REF, type ListType, type MapType, type Schema, type TypedSchema, type TypeRef } from './schema.ts';
import { toFieldSet } from './to-field-set.ts';

/** `value` without the fields of `toRemove`. */
export function removeItems(type: TypedSchema, value: unknown, toRemove: FieldSet): unknown {
  return walk(type.schema, type.typeRef, value, toRemove, false);
}

export interface ExtractOptions {
  /** Also keep the key fields of every kept map-list item (SMD's WithAppendKeyFields). */
  appendKeyFields?: boolean;
}

/**
 * Only the fields of `items` of `value` (entries and items kept whole when they are members). With
 * `appendKeyFields`, the key fields of the map-list items on the paths of `items` that `value` has are kept too.
 */
export function extractItems(type: TypedSchema, value: unknown, items: FieldSet, options: ExtractOptions = {}): unknown {
  let set = items;
  if (options.appendKeyFields) {
    let present: FieldSet | undefined;
    try {
      present = toFieldSet(type, value);
    } catch {
      // SMD appends no key fields when the value's own field set cannot be computed.
    }
    if (present) set = withKeyFields(set, present);
  }
  return walk(type.schema, type.typeRef, value, set, true);
}

/** `set` plus, under every key path element of its paths that `present` has, that key's field names. */
function withKeyFields(set: FieldSet, present: FieldSet): FieldSet {
  let out = set;
  set.forEachPath((path) => {
    if (!present.has(path)) return;
    for (let i = 0; i < path.length; i++) {
      const pe = path[i] as PathElement;
      if (!('key' in pe)) continue;
      for (const name of Object.keys(pe.key)) out = out.insert([...path.slice(0, i + 1), fieldElement(name)]);
    }
  });
  return out;
}

// Returns the new value; `null` where SMD's walker produces no output (an emptied container, a value of the wrong kind).
function walk(schema: Schema, tr: TypeRef, v: unknown, set: FieldSet, extract: boolean): unknown {
  const atom = schema.resolve(tr);
  if (!atom) return null;
  switch (handlerOf(deduceMask(atom, v))) {
    case 'scalar':
      return v ?? null;
    case 'list':
      return doList(schema, atom.list as ListType, v, set, extract);
    case 'map':
      return doMap(schema, atom.map as MapType, v, set, extract);
    default:
      return null;
  }
}

function doList(schema: Schema, t: ListType, v: unknown, set: FieldSet, extract: boolean): unknown {
  if (!Array.isArray(v)) return null;
  if (v.length === 0 || t.elementRelationship === 'atomic') return extract ? v : null;
  const items: unknown[] = [];
  for (const item of v) {
    const pe = listItemToPathElement(schema, t, item);
    if (typeof pe === 'string') {
      if (!extract) items.push(item); // unidentifiable items are validation's to report; keep them
      continue;
    }
    const exact = set.hasMember(pe);
    const sub = set.child(pe);
    if (extract) {
      if (sub) items.push(walk(schema, t.elementType, item, sub, true));
      else if (exact) items.push(item);
    } else {
      if (exact) continue;
      items.push(sub ? walk(schema, t.elementType, item, sub, false) : item);
    }
  }
  return items.length > 0 ? items : null;
}

function doMap(schema: Schema, t: MapType, v: unknown, set: FieldSet, extract: boolean): unknown {
  if (!isJsonObject(v)) return null;
  if (isEmptyObject(v) || t.elementRelationship === 'atomic') return extract ? v : null;
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key of Object.keys(v)) {
    const val = v[key];
    const pe = fieldElement(key);
    const ft = schema.findField(t, key)?.type ?? t.elementType ?? EMPTY_TYPE_REF;
    if (set.hasMember(pe)) {
      // SMD walks a kept member with the whole set, not the subset under it; done the same for identical results.
      if (extract) {
        setOwn(out, key, walk(schema, ft, val, set, true));
        n++;
      }
      continue;
    }
    const sub = set.child(pe);
    let nv = val;
    if (sub) nv = walk(schema, ft, val, sub, extract);
    else if (extract) continue;
    setOwn(out, key, nv);
    n++;
  }
  return n > 0 ? out : null;
}
