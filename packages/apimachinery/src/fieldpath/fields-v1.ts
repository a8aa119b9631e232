/**
 * FieldsV1 — how `metadata.managedFields[].fieldsV1` writes a FieldSet (SMD's serialize.go): an object whose keys
 * are serialized PathElements; a member with nothing under it is `{}`, a node with members below is the object of
 * those, and a node that is both a member and a parent starts with `".": {}`. Keys come in SMD's element order
 * (members and children merged), the order kube writes.
 */
import { isJsonObject } from '../json-data.ts';
import { ElementKind, parsePathElement, UnknownPathElementTypeError } from './path-element.ts';
import { compareElems, type Elem, elemOf, FieldSet, keyOf } from './set.ts';

/** The FieldsV1 object of a set. */
export function fieldSetToFieldsV1(set: FieldSet): Record<string, unknown> {
  return emit(set, false);
}

/** The FieldsV1 JSON text of a set (building the object and stringifying it measured faster than writing text). */
export function fieldSetToFieldsV1Json(set: FieldSet): string {
  return JSON.stringify(emit(set, false));
}

function emit(s: FieldSet, self: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (self) out['.'] = {};
  const m = s.m;
  const ce = s.ce;
  let i = 0;
  let j = 0;
  while (i < m.length || j < ce.length) {
    const c = i === m.length ? 1 : j === ce.length ? -1 : compareElems(m[i] as Elem, ce[j] as Elem);
    if (c < 0) {
      out[keyOf(m[i++] as Elem)] = {}; // keys are `x:...` or `.`, never `__proto__`
    } else {
      out[keyOf(ce[j] as Elem)] = emit(s.cs[j] as FieldSet, c === 0);
      if (c === 0) i++;
      j++;
    }
  }
  return out;
}

/**
 * Decodes a FieldsV1 object (already parsed JSON). Keys of a kind this version does not know are dropped, as SMD
 * does; a malformed key or a value that is not an object throws an Error saying what is wrong.
 */
export function fieldSetFromFieldsV1(json: unknown): FieldSet {
  if (json === null || json === undefined) return FieldSet.empty();
  if (!isJsonObject(json)) throw new Error(`managedFields parsing: expected a JSON object, got ${describe(json)}`);
  return read(json) ?? FieldSet.empty();
}

/** Decodes FieldsV1 JSON text (SMD's Set.FromJSON): JSON errors and trailing data throw, as decoding errors do. */
export function fieldSetFromFieldsV1Json(text: string): FieldSet {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`managedFields parsing: ${(err as Error).message}`);
  }
  return fieldSetFromFieldsV1(json);
}

function describe(v: unknown): string {
  return Array.isArray(v) ? 'an array' : typeof v;
}

/** Set by read() as it returns: whether the node it read is itself a member (`"."`, or a leaf `{}` / null). */
let readIsMember = false;

/** The set under a FieldsV1 node; undefined when nothing (known) is under it. */
function read(o: Record<string, unknown>): FieldSet | undefined {
  let member = false;
  let m: Elem[] | undefined;
  let ce: Elem[] | undefined;
  let cs: FieldSet[] | undefined;
  // for…in with an own-key check: no array of its keys is made, and a polluted prototype adds nothing.
  for (const key in o) {
    if (!Object.hasOwn(o, key)) continue;
    const v = o[key];
    // An undefined member is absent, as in the JSON the object is stored as (and in managedFields' decoding cache,
    // which is keyed by that JSON: an error here would depend on what the cache held).
    if (v === undefined) continue;
    if (key === '.') {
      member = true;
      continue;
    }
    let e = ELEMS.get(key);
    if (e === undefined) {
      try {
        e = elemOfKey(key);
      } catch (err) {
        if (err instanceof UnknownPathElementTypeError) continue;
        throw new Error(`managedFields parsing: parsing key as path element: ${(err as Error).message}`);
      }
    }
    let sub: FieldSet | undefined;
    if (v === null) {
      sub = undefined;
      readIsMember = true;
    } else if (isJsonObject(v)) sub = read(v);
    else throw new Error(`managedFields parsing: the value of ${JSON.stringify(key)} must be an object, got ${describe(v)}`);
    if (readIsMember) {
      if (m === undefined) m = [e];
      else insertMember(m, e);
    }
    if (sub !== undefined) {
      if (ce === undefined) {
        ce = [e];
        cs = [sub];
      } else insertChild(ce, cs as FieldSet[], e, sub);
    }
  }
  if (m === undefined && ce === undefined) {
    readIsMember = true;
    return undefined;
  }
  readIsMember = member;
  return new FieldSet(m ?? NONE, ce ?? NONE, cs ?? NO_SETS);
}

const NONE: readonly Elem[] = [];
const NO_SETS: readonly FieldSet[] = [];

/**
 * Elements by FieldsV1 key. The same keys come back on every write of an object (and across objects of a kind),
 * and elements are immutable, so decoding shares them instead of parsing each key again. Bounded: keys up to
 * ELEM_KEY_MAX characters, cleared when full.
 */
const ELEMS = new Map<string, Elem>();
const ELEMS_MAX = 20_000;
const ELEM_KEY_MAX = 256;

function elemOfKey(key: string): Elem {
  // Field names, nearly every key: the key is already the element's canonical form. Keys, values and indexes are
  // written again canonically (sorted key fields, Go's JSON), as SMD does.
  const e: Elem =
    key.charCodeAt(0) === 0x66 /* f */ && key.charCodeAt(1) === 0x3a /* : */
      ? { pe: { fieldName: key.slice(2) }, k: ElementKind.Field, s: key }
      : elemOf(parsePathElement(key));
  if (key.length <= ELEM_KEY_MAX) {
    if (ELEMS.size >= ELEMS_MAX) ELEMS.clear();
    ELEMS.set(key, e);
  }
  return e;
}

/** Appends (kube writes keys in order) or inserts in order; a repeated element is kept once. */
function insertMember(list: Elem[], e: Elem): void {
  const at = findSlot(list, e);
  if (at === list.length) list.push(e);
  else if (at >= 0) list.splice(at, 0, e);
}

/** As insertMember; a repeated element's subset replaces the earlier one, as SMD's decoder does. */
function insertChild(list: Elem[], sets: FieldSet[], e: Elem, set: FieldSet): void {
  const at = findSlot(list, e);
  if (at === list.length) {
    list.push(e);
    sets.push(set);
  } else if (at >= 0) {
    list.splice(at, 0, e);
    sets.splice(at, 0, set);
  } else sets[-at - 1] = set;
}

/** Where `e` goes in the sorted `list` (the end, usually), or -(its index) - 1 when it is there already. */
function findSlot(list: readonly Elem[], e: Elem): number {
  if (compareElems(list[list.length - 1] as Elem, e) < 0) return list.length;
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareElems(list[mid] as Elem, e);
    if (c < 0) lo = mid + 1;
    else if (c > 0) hi = mid - 1;
    else return -mid - 1;
  }
  return lo;
}
