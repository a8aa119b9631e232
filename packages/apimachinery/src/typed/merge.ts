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
 * inputs (treat it as read-only, or copy it before changing it). Throws ValidationErrors as SMD reports them
 * (a scalar equal on both sides is taken as it is: validate() checks values).
 */

import { pathString } from '../fieldpath/path.ts';
import type { PathElement } from '../fieldpath/path-element.ts';
import { pathElementString } from '../fieldpath/path-element.ts';
import { getOwn, isJsonObject, setOwn } from '../json-data.ts';
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

/** `rhs` merged onto `lhs` (both of `type`); undefined when both are absent-like (an empty result). */
export function merge(type: TypedSchema, lhs: unknown, rhs: unknown): unknown {
  const w = new MergeWalker(type.schema);
  const out = w.merge(type.typeRef, lhs, rhs);
  if (w.errors.length) throw new ValidationErrors(w.errors);
  return out;
}

interface Item {
  pe: PathElement;
  key: string;
}

// Errors are collected with the path where they arose (SMD prefixes them while unwinding: the same text). SMD
// drops the errors of a list item's merge (both sides were validated before): `muted` counts the list items
// being walked.
class MergeWalker {
  readonly errors: ValidationError[] = [];
  private readonly path: PathElement[] = [];
  private muted = 0;
  private readonly schema: Schema;
  constructor(schema: Schema) {
    this.schema = schema;
  }

  private fail(errs: readonly ValidationError[]): void {
    if (this.muted) return;
    const at = pathString(this.path);
    for (const e of errs) this.errors.push({ path: at + e.path, message: e.message });
  }

  /** The merged value (undefined: leave the key or item out). */
  merge(tr: TypeRef, lhs: unknown, rhs: unknown): unknown {
    if (lhs === undefined && rhs === undefined) {
      this.fail(errorf('at least one of lhs and rhs must be provided'));
      return undefined;
    }
    const atom = this.schema.resolve(tr);
    if (!atom) {
      this.fail(noTypeError(tr));
      return undefined;
    }
    const ml = deduceMask(atom, lhs);
    const mr = deduceMask(atom, rhs);
    if (rhs === undefined) return this.handle(atom, ml, tr, lhs, rhs);
    if (lhs === undefined || ml === mr) return this.handle(atom, mr, tr, lhs, rhs);
    // The value changed kind (deduced types): lhs's kind is walked for its errors, rhs's makes the result.
    this.handle(atom, ml, tr, lhs, rhs);
    return this.handle(atom, mr, tr, lhs, rhs);
  }

  private handle(atom: Atom, mask: number, tr: TypeRef, lhs: unknown, rhs: unknown): unknown {
    switch (handlerOf(mask)) {
      case 'map':
        return this.doMap(atom.map as MapType, lhs, rhs);
      case 'scalar': {
        const t = atom.scalar ?? 'untyped';
        const errs = validateScalarPair(t, lhs, rhs);
        if (errs.length) {
          this.fail(errs);
          return undefined;
        }
        return leaf(lhs, rhs);
      }
      case 'list':
        return this.doList(atom.list as ListType, lhs, rhs);
      default:
        this.fail(invalidAtomError(tr));
        return undefined;
    }
  }

  private doList(t: ListType, lhs: unknown, rhs: unknown): unknown {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    if (t.elementRelationship === 'atomic' || ((!l || l.length === 0) && (!r || r.length === 0))) return leaf(lhs, rhs);
    if (!l && !r) return undefined;
    return this.visitListItems(t, l ?? [], r ?? []);
  }

