import { jsonEqual } from '@kapi/apimachinery';

/**
 * Walks over stored objects. An accepted object may nest up to 10,000 levels (kube's decoder limit), far beyond what
 * a plain recursive walk survives on Node's default stack, yet nearly every object is shallow and recursion is the
 * fastest walk there is. So each walk recurses at most RECURSION_DEPTH levels and hands anything deeper to an
 * explicit worklist, whose items it walks the same way.
 */
const RECURSION_DEPTH = 500;

/** Structural equality of JSON values, safe at any depth: apimachinery's, one walk for every package. */
export { jsonEqual } from '@kapi/apimachinery';

/**
 * Equal as stored data: everything but metadata.resourceVersion (an absent metadata counts as an empty one). Every
 * write asks this of the object it is about to store, and nearly always the answer is no: the members a write
 * changes (spec, data, status) are compared first and metadata.managedFields, the largest part, last — no copies.
 */
export function sameStoredObject(a: { metadata?: object }, b: { metadata?: object }): boolean {
  if (a === b) return true;
  if (!sameMembers(a as Record<string, unknown>, b as Record<string, unknown>, 'metadata')) return false;
  const ma = (a.metadata ?? {}) as Record<string, unknown>;
  const mb = (b.metadata ?? {}) as Record<string, unknown>;
  return sameMembers(ma, mb, 'resourceVersion', 'managedFields') && jsonEqual(ma.managedFields, mb.managedFields);
}

/**
 * `a` and `b` have equal members apart from keys `skip1` and `skip2` (two plain parameters: no array of them built
 * per call, twice per write). for…in with an own-key check: no array of keys, and nothing from a polluted prototype.
 */
function sameMembers(a: Record<string, unknown>, b: Record<string, unknown>, skip1: string, skip2?: string): boolean {
  let count = 0;
  for (const k in a) {
    if (!Object.hasOwn(a, k) || a[k] === undefined || k === skip1 || k === skip2) continue;
    count++;
    if (!Object.hasOwn(b, k) || !jsonEqual(a[k], b[k])) return false;
  }
  for (const k in b) if (Object.hasOwn(b, k) && b[k] !== undefined && k !== skip1 && k !== skip2) count--;
  return count === 0;
}

/** Freezes a JSON value and everything in it, so shared objects cannot be changed by a reader. Safe at any depth. */
export function deepFreeze<T>(v: T): T {
  const deeper: object[] = [];
  freeze(v, 0, deeper);
  // Each of these is frozen already; its members are not yet.
  for (let o = deeper.pop(); o !== undefined; o = deeper.pop()) {
    for (const k of Object.keys(o)) freeze((o as Record<string, unknown>)[k], 0, deeper);
  }
  return v;
}

/** An already frozen value is taken to be frozen all the way down (everything here freezes whole values). */
function freeze(v: unknown, depth: number, deeper: object[]): void {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
  Object.freeze(v);
  if (depth === RECURSION_DEPTH) deeper.push(v);
  else for (const k of Object.keys(v)) freeze((v as Record<string, unknown>)[k], depth + 1, deeper);
}
