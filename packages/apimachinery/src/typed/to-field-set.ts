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
import { serializePathElement } from '../fieldpath/path-element.ts';
import { type FieldSet, FieldSetBuilder } from '../fieldpath/set.ts';
import {
  deduceMask,
  handlerOf,
  invalidAtomError,
  isMapValue,
  listItemToPathElement,
  noTypeError,
  type ValidationError,
  ValidationErrors,
} from './helpers.ts';
import { EMPTY_TYPE_REF, type ListType, type MapType, type Schema, type TypedSchema, type TypeRef } from './schema.ts';

/** The fields `value` sets, typed by `type`. */
export function toFieldSet(type: TypedSchema, value: unknown): FieldSet {
  const w = new ToSetWalker(type.schema);
  w.walk(type.typeRef, value);
  if (w.errors.length) throw new ValidationErrors(w.errors);
  return w.out.build();
}

class ToSetWalker {
  readonly out = new FieldSetBuilder();
  readonly errors: ValidationError[] = [];
  private readonly path: PathElement[] = [];
  private readonly schema: Schema;
  constructor(schema: Schema) {
    this.schema = schema;
  }

  walk(tr: TypeRef, v: unknown): void {
    const atom = this.schema.resolve(tr);
    if (!atom) {
      this.errors.push(...noTypeError(tr));
      return;
    }
    switch (handlerOf(deduceMask(atom, v))) {
      case 'scalar':
        this.out.insert(this.path);
        return;
      case 'list':
        this.doList(atom.list as ListType, v);
        return;
      case 'map':
        this.doMap(atom.map as MapType, v);
        return;
      default:
        this.errors.push(...invalidAtomError(tr));
    }
  }

  private doList(t: ListType, v: unknown): void {
    if (t.elementRelationship === 'atomic') {
      this.out.insert(this.path);
      return;
    }
    if (!Array.isArray(v) || v.length === 0) return;
    // Items whose key or value repeats are recorded once, as a leaf, and not walked into.
    const pes: (PathElement | undefined)[] = new Array(v.length);
    const keys: string[] = new Array(v.length);
    const seen = new Set<string>();
    let dups: Set<string> | undefined;
    for (let i = 0; i < v.length; i++) {
      const pe = listItemToPathElement(this.schema, t, v[i]);
      if (typeof pe === 'string') continue; // invalid items are validate()'s to report
      const key = serializePathElement(pe);
      pes[i] = pe;
      keys[i] = key;
      if (!seen.has(key)) seen.add(key);
      else if (!dups?.has(key)) {
        dups ??= new Set();
        dups.add(key);
        this.path.push(pe);
        this.out.insert(this.path);
        this.path.pop();
      }
    }
    for (let i = 0; i < v.length; i++) {
      const pe = pes[i];
      if (!pe || dups?.has(keys[i] as string)) continue;
      this.path.push(pe);
      this.walk(t.elementType, v[i]);
      this.out.insert(this.path);
      this.path.pop();
    }
  }

  private doMap(t: MapType, v: unknown): void {
    if (t.elementRelationship === 'atomic') {
      this.out.insert(this.path);
      return;
    }
    if (!isMapValue(v)) return;
    for (const key of Object.keys(v)) {
      const field = this.schema.findField(t, key);
      const child = v[key];
      this.path.push({ fieldName: key });
      this.walk(field ? field.type : (t.elementType ?? EMPTY_TYPE_REF), child);
      // A struct field is a member only when it is null or an empty map; a map entry always is.
      if (!field || child === null || (isMapValue(child) && isEmptyObject(child))) this.out.insert(this.path);
      this.path.pop();
    }
  }
}

function isEmptyObject(o: object): boolean {
  for (const _ in o) return false;
  return true;
}
