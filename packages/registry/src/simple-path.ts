/**
 * Simple JSONPaths as custom resources use them for scale and selectable fields: `.spec.replicas`, a dot and a
 * field name per step, no indexes, no wildcards.
 */

const STEP = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `.spec.replicas` → ['spec', 'replicas']; undefined when the path is not simple. */
export function parseSimplePath(path: string): string[] | undefined {
  if (!path.startsWith('.') || path.length < 2) return undefined;
  const steps = path.slice(1).split('.');
  return steps.every((s) => STEP.test(s)) ? steps : undefined;
}

/** The value at a simple path, or undefined when any step is missing. */
export function readFieldPath(obj: unknown, path: string): unknown {
  const steps = parseSimplePath(path);
  if (!steps) return undefined;
  let v: unknown = obj;
  for (const step of steps) {
    // Own fields only: a path such as `.spec.constructor` must not read Object.prototype's member when it is absent.
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, step)) return undefined;
    v = (v as Record<string, unknown>)[step];
  }
  return v;
}
