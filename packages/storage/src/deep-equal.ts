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

/** Equal as stored data: everything but metadata.resourceVersion. */
export function sameStoredObject(a: { metadata?: object }, b: { metadata?: object }): boolean {
  const { resourceVersion: _a, ...ma } = (a.metadata ?? {}) as Record<string, unknown>;
  const { resourceVersion: _b, ...mb } = (b.metadata ?? {}) as Record<string, unknown>;
  return jsonEqual({ ...a, metadata: ma }, { ...b, metadata: mb });
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
