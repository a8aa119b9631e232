/**
 * SMD's `Set.EnsureNamedFieldsAreMembers`: the set plus, at every depth, the struct fields (fields the schema
 * names) that have members below them. toFieldSet leaves those out (a struct field is owned through its
 * leaves); the Updater adds them so that a manager owns `.spec` itself and removing a struct it applied prunes
 * it. Map entries and list items are not added: only named fields.
 *
 * Inputs are never mutated; the result is a new FieldSet.
 */
import type { Path } from '../fieldpath/path.ts';
import type { PathElement } from '../fieldpath/path-element.ts';
import { type FieldSet, FieldSetBuilder } from '../fieldpath/set.ts';
import { EMPTY_TYPE_REF, type Schema, type TypedSchema, type TypeRef } from './schema.ts';

/** `set` with every named struct field that has members below it made a member too. */
export function ensureNamedFieldsAreMembers(type: TypedSchema, set: FieldSet): FieldSet {
  const b = new FieldSetBuilder();
  walk(type.schema, type.typeRef, set, [], b);
  return b.build();
}

function walk(schema: Schema, tr: TypeRef, set: FieldSet, path: PathElement[], b: FieldSetBuilder): void {
  const atom = schema.resolve(tr);
  for (const pe of set.members()) b.insert(at(path, pe));
  for (const [pe, sub] of set.children()) {
    let childType: TypeRef = EMPTY_TYPE_REF;
    if ('fieldName' in pe && atom?.map) {
      const field = schema.findField(atom.map, pe.fieldName);
      childType = field ? field.type : (atom.map.elementType ?? EMPTY_TYPE_REF);
      if (field) b.insert(at(path, pe));
    } else if ('key' in pe && atom?.list) childType = atom.list.elementType;
    path.push(pe);
    walk(schema, childType, sub, path, b);
    path.pop();
  }
}

function at(path: PathElement[], pe: PathElement): Path {
  path.push(pe);
  const p = path.slice();
  path.pop();
  return p;
}
