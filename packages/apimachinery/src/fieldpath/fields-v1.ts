/**
 * FieldsV1 — how `metadata.managedFields[].fieldsV1` writes a FieldSet (SMD's serialize.go): an object whose keys
 * are serialized PathElements; a member with nothing under it is `{}`, a node with members below is the object of
 * those, and a node that is both a member and a parent starts with `".": {}`. Keys come in SMD's element order
 * (members and children merged), the order kube writes.
 */
import { isJsonObject } from '../json-data.ts';
import { parsePathElement, UnknownPathElementTypeError } from './path-element.ts';
import { compareElems, type Elem, elemOf, FieldSet } from './set.ts';

/** The FieldsV1 object of a set. */
export function fieldSetToFieldsV1(set: FieldSet): Record<string, unknown> {
  return emit(set, false);
}

/** The FieldsV1 JSON text of a set, written directly (what JSON.stringify(fieldSetToFieldsV1(set)) gives). */
export function fieldSetToFieldsV1Json(set: FieldSet): string {
  return emitJson(set, false);
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
      out[(m[i++] as Elem).s] = {}; // keys are `x:...` or `.`, never `__proto__`
    } else {
      out[(ce[j] as Elem).s] = emit(s.cs[j] as FieldSet, c === 0);
      if (c === 0) i++;
      j++;
    }
  }
  return out;
}

function emitJson(s: FieldSet, self: boolean): string {
  let out = self ? '{".":{}' : '{';
  let first = !self;
  const m = s.m;
  const ce = s.ce;
  let i = 0;
  let j = 0;
  while (i < m.length || j < ce.length) {
    const c = i === m.length ? 1 : j === ce.length ? -1 : compareElems(m[i] as Elem, ce[j] as Elem);
    if (!first) out += ',';
    first = false;
    if (c < 0) {
      out += `${JSON.stringify((m[i++] as Elem).s)}:{}`;
    } else {
      out += `${JSON.stringify((ce[j] as Elem).s)}:${emitJson(s.cs[j] as FieldSet, c === 0)}`;
      if (c === 0) i++;
      j++;
    }
  }
  return `${out}}`;
}

/**
 * Decodes a FieldsV1 object (already parsed JSON). Keys of a kind this version does not know are dropped, as SMD
 * does; a malformed key or a value that is not an object throws an Error saying what is wrong.
 */
export function fieldSetFromFieldsV1(json: unknown): FieldSet {
  if (json === null || json === undefined) return FieldSet.empty();
  if (!isJsonObject(json)) throw new Error(`managedFields parsing: expected a JSON object, got ${describe(json)}`);
  return read(json).children ?? FieldSet.empty();
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

interface Node {
  /** The set under this node; undefined when nothing (known) is under it. */
  children: FieldSet | undefined;
  /** Whether the node itself is a member: marked by `"."`, or a leaf `{}`. */
  member: boolean;
}

function read(o: Record<string, unknown>): Node {
  let member = false;
  let m: Elem[] | undefined;
  let ce: Elem[] | undefined;
  let cs: FieldSet[] | undefined;
  for (const key of Object.keys(o)) {
    const v = o[key];
    if (key === '.') {
      member = true;
      continue;
    }
    let e: Elem;
    try {
      e = elemFromKey(key);
    } catch (err) {
      if (err instanceof UnknownPathElementTypeError) continue;
      throw new Error(`managedFields parsing: parsing key as path element: ${(err as Error).message}`);
    }
    let sub: Node;
    if (v === null) sub = { children: undefined, member: true };
    else if (isJsonObject(v)) sub = read(v);
    else throw new Error(`managedFields parsing: the value of ${JSON.stringify(key)} must be an object, got ${describe(v)}`);
    if (sub.member) {
      m ??= [];
      insertSorted(m, undefined, e, undefined);
    }
    if (sub.children !== undefined) {
      ce ??= [];
      cs ??= [];
      insertSorted(ce, cs, e, sub.children);
    }
  }
  if (m === undefined && ce === undefined) return { children: undefined, member: true };
  return { children: new FieldSet(m ?? [], ce ?? [], cs ?? []), member };
}

/** Appends (kube writes keys in order) or inserts in order; a repeated element merges, as SMD's Descend does. */
function insertSorted(list: Elem[], sets: FieldSet[] | undefined, e: Elem, set: FieldSet | undefined): void {
  const last = list[list.length - 1];
  if (last === undefined || compareElems(last, e) < 0) {
    list.push(e);
    sets?.push(set as FieldSet);
    return;
  }
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareElems(list[mid] as Elem, e);
    if (c < 0) lo = mid + 1;
    else if (c > 0) hi = mid - 1;
    else {
      if (sets) sets[mid] = set as FieldSet;
      return;
    }
  }
  list.splice(lo, 0, e);
  sets?.splice(lo, 0, set as FieldSet);
}

/** The element of a FieldsV1 key; field names (most keys) keep the key itself as their serialized form. */
function elemFromKey(key: string): Elem {
  const pe = parsePathElement(key);
  if ('fieldName' in pe) return { pe, s: key, k: 0 };
  // Keys, values and indexes are written again in canonical form (sorted key fields, Go's JSON), as SMD does.
  return elemOf(pe);
}
