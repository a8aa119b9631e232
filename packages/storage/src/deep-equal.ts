/**
 * Structural equality of JSON values (object key order ignored), used to detect updates that change nothing.
 * `ignore` names top-level metadata fields left out of the comparison (resourceVersion is never stored data).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let count = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    count++;
    if (!jsonEqual(ao[k], bo[k])) return false;
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

/** Freezes a JSON value and everything in it, so shared objects cannot be changed by a reader. */
export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}
