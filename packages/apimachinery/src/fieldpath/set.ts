/**
 * FieldSet — structured-merge-diff's fieldpath.Set: the fields a manager owns, as a tree. Each node holds its
 * members (path elements that are themselves in the set) and its children (path elements under which deeper
 * members sit); both are kept sorted in SMD's PathElement order, so the algebra is a linear merge per node and
 * FieldsV1 is written in kube's order without sorting.
 *
 * API notes for the packages built on it (typed/, merge/, registry's field manager):
 * - A FieldSet is immutable. `insert` returns a new set; the operations return new sets that may share subtrees
 *   with their inputs (safe because nothing mutates them). Building a set one path at a time is done with
 *   `FieldSetBuilder` (mutable, then `build()`), or `FieldSet.fromPaths`.
 * - Elements compare without serializing (field names and indexes directly); an element's FieldsV1 key
 *   (`f:name`, `k:{...}`) is computed once, when a set is first encoded, and decoding takes it from the JSON.
 * - SMD's path-walking helpers are here as `members()`, `children()`, `child(pe)` / `withPrefix(pe)`,
 *   `hasMember(pe)`; schema-aware ones (EnsureNamedFieldsAreMembers) belong in typed/. Matchers and filters
 *   (PrefixMatcher, exclude / include filters) are in set-matcher.ts.
 * - Inside this package (not exported from its index): the node arrays `m` / `ce` / `cs`, the constructor,
 *   `Elem`, `elemOf`, `compareElems` and `keyOf`, for walks that build sets bottom-up (typed/to-field-set.ts).
 *   A node's arrays must be sorted by compareElems, hold no duplicates, and `cs` must hold no empty set.
 * - Known deviation: names compare by UTF-16 code unit, Go by UTF-8 byte; the orders differ only between
 *   characters U+E000–U+FFFF and ones above U+FFFF.
 */

import { type Path, pathString } from './path.ts';
import { comparePathElements, ElementKind, elementKind, type PathElement, serializePathElement } from './path-element.ts';

/** A path element as the set's nodes hold it: its kind, and its FieldsV1 key once something asked for it. */
export interface Elem {
  readonly pe: PathElement;
  readonly k: ElementKind;
  /** serializePathElement(pe), filled in by keyOf (decoding fills it from the JSON key). */
  s: string | undefined;
}

export function elemOf(pe: PathElement): Elem {
  return { pe, k: elementKind(pe), s: undefined };
}

/** The element's FieldsV1 key, serialized once. */
export function keyOf(e: Elem): string {
  if (e.s === undefined) e.s = serializePathElement(e.pe);
  return e.s;
}

/** PathElement order on Elems; field names (nearly every element) compare directly. */
export function compareElems(a: Elem, b: Elem): number {
  if (a.k !== b.k) return a.k < b.k ? -1 : 1;
  if (a.k === ElementKind.Field) {
    const x = (a.pe as { fieldName: string }).fieldName;
    const y = (b.pe as { fieldName: string }).fieldName;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.k === ElementKind.Index) {
    const x = (a.pe as { index: number }).index;
    const y = (b.pe as { index: number }).index;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.s !== undefined && a.s === b.s) return 0;
  return comparePathElements(a.pe, b.pe);
}

/** Index of the element equal to `pe` in the sorted `list`, or a negative number; lookups need no serialized form. */
function find(list: readonly Elem[], pe: PathElement): number {
  const k = elementKind(pe);
  const name = k === ElementKind.Field ? (pe as { fieldName: string }).fieldName : '';
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const e = list[mid] as Elem;
    let c: number;
    if (e.k !== k) c = e.k < k ? -1 : 1;
    else if (k === ElementKind.Field) {
      const n = (e.pe as { fieldName: string }).fieldName;
      c = n < name ? -1 : n > name ? 1 : 0;
    } else c = comparePathElements(e.pe, pe);
    if (c < 0) lo = mid + 1;
    else if (c > 0) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** Index of `e` in the sorted `list`, or -(insertion point) - 1. */
function search(list: readonly Elem[], e: Elem): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareElems(list[mid] as Elem, e);
    if (c < 0) lo = mid + 1;
    else if (c > 0) hi = mid - 1;
    else return mid;
  }
  return -lo - 1;
}

