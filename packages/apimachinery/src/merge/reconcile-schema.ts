/**
 * A recorded field set brought in line with a schema that changed since it was recorded (SMD's
 * typed.ReconcileFieldSetWithSchema, which the Updater runs on every manager before a write): a struct, map or
 * list that became atomic is owned whole — its sub-fields collapse into the container itself, so the next apply
 * conflicts over (or takes) the container as kube does. A container that went from atomic to granular needs
 * nothing: its owner keeps the container member and owns no sub-field (SMD treats it as always granular).
 *
 * Walks the set only (never the value), guided by the schema; fields the schema does not know are left alone,
 * as are deduced maps (preserve-unknown-fields objects carry no atomic/granular tag).
 */
import type { Path } from '../fieldpath/path.ts';
import type { PathElement } from '../fieldpath/path-element.ts';
import { compareElems, type Elem, FieldSet } from '../fieldpath/set.ts';
import {
  isEmptyTypeRef,
  type ListType,
  type MapType,
  type Schema,
  type TypedSchema,
  type TypeRef,
  typeRefName,
  UNTYPED_DEDUCED,
} from '../typed/schema.ts';

/** `set` reconciled with `type`'s schema, or undefined when nothing changes (the common case: no allocation). */
export function reconcileFieldSetWithSchema(set: FieldSet, type: TypedSchema): FieldSet | undefined {
  // A stored object's sets are decoded once and shared, so each is walked once per schema.
  const memo = set.reconciled;
  if (memo !== undefined && memo.type === type) return memo.set ?? undefined;
  const out = reconcileUncached(set, type);
  set.reconciled = { type, set: out ?? null };
  return out;
}

function reconcileUncached(set: FieldSet, type: TypedSchema): FieldSet | undefined {
  const collapse: Path[] = [];
  walk(type.schema, type.typeRef, set, false, [], collapse);
  if (collapse.length === 0) return undefined;
  const paths = FieldSet.fromPaths(collapse);
  return set.recursiveDifference(paths).union(paths);
}

function walk(schema: Schema, tr: TypeRef, set: FieldSet | undefined, isAtomic: boolean, path: PathElement[], collapse: Path[]): void {
  // Most of an object's types hold nothing atomic (a ConfigMap's data, labels): their subtrees are not walked at all.
  if (!mayCollapse(schema, tr)) return;
  const atom = schema.resolve(tr);
  if (!atom) throw new Error(`errors reconciling field set with schema: could not resolve ${typeRefName(tr)}`);
  // SMD's handleAtom order: map, then scalar, then list.
  if (atom.map) walkMap(schema, atom.map, set, isAtomic, path, collapse);
  else if (!atom.scalar && atom.list) walkList(schema, atom.list, set, isAtomic, path, collapse);
}

function walkList(
  schema: Schema,
  list: ListType,
  set: FieldSet | undefined,
  isAtomic: boolean,
  path: PathElement[],
  collapse: Path[],
): void {
  if (!isAtomic && list.elementRelationship === 'atomic') {
    collapse.push(path.slice());
    return;
  }
  if (set) visitItems(set, path, (_pe, child, atomic) => walk(schema, list.elementType, child, atomic, path, collapse));
}

function walkMap(schema: Schema, map: MapType, set: FieldSet | undefined, isAtomic: boolean, path: PathElement[], collapse: Path[]): void {
  if (isUntypedDeducedMap(map)) return;
  if (!isAtomic && map.elementRelationship === 'atomic') {
    if (set && !set.isEmpty()) collapse.push(path.slice());
    return;
  }
  if (!set) return;
  visitItems(set, path, (pe, child, atomic) => {
    let tr = map.elementType;
    if ('fieldName' in pe) tr = schema.findField(map, pe.fieldName)?.type ?? tr;
    if (!tr || isEmptyTypeRef(tr)) return; // a field the schema does not know
    walk(schema, tr, child, atomic, path, collapse);
  });
}

/**
 * Children that are not members first, then members (a member without children is an atomic leaf), as SMD
 * visits. Reads the set's sorted element arrays directly: this runs for every manager on every write, and
 * looking elements up by PathElement would serialize each one again.
 */
function visitItems(
  set: FieldSet,
  path: PathElement[],
  visit: (pe: PathElement, child: FieldSet | undefined, atomic: boolean) => void,
): void {
  const { m, ce, cs } = set;
  let j = 0;
  for (let i = 0; i < ce.length; i++) {
    const e = ce[i] as Elem;
    while (j < m.length && compareElems(m[j] as Elem, e) < 0) j++;
    if (j < m.length && compareElems(m[j] as Elem, e) === 0) continue;
    path.push(e.pe);
    visit(e.pe, cs[i], false);
    path.pop();
  }
  let k = 0;
  for (const e of m) {
    while (k < ce.length && compareElems(ce[k] as Elem, e) < 0) k++;
    const child = k < ce.length && compareElems(ce[k] as Elem, e) === 0 ? cs[k] : undefined;
    path.push(e.pe);
    visit(e.pe, child, child === undefined);
    path.pop();
  }
}

/** A map with no fields whose unknown entries are deduced: an object with x-kubernetes-preserve-unknown-fields. */
function isUntypedDeducedMap(map: MapType): boolean {
  const et = map.elementType;
  if (!et || (map.fields?.length ?? 0) > 0) return false;
  if (et.namedType !== undefined) return et.namedType === UNTYPED_DEDUCED;
  return et.scalar === 'untyped';
}

/** Per schema: whether a value of a type may hold an atomic map, struct or list (something reconciling can collapse). */
const collapsible = new WeakMap<Schema, WeakMap<TypeRef, boolean>>();

/**
 * False only when no map, struct or list at or below `tr` is atomic, so walking a set there finds nothing to collapse.
 * A type that does not resolve answers true, so the walk still reports it; a recursive type is assumed collapsible
 * while its own answer is being worked out.
 */
function mayCollapse(schema: Schema, tr: TypeRef): boolean {
  let memo = collapsible.get(schema);
  if (!memo) {
    memo = new WeakMap();
    collapsible.set(schema, memo);
  }
  const known = memo.get(tr);
  if (known !== undefined) return known;
  memo.set(tr, true);
  const answer = collapsibleUncached(schema, tr);
  memo.set(tr, answer);
  return answer;
}

function collapsibleUncached(schema: Schema, tr: TypeRef): boolean {
  const atom = schema.resolve(tr);
  if (!atom) return true;
  const below = (t: TypeRef | undefined): boolean => !!t && !isEmptyTypeRef(t) && mayCollapse(schema, t);
  if (atom.map) {
    const map = atom.map;
    if (isUntypedDeducedMap(map)) return false;
    if (map.elementRelationship === 'atomic') return true;
    return below(map.elementType) || (map.fields ?? []).some((f) => below(f.type));
  }
  if (!atom.scalar && atom.list) return atom.list.elementRelationship === 'atomic' || below(atom.list.elementType);
  return false;
}
