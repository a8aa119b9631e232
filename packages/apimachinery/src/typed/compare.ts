/**
 * The difference between two values of one type (SMD typed/compare.go, `TypedValue.Compare`): the fields `rhs`
 * adds, the ones it removes, and the leaves whose value it changes. Atomic lists and maps are compared whole (one
 * leaf); an empty or absent container on both sides is one leaf; associative-list items are matched by key or
 * value, and an item that repeats on one side is compared as a whole (added, removed or modified as a leaf).
 *
 * Inputs are plain JSON values (from JSON.parse), `undefined` meaning absent; they are never mutated. Throws
 * ValidationErrors for values that do not fit the schema where SMD reports them (both sides of a scalar wrong,
 * unidentifiable list items).
 */
import type { PathElement } from '../fieldpath/path-element.ts';
import { pathElementString } from '../fieldpath/path-element.ts';
import { type FieldSet, FieldSetBuilder } from '../fieldpath/set.ts';
import { getOwn, jsonEqual } from '../json-data.ts';
import {
  deduceMask,
  errorf,
  handlerOf,
  invalidAtomError,
  isMapValue,
  itemIdentity,
  listItemToPathElement,
  noTypeError,
  type ValidationError,
  ValidationErrors,
  validateScalar,
  withPrefix,
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
  const errs = w.compare(type.typeRef, lhs, rhs);
  if (errs.length) throw new ValidationErrors(errs);
  return { removed: w.removed.build(), modified: w.modified.build(), added: w.added.build() };
}

interface Leaf {
  inLeaf: boolean;
}

class CompareWalker {
  readonly removed = new FieldSetBuilder();
  readonly modified = new FieldSetBuilder();
  readonly added = new FieldSetBuilder();
  private readonly path: PathElement[] = [];
  private readonly schema: Schema;
  constructor(schema: Schema) {
    this.schema = schema;
  }

  compare(tr: TypeRef, lhs: unknown, rhs: unknown): ValidationError[] {
    if (lhs === undefined && rhs === undefined) return errorf('at least one of lhs and rhs must be provided');
    const atom = this.schema.resolve(tr);
    if (!atom) return noTypeError(tr);
    const ml = deduceMask(atom, lhs);
    const mr = deduceMask(atom, rhs);
    const leaf: Leaf = { inLeaf: false };
    let errs: ValidationError[];
    if (rhs === undefined) errs = this.handle(atom, ml, tr, lhs, rhs, leaf);
    else if (lhs === undefined || ml === mr) errs = this.handle(atom, mr, tr, lhs, rhs, leaf);
    else {
      // The value changed kind (possible where the type is deduced): each side is walked as its own kind.
      errs = this.handle(atom, ml, tr, lhs, rhs, { inLeaf: false });
      errs.push(...this.handle(atom, mr, tr, lhs, rhs, leaf));
    }
    if (!leaf.inLeaf) {
      if (lhs === undefined) this.added.insert(this.path);
      else if (rhs === undefined) this.removed.insert(this.path);
    }
    return errs;
  }

  private handle(atom: Atom, mask: number, tr: TypeRef, lhs: unknown, rhs: unknown, leaf: Leaf): ValidationError[] {
    switch (handlerOf(mask)) {
      case 'map':
        return this.doMap(atom.map as MapType, lhs, rhs, leaf);
      case 'scalar': {
        const t = atom.scalar ?? 'untyped';
        const lerrs = validateScalar(t, lhs, 'lhs: ');
        const rerrs = validateScalar(t, rhs, 'rhs: ');
        if (lerrs.length && rerrs.length) return [...lerrs, ...rerrs];
        this.doLeaf(lhs, rhs, leaf);
        return [];
      }
      case 'list':
        return this.doList(atom.list as ListType, lhs, rhs, leaf);
      default:
        return invalidAtomError(tr);
    }
  }

  private doLeaf(lhs: unknown, rhs: unknown, leaf: Leaf): void {
    if (leaf.inLeaf) return;
    leaf.inLeaf = true;
    if (lhs === undefined) this.added.insert(this.path);
    else if (rhs === undefined) this.removed.insert(this.path);
    else if (!jsonEqual(lhs, rhs)) this.modified.insert(this.path);
  }

  private doList(t: ListType, lhs: unknown, rhs: unknown, leaf: Leaf): ValidationError[] {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    if (t.elementRelationship === 'atomic' || ((!l || l.length === 0) && (!r || r.length === 0))) {
      this.doLeaf(lhs, rhs, leaf);
      return [];
    }
    if (!l && !r) return [];
    return this.visitListItems(t, l ?? [], r ?? []);
  }

  private visitListItems(t: ListType, l: unknown[], r: unknown[]): ValidationError[] {
    const errs: ValidationError[] = [];
    // Items by key, in lhs order then rhs's new ones; each key with every item that has it.
    const items = new Map<string, { pe: PathElement; l: unknown[]; r: unknown[] }>();
    const index = (list: unknown[], side: 'l' | 'r') => {
      for (let i = 0; i < list.length; i++) {
        const pe = listItemToPathElement(this.schema, t, list[i]);
        if (typeof pe === 'string') {
          errs.push(...errorf(`element ${i}: ${pe}`));
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
      if (ls.length <= 1 && rs.length <= 1) errs.push(...this.compareListItem(t, pe, ls[0], rs[0]));
      else if (ls.length >= 2 && rs.length >= 2) {
        if (ls.length !== rs.length || ls.some((x, i) => !jsonEqual(x, rs[i]))) this.modified.insert([...this.path, pe]);
      } else if (ls.length >= 2) {
        if (rs.length) errs.push(...this.compareListItem(t, pe, undefined, rs[0]));
        this.removed.insert([...this.path, pe]);
      } else {
        if (ls.length) errs.push(...this.compareListItem(t, pe, ls[0], undefined));
        this.added.insert([...this.path, pe]);
      }
    }
    return errs;
  }

  private compareListItem(t: ListType, pe: PathElement, l: unknown, r: unknown): ValidationError[] {
    this.path.push(pe);
    const errs = this.compare(t.elementType, l, r);
    this.path.pop();
    return errs.length ? withPrefix(errs, pathElementString(pe)) : errs;
  }

  private doMap(t: MapType, lhs: unknown, rhs: unknown, leaf: Leaf): ValidationError[] {
    const l = isMapValue(lhs) ? lhs : undefined;
    const r = isMapValue(rhs) ? rhs : undefined;
    if (t.elementRelationship === 'atomic' || ((!l || isEmptyObject(l)) && (!r || isEmptyObject(r)))) {
      this.doLeaf(lhs, rhs, leaf);
      return [];
    }
    if (!l && !r) return [];
    const errs: ValidationError[] = [];
    if (l) for (const key of Object.keys(l)) errs.push(...this.visitMapItem(t, key, l[key], getOwn(r, key)));
    if (r) for (const key of Object.keys(r)) if (!l || !Object.hasOwn(l, key)) errs.push(...this.visitMapItem(t, key, undefined, r[key]));
    return errs;
  }

  private visitMapItem(t: MapType, key: string, l: unknown, r: unknown): ValidationError[] {
    const field = this.schema.findField(t, key);
    this.path.push({ fieldName: key });
    const errs = this.compare(field ? field.type : (t.elementType ?? EMPTY_TYPE_REF), l, r);
    this.path.pop();
    return errs.length ? withPrefix(errs, `.${key}`) : errs;
  }
}

export function isEmptyObject(o: object): boolean {
  for (const _ in o) return false;
  return true;
}