  /** Path elements of a list's items, and the item of each key (null for a key lhs repeats). */
  private index(t: ListType, list: unknown[], allowDuplicates: boolean) {
    const pes: Item[] = [];
    const observed = new Map<string, unknown>();
    let ok = true;
    for (let i = 0; i < list.length; i++) {
      const pe = listItemToPathElement(this.schema, t, list[i]);
      if (typeof pe === 'string') {
        this.fail(errorf(`element ${i}: ${pe}`));
        ok = false;
        continue;
      }
      const key = itemIdentity(pe);
      if (observed.has(key)) {
        if (!allowDuplicates) {
          this.fail(errorf(`duplicate entries for key ${pathElementString(pe)}`));
          ok = false;
          continue;
        }
        observed.set(key, null);
      } else observed.set(key, list[i]);
      pes.push({ pe, key });
    }
    return { pes, observed, ok };
  }

  private visitListItems(t: ListType, l: unknown[], r: unknown[]): unknown {
    const { pes: rPEs, observed: rObs, ok: rOk } = this.index(t, r, false);
    const { pes: lPEs, observed: lObs, ok: lOk } = this.index(t, l, true);
    if (!rOk || !lOk) return undefined;
    const out: unknown[] = [];
    // rhs's items that lhs has too, in rhs's order: they keep that relative order in the result.
    const shared = rPEs.filter((e) => lObs.has(e.key));
    let sharedAt = 0;
    let nextShared = shared[sharedAt++]?.key;
    const mergedR = new Set<string>();
    const push = (pe: PathElement, lc: unknown, rc: unknown) => {
      this.path.push(pe);
      this.muted++;
      const item = this.merge(t.elementType, lc, rc);
      this.muted--;
      this.path.pop();
      if (item !== undefined) out.push(item);
    };
    let lI = 0;
    let rI = 0;
    while (lI < lPEs.length || rI < rPEs.length) {
      if (lI < lPEs.length && rI < rPEs.length) {
        const le = lPEs[lI] as Item;
        const re = rPEs[rI] as Item;
        if (le.key === re.key) {
          mergedR.add(le.key);
          push(le.pe, lObs.get(le.key), rObs.get(le.key));
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
          push(le.pe, l[lI], undefined); // lPEs matches l one to one: any unidentifiable item returned early
          lI++;
          continue;
        }
        if (mergedR.has(le.key)) lI++;
      }
      if (rI < rPEs.length) {
        const re = rPEs[rI] as Item;
        mergedR.add(re.key);
        push(re.pe, lObs.get(re.key), rObs.get(re.key));
        rI++;
        if (nextShared !== undefined && nextShared === re.key) nextShared = shared[sharedAt++]?.key;
      }
    }
    return out.length > 0 ? out : undefined;
  }

  private doMap(t: MapType, lhs: unknown, rhs: unknown): unknown {
    const l = isJsonObject(lhs) ? lhs : undefined;
    const r = isJsonObject(rhs) ? rhs : undefined;
    const lk = l ? Object.keys(l) : NO_KEYS;
    const rk = r ? Object.keys(r) : NO_KEYS;
    if (t.elementRelationship === 'atomic' || (lk.length === 0 && rk.length === 0)) return leaf(lhs, rhs);
    const out: Record<string, unknown> = {};
    let n = 0;
    const visit = (key: string, lv: unknown, rv: unknown) => {
      let v: unknown;
      if (lv === rv && (typeof lv !== 'object' || lv === null))
        v = rv; // the same scalar: rhs's, as the leaf rule says
      else {
        const field = this.schema.findField(t, key);
        this.path.push({ fieldName: key });
        v = this.merge(field ? field.type : (t.elementType ?? EMPTY_TYPE_REF), lv, rv);
        this.path.pop();
      }
      if (v !== undefined) {
        setOwn(out, key, v);
        n++;
      }
    };
    for (const key of lk) visit(key, (l as Record<string, unknown>)[key], getOwn(r, key));
    for (const key of rk) if (!l || !Object.hasOwn(l, key)) visit(key, undefined, (r as Record<string, unknown>)[key]);
    return n > 0 ? out : undefined;
  }
}

const NO_KEYS: readonly string[] = [];

/** SMD's keep-rhs rule at a leaf: rhs's value when it has one, else lhs's. */
function leaf(lhs: unknown, rhs: unknown): unknown {
  return rhs !== undefined ? rhs : lhs;
}