const NO_ELEMS: readonly Elem[] = [];
const NO_SETS: readonly FieldSet[] = [];

export class FieldSet {
  /** @internal Members, sorted. */
  readonly m: readonly Elem[];
  /** @internal Child path elements, sorted; `cs[i]` is the subset under `ce[i]`, never empty. */
  readonly ce: readonly Elem[];
  /** @internal */
  readonly cs: readonly FieldSet[];
  /**
   * merge/reconcile-schema.ts's answer for this set under one schema (sets are immutable, so it holds): the Updater
   * reconciles every manager's set on every write. A slot, not a WeakMap: sets decoded per request die young, and weak
   * tables keyed by them cost the garbage collector more than the walk they save. Private, so that comparing two
   * equal sets structurally (a test's toEqual) never sees whether one of them was reconciled.
   */
  #reconciled: { readonly type: object; readonly set: FieldSet | null } | undefined = undefined;

  /** @internal The reconcile memo (see #reconciled). */
  get reconciled(): { readonly type: object; readonly set: FieldSet | null } | undefined {
    return this.#reconciled;
  }

  /** @internal */
  set reconciled(memo: { readonly type: object; readonly set: FieldSet | null } | undefined) {
    this.#reconciled = memo;
  }

  /** @internal Use FieldSet.empty(), fromPaths or FieldSetBuilder. */
  constructor(m: readonly Elem[], ce: readonly Elem[], cs: readonly FieldSet[]) {
    this.m = m;
    this.ce = ce;
    this.cs = cs;
  }

  static empty(): FieldSet {
    return EMPTY;
  }

  /** The set of these paths (SMD's NewSet). */
  static fromPaths(paths: Iterable<Path>): FieldSet {
    const b = new FieldSetBuilder();
    for (const p of paths) b.insert(p);
    return b.build();
  }

  /**
   * A new set with `path` added. Parents are not added (SMD: a set of `.a.b` does not contain `.a`); the empty
   * path (the whole object) is never tracked.
   */
  insert(path: Path): FieldSet {
    if (path.length === 0) return this;
    return this.insertAt(path, 0);
  }

  private insertAt(path: Path, i: number): FieldSet {
    const e = elemOf(path[i] as PathElement);
    if (i === path.length - 1) {
      const at = search(this.m, e);
      if (at >= 0) return this;
      const m = this.m.slice();
      m.splice(-at - 1, 0, e);
      return new FieldSet(m, this.ce, this.cs);
    }
    const at = search(this.ce, e);
    if (at >= 0) {
      const sub = (this.cs[at] as FieldSet).insertAt(path, i + 1);
      if (sub === this.cs[at]) return this;
      const cs = this.cs.slice();
      cs[at] = sub;
      return new FieldSet(this.m, this.ce, cs);
    }
    const ce = this.ce.slice();
    const cs = this.cs.slice();
    ce.splice(-at - 1, 0, e);
    cs.splice(-at - 1, 0, EMPTY.insertAt(path, i + 1));
    return new FieldSet(this.m, ce, cs);
  }

