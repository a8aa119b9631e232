/**
 * Freezes a storage's private copy of an object (fresh from JSON.parse, save for already frozen shared parts) the way
 * deepFreeze does, and on the way makes it smaller: every empty object becomes one shared frozen `{}` (managedFields'
 * fieldsV1 is mostly `{}` leaves, each an allocation of its own after a parse), and short strings that recur from
 * object to object — namespaces, kinds, apiVersions, label values, managers — become one shared copy, where a parse
 * makes a new one per object. Nothing observable changes: the values are equal and frozen.
 */

/** Objects may nest 10,000 levels (kube's decoder limit); the walk recurses this deep and keeps a worklist beyond. */
const RECURSION_DEPTH = 500;
/** Strings up to this length are shared; longer ones are rarely repeated and costly to hash. */
const MAX_SHARED_LENGTH = 64;
/** Distinct strings remembered before the table starts over (unique ones, names and uids, pass through it too). */
const MAX_SHARED_STRINGS = 4096;

const EMPTY: object = Object.freeze({});
let strings = new Map<string, string>();

function shared(s: string): string {
  const hit = strings.get(s);
  if (hit !== undefined) return hit;
  if (strings.size >= MAX_SHARED_STRINGS) strings = new Map();
  strings.set(s, s);
  return s;
}

function isEmptyObject(o: object): boolean {
  if (Array.isArray(o)) return false;
  for (const _ in o) return false;
  return true;
}

/** Freezes `v` (a private copy) all the way down, sharing empty objects and recurring short strings. Safe at any depth. */
export function freezeForStorage<T>(v: T): T {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  const deeper: object[] = [];
  walk(v, 0, deeper);
  for (let o = deeper.pop(); o !== undefined; o = deeper.pop()) walk(o, 0, deeper);
  return v;
}

/** Shares the members of `o` that can be shared, walks the others, then freezes `o` (its members are done or queued). */
function walk(o: object, depth: number, deeper: object[]): void {
  const rec = o as Record<string, unknown>;
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) {
      const m = member(o[i], depth, deeper);
      if (m !== o[i]) o[i] = m;
    }
  } else {
    for (const k of Object.keys(rec)) {
      const c = rec[k];
      const m = member(c, depth, deeper);
      if (m !== c) rec[k] = m;
    }
  }
  Object.freeze(o);
}

function member(c: unknown, depth: number, deeper: object[]): unknown {
  if (typeof c === 'string') return c.length <= MAX_SHARED_LENGTH ? shared(c) : c;
  if (typeof c !== 'object' || c === null || Object.isFrozen(c)) return c;
  if (isEmptyObject(c)) return EMPTY;
  if (depth === RECURSION_DEPTH) deeper.push(c);
  else walk(c, depth + 1, deeper);
  return c;
}
