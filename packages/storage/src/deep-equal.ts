/**
 * Walks over stored objects. An accepted object may nest up to 10,000 levels (kube's decoder limit), far beyond what
 * a plain recursive walk survives on Node's default stack, yet nearly every object is shallow and recursion is the
 * fastest walk there is. So each walk recurses at most RECURSION_DEPTH levels and hands anything deeper to an
 * explicit worklist, whose items it walks the same way.
 */
const RECURSION_DEPTH = 500;

/**
 * Structural equality of JSON values (object key order ignored, undefined members count as absent), used to detect
 * updates that change nothing. Safe at any depth.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const deeper: unknown[] = [];
  if (!equalTo(a, b, 0, deeper)) return false;
  while (deeper.length) {
    const y = deeper.pop();
    if (!equalTo(deeper.pop(), y, 0, deeper)) return false;
  }
  return true;
}

/** Compares `a` and `b` to RECURSION_DEPTH levels below `depth`; pairs further down go to `deeper` (two entries each). */
function equalTo(a: unknown, b: unknown, depth: number, deeper: unknown[]): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (depth === RECURSION_DEPTH) {
    deeper.push(a, b);
    return true;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equalTo(a[i], b[i], depth + 1, deeper)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let count = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    count++;
    if (!equalTo(ao[k], bo[k], depth + 1, deeper)) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) count--;
  return count === 0;
}

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