  /** Whether the field at `path` is a member (not merely a parent of members). */
  has(path: Path): boolean {
    if (path.length === 0) return false;
    let s: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      const at = find(s.ce, path[i] as PathElement);
      if (at < 0) return false;
      s = s.cs[at] as FieldSet;
    }
    return find(s.m, path[path.length - 1] as PathElement) >= 0;
  }

  /** Whether `pe` is a member of this node (SMD's Members.Has). */
  hasMember(pe: PathElement): boolean {
    return find(this.m, pe) >= 0;
  }

  /** The subset under `pe`, without the prefix; undefined when nothing is under it (SMD's Children.Get). */
  child(pe: PathElement): FieldSet | undefined {
    const at = find(this.ce, pe);
    return at < 0 ? undefined : this.cs[at];
  }

  /** The subset under `pe`, without the prefix; empty when nothing is under it (SMD's WithPrefix). */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? EMPTY;
  }

  /** This node's members, sorted. */
  members(): PathElement[] {
    return this.m.map((e) => e.pe);
  }

  /** This node's children (path element and the subset under it), sorted. */
  *children(): IterableIterator<[PathElement, FieldSet]> {
    for (let i = 0; i < this.ce.length; i++) yield [(this.ce[i] as Elem).pe, this.cs[i] as FieldSet];
  }

  /** No member at any depth. */
  isEmpty(): boolean {
    if (this.m.length > 0) return false;
    for (const c of this.cs) if (!c.isEmpty()) return false;
    return true;
  }

  /** The number of members at every depth. */
  size(): number {
    let n = this.m.length;
    for (const c of this.cs) n += c.size();
    return n;
  }

  /** The fields in either set. */
  union(o: FieldSet): FieldSet {
    if (o === this || o.isTrivial()) return this;
    if (this.isTrivial()) return o;
    const m = unionElems(this.m, o.m);
    const a = this.ce;
    const b = o.ce;
    // The children are copied only from the first place `o` adds something: a manager's set united with fields it
    // owns already is the same object, and nothing is allocated for it.
    let ce: Elem[] | undefined;
    let cs: FieldSet[] | undefined;
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const c = compareElems(a[i] as Elem, b[j] as Elem);
      if (c < 0) {
        ce?.push(a[i] as Elem);
        cs?.push(this.cs[i] as FieldSet);
        i++;
      } else if (c > 0) {
        if (!ce) {
          ce = a.slice(0, i);
          cs = this.cs.slice(0, i);
        }
        ce.push(b[j] as Elem);
        (cs as FieldSet[]).push(o.cs[j++] as FieldSet);
      } else {
        const sub = (this.cs[i] as FieldSet).union(o.cs[j++] as FieldSet);
        if (sub !== this.cs[i] && !ce) {
          ce = a.slice(0, i);
          cs = this.cs.slice(0, i);
        }
        ce?.push(a[i] as Elem);
        cs?.push(sub);
        i++;
      }
    }
    if (!ce && j === b.length) return m === this.m ? this : new FieldSet(m, this.ce, this.cs);
    ce ??= a.slice(0, i);
    const csOut = cs ?? this.cs.slice(0, i);
    while (i < a.length) {
      ce.push(a[i] as Elem);
      csOut.push(this.cs[i++] as FieldSet);
    }
    while (j < b.length) {
      ce.push(b[j] as Elem);
      csOut.push(o.cs[j++] as FieldSet);
    }
    return new FieldSet(m, ce, csOut);
  }

  /** The members in both sets (children kept only where something remains). */
  intersection(o: FieldSet): FieldSet {
    if (o === this) return this;
    if (this.isTrivial() || o.isTrivial()) return EMPTY;
    const m = intersectElems(this.m, o.m);
    const a = this.ce;
    const b = o.ce;
    const ce: Elem[] = [];
    const cs: FieldSet[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const c = compareElems(a[i] as Elem, b[j] as Elem);
      if (c < 0) i++;
      else if (c > 0) j++;
      else {
        const sub = (this.cs[i] as FieldSet).intersection(o.cs[j] as FieldSet);
        if (!sub.isEmpty()) {
          ce.push(a[i] as Elem);
          cs.push(sub);
        }
        i++;
        j++;
      }
    }
    return make(m, ce, cs);
  }

  /**
   * The members of this set that are not members of `o`, per node: removing a parent leaves its children
   * (`.a.b` − `.a` = `.a.b`) and removing a child leaves the parent (`.a` − `.a.b` = `.a`).
   */
  difference(o: FieldSet): FieldSet {
    if (o === this) return EMPTY;
    if (this.isTrivial() || o.isTrivial()) return this;
    const m = differenceElems(this.m, o.m);
    const a = this.ce;
    const b = o.ce;
    // The children are copied only from the first one that changes: removing fields a set does not hold (the
    // server's own fields from a write's changes, say) allocates nothing and returns the set itself.
    let ce: Elem[] | undefined;
    let cs: FieldSet[] | undefined;
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const c = compareElems(a[i] as Elem, b[j] as Elem);
      if (c < 0) {
        ce?.push(a[i] as Elem);
        cs?.push(this.cs[i] as FieldSet);
        i++;
      } else if (c > 0) j++;
      else {
        const sub = (this.cs[i] as FieldSet).difference(o.cs[j] as FieldSet);
        if (sub !== this.cs[i] && !ce) {
          ce = a.slice(0, i);
          cs = this.cs.slice(0, i);
        }
        if (ce && !sub.isEmpty()) {
          ce.push(a[i] as Elem);
          (cs as FieldSet[]).push(sub);
        }
        i++;
        j++;
      }
    }
    if (!ce) return m === this.m ? this : make(m, this.ce, this.cs);
    const csOut = cs as FieldSet[];
    while (i < a.length) {
      ce.push(a[i] as Elem);
      csOut.push(this.cs[i++] as FieldSet);
    }
    return make(m, ce, csOut);
  }

  /**
   * Like difference, but a member of `o` also removes everything under it: `.a.b.c` recursive-minus `.a.b` is
   * empty (SMD's RecursiveDifference, how reset fields and exclusions are applied).
   */
  recursiveDifference(o: FieldSet): FieldSet {
    if (o === this) return EMPTY;
    if (this.isTrivial() || o.isTrivial()) return this;
    const m = differenceElems(this.m, o.m);
    const a = this.ce;
    const b = o.ce;
    const ce: Elem[] = [];
    const cs: FieldSet[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length) {
      const e = a[i] as Elem;
      while (j < b.length && compareElems(b[j] as Elem, e) < 0) j++;
      if (search(o.m, e) < 0) {
        if (j < b.length && compareElems(b[j] as Elem, e) === 0) {
          const sub = (this.cs[i] as FieldSet).recursiveDifference(o.cs[j] as FieldSet);
          if (!sub.isEmpty()) {
            ce.push(e);
            cs.push(sub);
          }
        } else {
          ce.push(e);
          cs.push(this.cs[i] as FieldSet);
        }
      }
      i++;
    }
    return make(m, ce, cs);
  }

  /** Only the leaves: members that are not also parents of other members. */
  leaves(): FieldSet {
    const m: Elem[] = [];
    let c = 0;
    for (const e of this.m) {
      while (c < this.ce.length && compareElems(this.ce[c] as Elem, e) < 0) c++;
      if (c < this.ce.length && compareElems(this.ce[c] as Elem, e) === 0) continue;
      m.push(e);
    }
    return new FieldSet(
      m,
      this.ce,
      this.cs.map((s) => s.leaves()),
    );
  }

  /** Same members at every depth. */
  equals(o: FieldSet): boolean {
    if (o === this) return true;
    if (this.m.length !== o.m.length || this.ce.length !== o.ce.length) return false;
    for (let i = 0; i < this.m.length; i++) if (compareElems(this.m[i] as Elem, o.m[i] as Elem) !== 0) return false;
    for (let i = 0; i < this.ce.length; i++) {
      if (compareElems(this.ce[i] as Elem, o.ce[i] as Elem) !== 0) return false;
      if (!(this.cs[i] as FieldSet).equals(o.cs[i] as FieldSet)) return false;
    }
    return true;
  }

  /** Calls `fn` with each member's path, in SMD's order (a node's members, then its children's, depth first). The path array is reused: copy it to keep it. */
  forEachPath(fn: (path: Path) => void): void {
    const prefix: PathElement[] = [];
    const walk = (s: FieldSet): void => {
      for (const e of s.m) {
        prefix.push(e.pe);
        fn(prefix);
        prefix.pop();
      }
      for (let i = 0; i < s.ce.length; i++) {
        prefix.push((s.ce[i] as Elem).pe);
        walk(s.cs[i] as FieldSet);
        prefix.pop();
      }
    };
    walk(this);
  }

  /** Every member's path, in SMD's iteration order. */
  paths(): Path[] {
    const out: Path[] = [];
    this.forEachPath((p) => out.push(p.slice()));
    return out;
  }

  /** One path per line, as SMD's Set.String. */
  toString(): string {
    const lines: string[] = [];
    this.forEachPath((p) => lines.push(pathString(p)));
    return lines.join('\n');
  }

  /** Nothing at this node at all (cheaper than isEmpty; children are never empty sets). */
  private isTrivial(): boolean {
    return this.m.length === 0 && this.ce.length === 0;
  }
}

