/**
 * The set of fields a value sets (SMD typed/tofieldset.go, `TypedValue.ToFieldSet`): every scalar; an atomic
 * list or map as one leaf; each item of an associative list (by key or value) and, under it, its fields; each
 * entry of a granular map, each field of a struct that is null or an empty map. Struct fields that hold
 * non-empty values are not members themselves, only their leaves are (see ensureNamedFieldsAreMembers).
 * Items that appear twice in an associative list are one leaf (not walked into), as SMD records duplicates.
 *
 * Inputs are plain JSON values (from JSON.parse), never mutated; the result is a new FieldSet. Throws
 * ValidationErrors only for schema errors (a missing named type); validate() first to reject invalid values.
 */
import type { PathElement } from '../fieldpath/path-element.ts';
import { ElementKind } from '../fieldpath/path-element.ts';
import { compareElems, type Elem, elemOf, FieldSet } from '../fieldpath/set.ts';
import { isJsonObject } from '../json-data.ts';
import {
  deduceMask,
  handlerOf,
  invalidAtomError,
  isEmptyObject,
  itemIdentity,
  listItemToPathElement,
  noTypeError,
  type ValidationError,
  ValidationErrors,
} from './helpers.ts';
import { EMPTY_TYPE_REF, type ListType, type MapType, type Schema, type TypedSchema, type TypeRef } from './schema.ts';

/** The fields `value` sets, typed by `type`. */
export function toFieldSet(type: TypedSchema, value: unknown): FieldSet {
  const w = new ToSetWalker(type.schema);
  const root = w.walk(type.typeRef, value); // the root itself (the empty path) is never a member
  if (w.errors.length) throw new ValidationErrors(w.errors);
  return root instanceof FieldSet ? root : FieldSet.empty();
}

/**
 * The set under one path, built bottom-up: each path element becomes an Elem once and each node is sorted once,
 * instead of inserting whole paths from the root.
 */
class Node {
  readonly m: Elem[] = [];
  readonly ce: Elem[] = [];
  readonly cs: FieldSet[] = [];

  build(): FieldSet {
    const { m, ce, cs } = this;
    if (m.length === 0 && ce.length === 0) return FieldSet.empty();
    sortElems(m, undefined);
    sortElems(ce, cs);
    return new FieldSet(m, ce, cs);
  }
}

/** Sorts `elems` in SMD's order (and `sets` alongside): an insertion sort, as a node rarely has many unsorted keys. */
function sortElems(elems: Elem[], sets: FieldSet[] | undefined): void {
  for (let i = 1; i < elems.length; i++) {
    const e = elems[i] as Elem;
    if (compareElems(elems[i - 1] as Elem, e) <= 0) continue;
    const s = sets?.[i];
    let j = i - 1;
    while (j >= 0 && compareElems(elems[j] as Elem, e) > 0) {
      elems[j + 1] = elems[j] as Elem;
      if (sets) sets[j + 1] = sets[j] as FieldSet;
      j--;
    }
    elems[j + 1] = e;
    if (sets) sets[j + 1] = s as FieldSet;
  }
}

/** What walking a value gives its parent: a leaf (its path is a member), the set under it, or nothing. */
type Walked = true | FieldSet | undefined;

class ToSetWalker {
  readonly errors: ValidationError[] = [];
  private readonly schema: Schema;
  constructor(schema: Schema) {
    this.schema = schema;
  }

  walk(tr: TypeRef, v: unknown): Walked {
    const atom = this.schema.resolve(tr);
    if (!atom) {
      this.errors.push(...noTypeError(tr));
      return undefined;
    }
    switch (handlerOf(deduceMask(atom, v))) {
      case 'scalar':
        return true;
      case 'list':
        return this.doList(atom.list as ListType, v);
      case 'map':
        return this.doMap(atom.map as MapType, v);
      default:
        this.errors.push(...invalidAtomError(tr));
        return undefined;
    }
  }

  private doList(t: ListType, v: unknown): Walked {
    if (t.elementRelationship === 'atomic') return true;
    if (!Array.isArray(v) || v.length === 0) return undefined;
    const node = new Node();
    // Items whose key or value repeats are recorded once, as a leaf, and not walked into.
    const pes: (PathElement | undefined)[] = new Array(v.length);
    const ids: string[] = new Array(v.length);
    const seen = new Set<string>();
    let dups: Set<string> | undefined;
    for (let i = 0; i < v.length; i++) {
      const pe = listItemToPathElement(this.schema, t, v[i]);
      if (typeof pe === 'string') continue; // invalid items are validate()'s to report
      const id = itemIdentity(pe);
      pes[i] = pe;
      ids[i] = id;
      if (!seen.has(id)) seen.add(id);
      else if (!dups?.has(id)) {
        dups ??= new Set();
        dups.add(id);
        node.m.push(elemOf(pe));
      }
    }
    for (let i = 0; i < v.length; i++) {
      const pe = pes[i];
      if (!pe || dups?.has(ids[i] as string)) continue;
      const e = elemOf(pe);
      node.m.push(e); // an item is always a member
      const sub = this.walk(t.elementType, v[i]);
      if (sub instanceof FieldSet && !sub.isEmpty()) {
        node.ce.push(e);
        node.cs.push(sub);
      }
    }
    return node.build();
  }

  private doMap(t: MapType, v: unknown): Walked {
    if (t.elementRelationship === 'atomic') return true;
    if (!isJsonObject(v)) return undefined;
    const node = new Node();
    for (const key of Object.keys(v)) {
      const val = v[key];
      if (val === undefined) continue; // not JSON: a key set to undefined is absent (JSON.stringify drops it)
      const field = this.schema.findField(t, key);
      const sub = this.walk(field ? field.type : (t.elementType ?? EMPTY_TYPE_REF), val);
      const e = fieldElem(key);
      // A struct field is a member only when it is a leaf, null or an empty map; a map entry always is.
      if (sub === true || !field || val === null || (isJsonObject(val) && isEmptyObject(val))) node.m.push(e);
      if (sub instanceof FieldSet && !sub.isEmpty()) {
        node.ce.push(e);
        node.cs.push(sub);
      }
    }
    return node.build();
  }
}

/**
 * Field-name elements, shared: the same names come back on every write (elements are immutable, and their
 * FieldsV1 key, `f:` + name, is known up front, so encoding never serializes them). Bounded: cleared when full.
 */
const FIELD_ELEMS = new Map<string, Elem>();
const FIELD_ELEMS_MAX = 20_000;

function fieldElem(name: string): Elem {
  let e = FIELD_ELEMS.get(name);
  if (!e) {
    if (FIELD_ELEMS.size >= FIELD_ELEMS_MAX) FIELD_ELEMS.clear();
    e = { pe: { fieldName: name }, k: ElementKind.Field, s: `f:${name}` };
    FIELD_ELEMS.set(name, e);
  }
  return e;
}
