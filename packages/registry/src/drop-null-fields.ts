import { z } from 'zod';
import { childSchema } from './schema-walk.ts';

/**
 * Go's decoding of JSON null into a kind's Go types: null leaves a field at its zero value (a nil map, slice or
 * pointer, an empty string), so `data: null` on a ConfigMap — what a manifest's `data:` with nothing under it is — decodes
 * as a ConfigMap without data, where zod would refuse the null. Removes from `body` (a private copy, changed in place)
 * every member that is null where the schema declares a field that cannot hold null, at any depth (objects in lists
 * and maps too); true when it removed one. Nulls the schema accepts (nullable fields, JSON values) stay, and so do
 * members it does not declare (fieldValidation's) and null items of lists and maps (a zero value in Go, kept for
 * validation to name). A worklist, not recursion: bodies nest up to 10,000 levels.
 */
export function dropNullFields(schema: z.core.$ZodType, body: Record<string, unknown>): boolean {
  let dropped = false;
  const work: [z.core.$ZodType, unknown][] = [[schema, body]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [s, value] = item;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      const element = childSchema(s, 0).schema;
      if (element) for (const v of value) if (typeof v === 'object' && v !== null) work.push([element, v]);
      continue;
    }
    const o = value as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      const child = childSchema(s, key);
      if (!child.schema) continue;
      const v = o[key];
      if (v === null) {
        if (!child.inMap && !acceptsNull(child.schema)) {
          delete o[key];
          dropped = true;
        }
      } else if (typeof v === 'object') work.push([child.schema, v]);
    }
  }
  return dropped;
}

const nullable = new WeakMap<z.core.$ZodType, boolean>();

/** Whether the field's schema takes null as a value (z.nullable, z.unknown(), a union with null). */
function acceptsNull(schema: z.core.$ZodType): boolean {
  let ok = nullable.get(schema);
  if (ok === undefined) {
    ok = z.safeParse(schema, null).success;
    nullable.set(schema, ok);
  }
  return ok;
}