function make(m: readonly Elem[], ce: readonly Elem[], cs: readonly FieldSet[]): FieldSet {
  return m.length === 0 && ce.length === 0 ? EMPTY : new FieldSet(m, ce, cs);
}

const EMPTY = new FieldSet(NO_ELEMS, NO_ELEMS, NO_SETS);

function unionElems(a: readonly Elem[], b: readonly Elem[]): readonly Elem[] {
  if (b.length === 0 || a === b) return a;
  if (a.length === 0) return b;
  const out: Elem[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = compareElems(a[i] as Elem, b[j] as Elem);
    if (c < 0) out.push(a[i++] as Elem);
    else if (c > 0) out.push(b[j++] as Elem);
    else {
      out.push(a[i++] as Elem);
      j++;
    }
  }
  while (i < a.length) out.push(a[i++] as Elem);
  while (j < b.length) out.push(b[j++] as Elem);
  return out.length === a.length ? a : out;
}

function intersectElems(a: readonly Elem[], b: readonly Elem[]): readonly Elem[] {
  if (a === b) return a;
  if (a.length === 0 || b.length === 0) return NO_ELEMS;
  const out: Elem[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = compareElems(a[i] as Elem, b[j] as Elem);
    if (c < 0) i++;
    else if (c > 0) j++;
    else {
      out.push(a[i++] as Elem);
      j++;
    }
  }
  return out;
}

