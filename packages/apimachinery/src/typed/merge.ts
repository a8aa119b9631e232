/**
 * Merging a partial configuration onto a value of the same type (SMD typed/merge.go, `TypedValue.Merge`), what
 * apply does to the live object:
 *
 * - scalars, atomic lists and atomic maps: rhs's value wins when rhs has the field, else lhs's stays; an empty or
 *   absent container on both sides is likewise one leaf.
 * - structs and granular maps: merged key by key (lhs's keys in their order, then rhs's new ones); nothing is
 *   removed.
 * - associative lists: items matched by key (map lists) or value (sets) and merged; the order is SMD's: live
 *   order, except that items rhs shares with lhs follow rhs's relative order, and rhs's new items are placed
 *   where rhs has them relative to the shared ones. Items repeated in lhs and not in rhs are kept; items
 *   repeated in lhs that rhs has become rhs's one item. rhs may not repeat an item (an error).
 *
 * Inputs are plain JSON values (from JSON.parse), never mutated; the result shares unchanged subtrees of the
 * inputs (treat it as read-only, or copy it before changing it). Throws ValidationErrors as SMD reports them.
 */
import type { PathElement } from '../fieldpath/path-element.ts';
import { pathElementString } from '../fieldpath/path-element.ts';
import { getOwn, setOwn } from '../json-data.ts';
import { isEmptyObject } from './compare.ts';
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

/** `rhs` merged onto `lhs` (both of `type`); undefined when both are absent-like (an empty result). */
export function merge(type: TypedSchema, lhs: unknown, rhs: unknown): unknown {
  const w = new MergeWalker(type.schema);
  const st: Out = { inLeaf: false, out: undefined };
  const errs = w.merge(type.typeRef, lhs, rhs, st);
  if (errs.length) throw new ValidationErrors(errs);
  return st.out;
}

interface Item {
  pe: PathElement;
  key: string;
}

/** One node's walk state: whether a leaf rule ran, and the merged value (undefined: leave the key out). */
interface Out {
  inLeaf: boolean;
  out: unknown;
}

class MergeWalker {
  private readonly schema: Schema;
  constructor(schema: Schema) {
    this.schema = schema;
  }

  merge(tr: TypeRef, lhs: unknown, rhs: unknown, st: Out): ValidationError[] {
    if (lhs === undefined && rhs === undefined) return errorf('at least one of lhs and rhs must be provided');
    const atom = this.schema.resolve(tr);
    if (!atom) return noTypeError(tr);
    const ml = deduceMask(atom, lhs);
    const mr = deduceMask(atom, rhs);
    if (rhs === undefined) return this.handle(atom, ml, tr, lhs, rhs, st);
    if (lhs === undefined || ml === mr) return this.handle(atom, mr, tr, lhs, rhs, st);
    // The value changed kind (deduced types): lhs's kind is walked for its errors, rhs's makes the result.
    const errs = this.handle(atom, ml, tr, lhs, rhs, { inLeaf: st.inLeaf, out: st.out });
    errs.push(...this.handle(atom, mr, tr, lhs, rhs, st));
    return errs;
  }

  private handle(atom: Atom, mask: number, tr: TypeRef, lhs: unknown, rhs: unknown, st: Out): ValidationError[] {
    switch (handlerOf(mask)) {
      case 'map':
        return this.doMap(atom.map as MapType, lhs, rhs, st);
      case 'scalar': {
        const t = atom.scalar ?? 'untyped';
        const lerrs = validateScalar(t, lhs, 'lhs: ');
        const rerrs = validateScalar(t, rhs, 'rhs: ');
        if (lerrs.length && rerrs.length) return [...lerrs, ...rerrs];
        doLeaf(lhs, rhs, st);
        return [];
      }
      case 'list':
        return this.doList(atom.list as ListType, lhs, rhs, st);
      default:
        return invalidAtomError(tr);
    }
  }

  private doList(t: ListType, lhs: unknown, rhs: unknown, st: Out): ValidationError[] {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    if (t.elementRelationship === 'atomic' || ((!l || l.length === 0) && (!r || r.length === 0))) {
      doLeaf(lhs, rhs, st);
      return [];
    }
    if (!l && !r) return [];
    return this.visitListItems(t, l ?? [], r ?? [], st);
  }

