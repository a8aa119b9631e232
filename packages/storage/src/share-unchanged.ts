/**
 * Structural sharing between revisions: a new version of an object (a storage's private copy, not frozen yet) takes
 * over every member equal to the same member of the version it replaces (frozen, so sharing it is safe). A status
 * update of a large object then adds to history only the parts it changed; equal strings share one copy too.
 */

/** Below this depth nothing is shared: the walk recurses, and objects may nest 10,000 levels. */
const MAX_DEPTH = 100;

/**
 * Replaces, in `next`, each member equal to the member at the same place in `prev` by `prev`'s; returns `prev` itself
 * when all of `next` is equal to it (keys in the same order: JSON.stringify of `next` does not change), else `next`. `next` must be a private unfrozen copy; `prev` frozen.
 */
export function shareUnchanged(next: unknown, prev: unknown, depth = 0): unknown {
  if (next === prev) return prev;
  if (typeof next !== 'object' || next === null || typeof prev !== 'object' || prev === null) return next;
  if (depth >= MAX_DEPTH || Object.isFrozen(next) || !Object.isFrozen(prev) || Array.isArray(next) !== Array.isArray(prev)) return next;
  let same = true;
  if (Array.isArray(next)) {
    const p = prev as unknown[];
    for (let i = 0; i < next.length; i++) {
      if (i >= p.length) {
        same = false;
        break;
      }
      // Assigned even when equal: an equal string is a second copy until it is replaced by the previous version's.
      const v = shareUnchanged(next[i], p[i], depth + 1);
      next[i] = v;
      if (v !== p[i]) same = false;
    }
    if (next.length !== p.length) same = false;
  } else {
    const n = next as Record<string, unknown>;
    const p = prev as Record<string, unknown>;
    const nk = Object.keys(n);
    for (const k of nk) {
      if (!Object.hasOwn(p, k)) {
        same = false;
        continue;
      }
      const v = shareUnchanged(n[k], p[k], depth + 1);
      n[k] = v;
      if (v !== p[k]) same = false;
    }
    if (same) {
      // Equal means in the same key order too: `next`'s JSON text then stays its encoding (the storage hands it on).
      // for…in over `prev` needs no second array of keys (own keys only: a polluted prototype adds none).
      let i = 0;
      for (const k in p) {
        if (!Object.hasOwn(p, k)) continue;
        if (nk[i++] !== k) {
          same = false;
          break;
        }
      }
      if (i !== nk.length) same = false;
    }
  }
  return same ? prev : next;
}
