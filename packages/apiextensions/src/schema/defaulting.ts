import { copyJson, getOwn, isJsonObject, setOwn } from '@kapi/apimachinery';
import type { Structural } from './structural.ts';

function isNonNullableNull(x: unknown, s: Structural | undefined): boolean {
  return x === null && s !== undefined && !s.nullable;
}

/**
 * Default (defaulting/algorithm.go): sets, in place, every absent property that has a default, and every null one whose
 * schema is not nullable, to a deep copy of the default, then descends into properties, additionalProperties values
 * and array items (an item or map value that is a non-nullable null takes its schema's default too). Run
 * {@link pruneNonNullableNullsWithoutDefaults} first, as kube does, so that nulls no default replaces are gone.
 */
export function applyDefaults(x: unknown, s: Structural | undefined): void {
  if (s === undefined) return;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], s.items) && s.items?.default !== undefined) x[i] = copyJson(s.items.default);
      applyDefaults(x[i], s.items);
    }
    return;
  }
  if (!isJsonObject(x)) return;
  for (const [k, prop] of s.properties ?? []) {
    if (prop.default === undefined) continue;
    if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) setOwn(x, k, copyJson(prop.default));
  }
  const additional = s.additionalProperties?.structural;
  for (const k of Object.keys(x)) {
    const prop = s.properties?.get(k);
    if (prop !== undefined) applyDefaults(x[k], prop);
    else if (s.additionalProperties !== undefined) {
      if (isNonNullableNull(x[k], additional) && additional?.default !== undefined) setOwn(x, k, copyJson(additional.default));
      applyDefaults(getOwn(x, k), additional);
    }
  }
}

/**
 * PruneNonNullableNullsWithoutDefaults (defaulting/prunenulls.go): removes, in place, object fields that are null
 * where the schema says neither nullable nor a default; nulls with a default are left for {@link applyDefaults}.
 * Array items are not removed (only fields of objects inside them).
 */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: Structural | undefined): void {
  if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, s?.items);
    return;
  }
  if (!isJsonObject(x)) return;
  for (const k of Object.keys(x)) {
    const schema = s?.properties?.get(k) ?? s?.additionalProperties?.structural;
    const v = x[k];
    if (v === null && schema !== undefined && !schema.nullable && schema.default === undefined) delete x[k];
    else pruneNonNullableNullsWithoutDefaults(v, schema);
  }
}
