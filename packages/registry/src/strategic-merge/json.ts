/** Plain-JSON helpers for the strategic merge patch: own properties only, so keys from a request stay data. */

export type JsonObject = Record<string, unknown>;

/** The JSON kind of a value; the patch compares kinds the way kube compares Go types (map, slice, string, …). */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function kindOf(v: unknown): JsonKind {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  return t === 'string' || t === 'number' || t === 'boolean' ? t : 'object';
}

export function hasOwn(obj: JsonObject, key: string): boolean {
  return Object.hasOwn(obj, key) && obj[key] !== undefined;
}

/** An own property's value; never an inherited member such as `constructor`. */
export function getOwn(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets an own property even for "__proto__", so it never swaps a prototype. */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** Keys whose value is present (JSON has no undefined; a caller's object might). */
export function ownKeys(obj: JsonObject): string[] {
  return Object.keys(obj).filter((k) => obj[k] !== undefined);
}

/** Deep equality of JSON values, key order ignored. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const ka = ownKeys(a);
  const kb = ownKeys(b);
  return ka.length === kb.length && ka.every((k) => hasOwn(b, k) && jsonEqual(a[k], b[k]));
}
