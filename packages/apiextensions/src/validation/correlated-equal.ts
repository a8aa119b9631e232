import { jsonEqual } from '@kapi/apimachinery';
import type { Structural } from '../schema/structural.ts';

/**
 * Whether a value is unchanged from its old value as kube's ratcheting judges it (CorrelatedObject.CachedDeepEqual,
 * k8s.io/apiserver/pkg/cel/common/equality.go): the items of an `x-kubernetes-list-type: map` list are matched by
 * their keys, so a reordered map list is unchanged; items of lists without a list type are compared by index through
 * their schema; set and atomic lists, and values without a schema, compare as a whole.
 */
export function correlatedEqual(s: Structural | undefined, value: unknown, old: unknown): boolean {
  if ((value === null || value === undefined) && (old === null || old === undefined)) return true;
  if (value === null || value === undefined || old === null || old === undefined) return false;
  if (Array.isArray(value) || Array.isArray(old)) {
    if (!Array.isArray(value) || !Array.isArray(old) || value.length !== old.length) return false;
    const items = s?.items;
    if (!items || s.xListType === 'set' || s.xListType === 'atomic') return jsonEqual(value, old);
    if (s.xListType === 'map') {
      const oldByKey = itemsByKey(old, s.xListMapKeys ?? []);
      return value.every((item) => {
        const oldItem = oldByKey.get(mapKey(item, s.xListMapKeys ?? []) ?? '');
        return oldItem !== undefined && correlatedEqual(items, item, oldItem);
      });
    }
    return value.every((item, i) => correlatedEqual(items, item, old[i]));
  }
  if (isRecord(value) && isRecord(old)) {
    const keys = Object.keys(value);
    if (keys.length !== Object.keys(old).length) return false;
    return keys.every((k) => {
      if (!Object.hasOwn(old, k)) return false;
      const child = s?.properties?.get(k) ?? s?.additionalProperties?.structural;
      return child ? correlatedEqual(child, value[k], old[k]) : jsonEqual(value[k], old[k]);
    });
  }
  return jsonEqual(value, old);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A map-list item's key values as one string (an absent key is null); undefined when the item is not an object. */
export function mapKey(item: unknown, keys: readonly string[]): string | undefined {
  return isRecord(item) ? JSON.stringify(keys.map((k) => item[k] ?? null)) : undefined;
}

/** The items of a map list by their keys (the first of duplicates). */
export function itemsByKey(list: readonly unknown[], keys: readonly string[]): Map<string, unknown> {
  const byKey = new Map<string, unknown>();
  for (const item of list) {
    const k = mapKey(item, keys);
    if (k !== undefined && !byKey.has(k)) byKey.set(k, item);
  }
  return byKey;
}
