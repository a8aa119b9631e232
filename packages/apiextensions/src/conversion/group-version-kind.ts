import { groupVersionKindFromAPIVersion } from '@kapi/apimachinery';
/**
 * Go's fmt of schema.GroupVersionKind ("group/version, Kind=Kind") and schema.GroupVersion ("group/version", "v1")
 * for an object's apiVersion and kind, as the conversion errors print them. An apiVersion Go cannot parse ("a/b/c")
 * counts as empty, as schema.FromAPIVersionAndKind makes it.
 */
export function groupVersionOf(apiVersion: unknown): { group: string; version: string } {
  const { group, version } = groupVersionKindFromAPIVersion(apiVersion, '');
  return { group, version };
}

export function formatGV(apiVersion: unknown): string {
  const { group, version } = groupVersionOf(apiVersion);
  return group === '' ? version : `${group}/${version}`;
}

/** Go's %T of a value decoded from JSON into interface{} (unstructured keeps whole numbers as int64). */
export function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}