/** `a` minus `b`; `a` itself when nothing is removed (callers use that to keep unchanged subtrees shared). */
function differenceElems(a: readonly Elem[], b: readonly Elem[]): readonly Elem[] {
  if (a.length === 0 || b.length === 0) return a;
  const out: Elem[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = compareElems(a[i] as Elem, b[j] as Elem);
    if (c < 0) out.push(a[i++] as Elem);
    else if (c > 0) j++;
    else {
      i++;
      j++;
    }
  }
  while (i < a.length) out.push(a[i++] as Elem);
  return out.length === a.length ? a : out;
}

interface BuilderNode {
  m: Elem[];
  ce: Elem[];
  cb: BuilderNode[];
}

/**
 * Builds a FieldSet by inserting paths in place (SMD's Set.Insert), for walks that add many paths; `build()`
 * returns the immutable set. Inserting in sorted order is cheapest (appends).
 */
export class FieldSetBuilder {
  private readonly root: BuilderNode = { m: [], ce: [], cb: [] };
  /**
   * The parent elements of the last insert and the nodes they led to (`nodes[i]` is under `trail[0..i)`): a walk
   * that inserts `[...prefix, x]` for many x with the same element objects in the prefix descends only once.
   */
  private readonly trail: PathElement[] = [];
  private readonly nodes: BuilderNode[] = [this.root];
  /** How many entries of `trail` are current (the arrays are overwritten, not shrunk). */
  private depth = 0;

  /** Adds the field at `path` (not its parents). */
  insert(path: Path): this {
    const n = path.length - 1;
    if (n < 0) return this;
    const { trail, nodes } = this;
    let d = 0;
    const shared = Math.min(n, this.depth);
    while (d < shared && trail[d] === path[d]) d++;
    let node = nodes[d] as BuilderNode;
    for (let i = d; i < n; i++) {
      const pe = path[i] as PathElement;
      node = descend(node, elemOf(pe));
      trail[i] = pe;
      nodes[i + 1] = node;
    }
    this.depth = n;
    insertElem(node.m, elemOf(path[n] as PathElement));
    return this;
  }

  build(): FieldSet {
    return freeze(this.root);
  }
}

function insertElem(list: Elem[], e: Elem): void {
  const last = list[list.length - 1];
  if (last === undefined || compareElems(last, e) < 0) {
    list.push(e);
    return;
  }
  const at = search(list, e);
  if (at < 0) list.splice(-at - 1, 0, e);
}

function descend(node: BuilderNode, e: Elem): BuilderNode {
  const { ce, cb } = node;
  const last = ce[ce.length - 1];
  const c = last === undefined ? -1 : compareElems(last, e);
  if (c === 0) return cb[cb.length - 1] as BuilderNode;
  const child: BuilderNode = { m: [], ce: [], cb: [] };
  if (c < 0) {
    ce.push(e);
    cb.push(child);
    return child;
  }
  const at = search(ce, e);
  if (at >= 0) return cb[at] as BuilderNode;
  ce.splice(-at - 1, 0, e);
  cb.splice(-at - 1, 0, child);
  return child;
}

/** The immutable set of a builder's tree; arrays are copied, so the builder may go on inserting. */
function freeze(node: BuilderNode): FieldSet {
  return make(
    node.m.slice(),
    node.ce.slice(),
    node.cb.map((c) => freeze(c)),
  );
}
