import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { escapeFieldName } from './cel-type.ts';

/**
 * How a list value of a schema-typed variable compares and adds, by its `x-kubernetes-list-type` (kube's
 * unstructuredSetList and unstructuredMapList, k8s.io/apiserver/pkg/cel/common/values.go). Atomic lists and lists
 * made by expressions (literals, `filter`, `map`) carry none and stay ordered.
 */
export type ListSemantics = { readonly type: 'set' } | { readonly type: 'map'; readonly keys: readonly string[] };

// The values stay plain arrays (the CEL library knows lists by their constructor); their semantics sit beside them.
const semantics = new WeakMap<readonly unknown[], ListSemantics>();

/** Marks a list value made from a `set` or `map` list; the list itself, for chaining. */
export function withListSemantics<T extends unknown[]>(list: T, listType: string | undefined, mapKeys: readonly string[] | undefined): T {
  if (listType === 'set') semantics.set(list, { type: 'set' });
  // kube reads the key fields of elements under their escaped names (escapeKeyProps); typed elements hold those
  else if (listType === 'map') semantics.set(list, { type: 'map', keys: (mapKeys ?? []).map((k) => escapeFieldName(k) ?? k) });
  return list;
}

export function listSemantics(list: readonly unknown[]): ListSemantics | undefined {
  return semantics.get(list);
}

type Equals = (a: unknown, b: unknown) => boolean;

/**
 * `left == right` where left is a set or map list: kube's Equal is the left operand's, so `[2, 1] == self.set` is
 * ordered while `self.set == [2, 1]` is not. A set equals a list of its size whose every element it contains; a map
 * list equals a list of its size whose every element has a key of the map list's and equals the element under it.
 */
export function typedListEquals(left: readonly unknown[], kind: ListSemantics, right: readonly unknown[], equals: Equals): boolean {
  if (left.length !== right.length) return false;
  if (kind.type === 'set') {
    const members = new Members(left, scalarKey, equals);
    return right.every((v) => members.has(v));
  }
  const byKey = new Map<string, unknown>();
  for (const e of left) {
    const k = mapKey(e, kind.keys);
    if (k !== undefined) byKey.set(k, e);
  }
  return right.every((v) => {
    const k = mapKey(v, kind.keys);
    return k !== undefined && byKey.has(k) && equals(byKey.get(k), v);
  });
}

/**
 * `left + right` where left is a set or map list (kube's Add): a set unites, keeping left's order and appending what
 * is new in right; a map list keeps left's positions, replaces an element whose key right has and appends the rest.
 * The result is a list of the same kind.
 */
export function typedListAdd(left: readonly unknown[], kind: ListSemantics, right: readonly unknown[], equals: Equals): unknown[] {
  const out = [...left];
  if (kind.type === 'set') {
    const members = new Members(left, scalarKey, equals);
    for (const v of right) {
      if (members.has(v)) continue;
      members.add(v);
      out.push(v);
    }
  } else {
    const index = new Map<string, number>();
    left.forEach((e, i) => {
      const k = mapKey(e, kind.keys);
      if (k !== undefined) index.set(k, i);
    });
    for (const v of right) {
      const k = mapKey(v, kind.keys);
      const at = k === undefined ? undefined : index.get(k);
      if (at === undefined) out.push(v);
      else out[at] = v;
    }
  }
  semantics.set(out, kind);
  return out;
}

/** Set membership: scalars by a key (a Go map in kube), anything else by CEL equality. */
class Members {
  readonly #keys = new Set<string>();
  readonly #others: unknown[] = [];
  readonly #key: (v: unknown) => string | undefined;
  readonly #equals: Equals;

  constructor(values: readonly unknown[], key: (v: unknown) => string | undefined, equals: Equals) {
    this.#key = key;
    this.#equals = equals;
    for (const v of values) this.add(v);
  }

  add(v: unknown): void {
    const k = this.#key(v);
    if (k === undefined) this.#others.push(v);
    else this.#keys.add(k);
  }

  has(v: unknown): boolean {
    const k = this.#key(v);
    return k === undefined ? this.#others.some((o) => this.#equals(o, v)) : this.#keys.has(k);
  }
}

/**
 * A scalar's identity as a string, its type included (a Go map key: int 1 and double 1.0 differ); undefined for
 * values that are not scalars.
 */
function scalarKey(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return `s${v}`;
    case 'bigint':
      return `i${v}`;
    case 'number':
      return `d${v}`;
    case 'boolean':
      return `b${v}`;
  }
  if (v === null || v === undefined) return 'n';
  if (v instanceof UnsignedInt) return `u${v.value}`;
  if (v instanceof Date) return `t${v.getTime()}`;
  if (v instanceof Duration) return `p${v.seconds}.${v.nanos}`;
  return undefined;
}

/** An element's map-list key: its key fields' values (an absent one is null, as in kube); undefined when not an object. */
function mapKey(e: unknown, keys: readonly string[]): string | undefined {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return undefined;
  const parts: string[] = [];
  for (const k of keys) {
    const part = scalarKey(Object.hasOwn(e, k) ? (e as Record<string, unknown>)[k] : null);
    if (part === undefined) return undefined;
    parts.push(JSON.stringify(part));
  }
  return parts.join(',');
}