  /** Path elements of a list's items, and the item of each key (null for a key lhs repeats). */
  private index(t: ListType, list: unknown[], allowDuplicates: boolean, errs: ValidationError[]) {
    const pes: Item[] = [];
    const observed = new Map<string, unknown>();
    for (let i = 0; i < list.length; i++) {
      const pe = listItemToPathElement(this.schema, t, list[i]);
      if (typeof pe === 'string') {
        errs.push(...errorf(`element ${i}: ${pe}`));
        continue;
      }
      const key = itemIdentity(pe);
      if (observed.has(key)) {
        if (!allowDuplicates) {
          errs.push(...errorf(`duplicate entries for key ${pathElementString(pe)}`));
          continue;
        }
        observed.set(key, null);
      } else observed.set(key, list[i]);
      pes.push({ pe, key });
    }
    return { pes, observed };
  }

  private visitListItems(t: ListType, l: unknown[], r: unknown[], st: Out): ValidationError[] {
    const errs: ValidationError[] = [];
    const { pes: rPEs, observed: rObs } = this.index(t, r, false, errs);
    const { pes: lPEs, observed: lObs } = this.index(t, l, true, errs);
    if (errs.length) return errs;
    const out: unknown[] = [];
    // rhs's items that lhs has too, in rhs's order: they keep that relative order in the result.
    const shared = rPEs.filter((e) => lObs.has(e.key));
    let sharedAt = 0;
    let nextShared = shared[sharedAt++]?.key;
    const mergedR = new Set<string>();
    const push = (lc: unknown, rc: unknown) => {
      const item: Out = { inLeaf: false, out: undefined };
      // SMD drops the errors of a list item's merge (validation of both sides ran before).
      this.merge(t.elementType, lc, rc, item);
      if (item.out !== undefined) out.push(item.out);
    };
    let lI = 0;
    let rI = 0;
    while (lI < lPEs.length || rI < rPEs.length) {
      if (lI < lPEs.length && rI < rPEs.length) {
        const le = lPEs[lI] as Item;
        const re = rPEs[rI] as Item;
        if (le.key === re.key) {
          mergedR.add(le.key);
          push(lObs.get(le.key), rObs.get(le.key));
          lI++;
          rI++;
          nextShared = shared[sharedAt++]?.key;
          continue;
        }
        // A shared item lhs has before its turn in rhs's order waits.
        if (rObs.has(le.key) && nextShared !== undefined && nextShared !== le.key) {
          lI++;
          continue;
        }
      }
      if (lI < lPEs.length) {
        const le = lPEs[lI] as Item;
        if (!rObs.has(le.key)) {
          push(l[lI], undefined); // lPEs matches l one to one: any unidentifiable item returned early
          lI++;
          continue;
        }
        if (mergedR.has(le.key)) lI++;
      }
      if (rI < rPEs.length) {
        const re = rPEs[rI] as Item;
        mergedR.add(re.key);
        push(lObs.get(re.key), rObs.get(re.key));
        rI++;
        if (nextShared !== undefined && nextShared === re.key) nextShared = shared[sharedAt++]?.key;
      }
    }
    if (out.length > 0) st.out = out;
    return errs;
  }

  private doMap(t: MapType, lhs: unknown, rhs: unknown, st: Out): ValidationError[] {
    const l = isMapValue(lhs) ? lhs : undefined;
    const r = isMapValue(rhs) ? rhs : undefined;
    if (t.elementRelationship === 'atomic' || ((!l || isEmptyObject(l)) && (!r || isEmptyObject(r)))) {
      doLeaf(lhs, rhs, st);
      return [];
    }
    if (!l && !r) return [];
    const errs: ValidationError[] = [];
    const out: Record<string, unknown> = {};
    let n = 0;
    const visit = (key: string, lv: unknown, rv: unknown) => {
      const field = this.schema.findField(t, key);
      const item: Out = { inLeaf: false, out: undefined };
      const e = this.merge(field ? field.type : (t.elementType ?? EMPTY_TYPE_REF), lv, rv, item);
      if (e.length) errs.push(...withPrefix(e, `.${key}`));
      if (item.out !== undefined) {
        setOwn(out, key, item.out);
        n++;
      }
    };
    if (l) for (const key of Object.keys(l)) visit(key, l[key], getOwn(r, key));
    if (r) for (const key of Object.keys(r)) if (!l || !Object.hasOwn(l, key)) visit(key, undefined, r[key]);
    if (n > 0) st.out = out;
    return errs;
  }
}

/** SMD's keep-rhs rule at a leaf: rhs's value when it has one, else lhs's. */
function doLeaf(lhs: unknown, rhs: unknown, st: Out): void {
  if (st.inLeaf) return;
  st.inLeaf = true;
  st.out = rhs !== undefined ? rhs : lhs;
}
