/**
 * The difference between two values of one type (SMD typed/compare.go, `TypedValue.Compare`): the fields `rhs`
 * adds, the ones it removes, and the leaves whose value it changes. Atomic lists and maps are compared whole (one
 * leaf); an empty or absent container on both sides is one leaf; associative-list items are matched by key or
 * value, and an item that repeats on one side is compared as a whole (added, removed or modified as a leaf).
 *
 * Inputs are plain JSON values (from JSON.parse), `undefined` meaning absent; they are never mutated. Throws
 * ValidationErrors for values that do not fit the schema where SMD reports them (both sides of a scalar wrong,
 * unidentifiable list items). A value identical on both sides (the same primitive, or the same object) is not
 * walked: it changes nothing, and its validity is validate()'s to check.
 */

import { pathString } from '../fieldpath/path.ts';
import type { PathElement } from '../fieldpath/path-element.ts';
import { FieldSet, FieldSetBuilder } from '../fieldpath/set.ts';
import { getOwn, isJsonObject, jsonEqual } from '../json-data.ts';
import {
  deduceMask,
  errorf,
  handlerOf,
  invalidAtomError,
  itemIdentity,
  listItemToPathElement,
  noTypeError,
  type ValidationError,
  ValidationErrors,
  validateScalarPair,
} from './helpers.ts';
import { type Atom, EMPTY_TYPE_REF, type ListType, type MapType, type Schema, type TypedSchema, type TypeRef } from './schema.ts';

/** What changed from lhs to rhs. */
export interface Comparison {
  readonly removed: FieldSet;
  readonly modified: FieldSet;
  readonly added: FieldSet;
}

/** No field added, removed or modified. */
export function isSameComparison(c: Comparison): boolean {
  return c.removed.isEmpty() && c.modified.isEmpty() && c.added.isEmpty();
}

/** `c` without the fields under `fields` (SMD's Comparison.ExcludeFields: a recursive difference of each set). */
export function excludeFields(c: Comparison, fields: FieldSet | undefined): Comparison {
  if (!fields || fields.isEmpty()) return c;
  return {
    removed: c.removed.recursiveDifference(fields),
    modified: c.modified.recursiveDifference(fields),
    added: c.added.recursiveDifference(fields),
  };
}

/** Compares `lhs` (before) with `rhs` (after), both of `type`. */
export function compare(type: TypedSchema, lhs: unknown, rhs: unknown): Comparison {
  const w = new CompareWalker(type.schema);
  w.compare(type.typeRef, lhs, rhs);
  if (w.errors.length) throw new ValidationErrors(w.errors);
  return { removed: built(w.removedB), modified: built(w.modifiedB), added: built(w.addedB) };
}

const built = (b: FieldSetBuilder | undefined): FieldSet => (b ? b.build() : FieldSet.empty());

/** No own key (absent counts as empty). */
function isEmpty(o: Record<string, unknown> | undefined): boolean {
  if (o) for (const k in o) if (Object.hasOwn(o, k)) return false;
  return true;
}

// Errors are collected on the walker with the path where they arose (SMD prefixes them while unwinding: the same text).
class CompareWalker {
  // Made on first use: an update changes a field or two, so two of the three usually stay empty.
  removedB: FieldSetBuilder | undefined;
  modifiedB: FieldSetBuilder | undefined;
  addedB: FieldSetBuilder | undefined;
  get removed(): FieldSetBuilder {
    this.removedB ??= new FieldSetBuilder();
    return this.removedB;
  }
  get modified(): FieldSetBuilder {
    this.modifiedB ??= new FieldSetBuilder();
    return this.modifiedB;
  }
  get added(): FieldSetBuilder {
    this.addedB ??= new FieldSetBuilder();
    return this.addedB;
  }
  readonly errors: ValidationError[] = [];
  private readonly path: PathElement[] = [];
  private readonly schema: Schema;
  constructor(schema: Schema) {
    this.schema = schema;
  }

  private fail(errs: readonly ValidationError[]): void {
    const at = pathString(this.path);
    for (const e of errs) this.errors.push({ path: at + e.path, message: e.message });
  }

  compare(tr: TypeRef, lhs: unknown, rhs: unknown): void {
    if (lhs === undefined && rhs === undefined) {
      this.fail(errorf('at least one of lhs and rhs must be provided'));
      return;
    }
    // The same value on both sides changes nothing (an update mostly rewrites equal fields; values are validated before).
    if (lhs === rhs) return;
    const atom = this.schema.resolve(tr);
    if (!atom) {
      this.fail(noTypeError(tr));
      return;
    }
    const ml = deduceMask(atom, lhs);
    const mr = deduceMask(atom, rhs);
    let leaf: boolean;
    if (rhs === undefined) leaf = this.handle(atom, ml, tr, lhs, rhs);
    else if (lhs === undefined || ml === mr) leaf = this.handle(atom, mr, tr, lhs, rhs);
    else {
      // The value changed kind (possible where the type is deduced): each side is walked as its own kind.
      this.handle(atom, ml, tr, lhs, rhs);
      leaf = this.handle(atom, mr, tr, lhs, rhs);
    }
    if (!leaf) {
      if (lhs === undefined) this.added.insert(this.path);
      else if (rhs === undefined) this.removed.insert(this.path);
    }
  }

