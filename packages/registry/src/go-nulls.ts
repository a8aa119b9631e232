import { z } from 'zod';
import { childSchema, defOf, unwrap } from './schema-walk.ts';

/**
 * Go's decoding of JSON null into a kind's Go types: null leaves a field at its zero value (a nil map, slice or
 * pointer; an empty string), and makes a map value or list item the zero value of its type. So `data: null` on a
 * ConfigMap — what a manifest's `data:` with nothing under it is — decodes as a ConfigMap without data, and
 * `data: {a: null}` as `a: ""` (a Helm value left unset renders that way), where zod would refuse the nulls.
 *
 * Changes `body` (a private copy) in place, at any depth: a member that is null where the schema declares a field
 * that cannot hold null is removed; a null map value or list item whose schema is a string, a number or a boolean
 * becomes "", 0 or false. Returns true when it changed something. Nulls the schema takes (nullable fields, JSON
 * values) stay, and so do members it does not declare (fieldValidation's) and null map values or list items of other
 * types (objects, lists: kept for validation to name). A worklist, not recursion: bodies nest up to 10,000 levels.
 */
export function decodeNullsAsGo(schema: z.core.$ZodType, body: Record<string, unknown>): boolean {
  let changed = false;
  const work: [z.core.$ZodType, unknown][] = [[schema, body]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [s, value] = item;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      const element = childSchema(s, 0).schema;
      if (!element) continue;
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        if (v === null) {
          const zero = scalarZero(element);
          if (zero !== undefined) {
            value[i] = zero;
            changed = true;
          }
        } else if (typeof v === 'object') work.push([element, v]);
      }
      continue;
    }
    const o = value as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      const child = childSchema(s, key);
      if (!child.schema) continue;
      const v = o[key];
      if (v === null) {
        if (acceptsNull(child.schema)) continue;
        if (!child.inMap) {
          delete o[key];
          changed = true;
        } else {
          const zero = scalarZero(child.schema);
          if (zero !== undefined) {
            o[key] = zero;
            changed = true;
          }
        }
      } else if (typeof v === 'object') work.push([child.schema, v]);
    }
  }
  return changed;
}

/** The zero value of a string, number or boolean schema; undefined for any other. */
function scalarZero(schema: z.core.$ZodType): string | number | boolean | undefined {
  switch (defOf(unwrap(schema)).type) {
    case 'string':
    case 'enum':
      return '';
    case 'number':
    case 'int':
    case 'bigint':
      return 0;
    case 'boolean':
      return false;
    default:
      return undefined;
  }
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
