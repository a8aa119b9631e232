/** Plain-JSON helpers for the strategic merge patch: own properties only, so keys from a request stay data. */
import type { JsonObject } from '@kapi/apimachinery';

export { getOwn, type JsonObject, jsonEqual, setOwn } from '@kapi/apimachinery';

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

/** Keys whose value is present (JSON has no undefined; a caller's object might). */
export function ownKeys(obj: JsonObject): string[] {
  return Object.keys(obj).filter((k) => obj[k] !== undefined);
}