  /** Walks one kind of the value; answers whether it was compared as a leaf. */
  private handle(atom: Atom, mask: number, tr: TypeRef, lhs: unknown, rhs: unknown): boolean {
    switch (handlerOf(mask)) {
      case 'map':
        return this.doMap(atom.map as MapType, lhs, rhs);
      case 'scalar': {
        const t = atom.scalar ?? 'untyped';
        const errs = validateScalarPair(t, lhs, rhs);
        if (errs.length) {
          this.fail(errs);
          return false;
        }
        this.doLeaf(lhs, rhs);
        return true;
      }
      case 'list':
        return this.doList(atom.list as ListType, lhs, rhs);
      default:
        this.fail(invalidAtomError(tr));
        return false;
    }
  }

  private doLeaf(lhs: unknown, rhs: unknown): void {
    if (lhs === undefined) this.added.insert(this.path);
    else if (rhs === undefined) this.removed.insert(this.path);
    else if (lhs !== rhs && !jsonEqual(lhs, rhs)) this.modified.insert(this.path);
  }

  private doList(t: ListType, lhs: unknown, rhs: unknown): boolean {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    if (t.elementRelationship === 'atomic' || ((!l || l.length === 0) && (!r || r.length === 0))) {
      this.doLeaf(lhs, rhs);
      return true;
    }
    if (l || r) this.visitListItems(t, l ?? [], r ?? []);
    return false;
  }

  private visitListItems(t: ListType, l: unknown[], r: unknown[]): void {
    // Items by identity, in lhs order then rhs's new ones; each with every item that has it on each side.
    const items = new Map<string, { pe: PathElement; l: unknown[]; r: unknown[] }>();
    const index = (list: unknown[], side: 'l' | 'r') => {
      for (let i = 0; i < list.length; i++) {
        const pe = listItemToPathElement(this.schema, t, list[i]);
        if (typeof pe === 'string') {
          this.fail(errorf(`element ${i}: ${pe}`));
          continue;
        }
        const key = itemIdentity(pe);
        let e = items.get(key);
        if (!e) {
          e = { pe, l: [], r: [] };
          items.set(key, e);
        }
        e[side].push(list[i]);
      }
    };
    index(l, 'l');
    index(r, 'r');
    for (const { pe, l: ls, r: rs } of items.values()) {
      if (ls.length <= 1 && rs.length <= 1) this.compareListItem(t, pe, ls[0], rs[0]);
      else if (ls.length >= 2 && rs.length >= 2) {
        if (ls.length !== rs.length || ls.some((x, i) => !jsonEqual(x, rs[i]))) this.modified.insert([...this.path, pe]);
      } else if (ls.length >= 2) {
        if (rs.length) this.compareListItem(t, pe, undefined, rs[0]);
        this.removed.insert([...this.path, pe]);
      } else {
        if (ls.length) this.compareListItem(t, pe, ls[0], undefined);
        this.added.insert([...this.path, pe]);
      }
    }
  }

  private compareListItem(t: ListType, pe: PathElement, l: unknown, r: unknown): void {
    this.path.push(pe);
    this.compare(t.elementType, l, r);
    this.path.pop();
  }

  private doMap(t: MapType, lhs: unknown, rhs: unknown): boolean {
    const l = isJsonObject(lhs) ? lhs : undefined;
    const r = isJsonObject(rhs) ? rhs : undefined;
    if (t.elementRelationship === 'atomic' || (isEmpty(l) && isEmpty(r))) {
      this.doLeaf(lhs, rhs);
      return true;
    }
    // for…in with an own-key check: no array of keys per map on every write, and no key from a polluted prototype.
    if (l) for (const key in l) if (Object.hasOwn(l, key)) this.visitMapItem(t, key, l[key], getOwn(r, key));
    if (r) for (const key in r) if (Object.hasOwn(r, key) && !(l && Object.hasOwn(l, key))) this.visitMapItem(t, key, undefined, r[key]);
    return false;
  }

  private visitMapItem(t: MapType, key: string, l: unknown, r: unknown): void {
    if (l === r) return; // unchanged (both present: a key is visited from the side that has it)
    const field = this.schema.findField(t, key);
    this.path.push({ fieldName: key });
    this.compare(field ? field.type : (t.elementType ?? EMPTY_TYPE_REF), l, r);
    this.path.pop();
  }
}
