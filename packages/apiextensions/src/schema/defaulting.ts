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
  // An explicit stack, as the other walks over request data.
  const work: [unknown, Structural | undefined][] = [[x, s]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [value, schema] = item;
    if (schema === undefined) continue;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (isNonNullableNull(value[i], schema.items) && schema.items?.default !== undefined) value[i] = copyJson(schema.items.default);
        work.push([value[i], schema.items]);
      }
      continue;
    }
    if (!isJsonObject(value)) continue;
    for (const [k, prop] of schema.properties ?? []) {
      if (prop.default === undefined) continue;
      if (!Object.hasOwn(value, k) || isNonNullableNull(value[k], prop)) setOwn(value, k, copyJson(prop.default));
    }
    const additional = schema.additionalProperties?.structural;
    for (const k of Object.keys(value)) {
      const prop = schema.properties?.get(k);
      if (prop !== undefined) work.push([value[k], prop]);
      else if (schema.additionalProperties !== undefined) {
        if (isNonNullableNull(value[k], additional) && additional?.default !== undefined) setOwn(value, k, copyJson(additional.default));
        work.push([getOwn(value, k), additional]);
      }
    }
  }
}

/**
 * PruneNonNullableNullsWithoutDefaults (defaulting/prunenulls.go): removes, in place, object fields that are null
 * where the schema says neither nullable nor a default; nulls with a default are left for {@link applyDefaults}.
 * Array items are not removed (only fields of objects inside them).
 */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: Structural | undefined): void {
  // An explicit stack: without a schema the walk follows the data, which may nest as deep as the decoder allows.
  const work: [unknown, Structural | undefined][] = [[x, s]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [value, schema] = item;
    if (Array.isArray(value)) {
      for (const v of value) work.push([v, schema?.items]);
      continue;
    }
    if (!isJsonObject(value)) continue;
    for (const k of Object.keys(value)) {
      const fieldSchema = schema?.properties?.get(k) ?? schema?.additionalProperties?.structural;
      const v = value[k];
      if (v === null && fieldSchema !== undefined && !fieldSchema.nullable && fieldSchema.default === undefined) delete value[k];
      else work.push([v, fieldSchema]);
    }
  }
}
