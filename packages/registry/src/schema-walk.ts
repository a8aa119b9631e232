import { getOwn } from '@kapi/apimachinery';
import type { z } from 'zod';

/**
 * Walking zod schemas by data path. Validation errors, unknown-field detection, selectable fields and the
 * scale paths all need "which schema describes the value at spec.items[0]?", and the answer decides how a
 * path prints: a record's keys print as `[key]`, an object's fields as `.field`.
 */

/** The parts of zod 4's `_zod.def` this package reads; zod documents `_zod` for library authors. */
interface SchemaDef {
  type: string;
  innerType?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  catchall?: z.core.$ZodType;
  element?: z.core.$ZodType;
  keyType?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
  options?: readonly z.core.$ZodType[];
  items?: readonly z.core.$ZodType[];
  rest?: z.core.$ZodType | null;
  left?: z.core.$ZodType;
  right?: z.core.$ZodType;
  in?: z.core.$ZodType;
  getter?: () => z.core.$ZodType;
  format?: string;
  entries?: Record<string, string | number>;
  values?: readonly unknown[];
}

export function defOf(schema: z.core.$ZodType): SchemaDef {
  return schema._zod.def as unknown as SchemaDef;
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** Strips optional/nullable/default/… and follows lazy getters and pipes (input side) to the schema that shapes the value. */
export function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let s = schema;
  for (let i = 0; i < 64; i++) {
    const d = defOf(s);
    if (WRAPPERS.has(d.type) && d.innerType) s = d.innerType;
    else if (d.type === 'lazy' && d.getter) s = d.getter();
    else if (d.type === 'pipe' && d.in) s = d.in;
    else return s;
  }
  return s;
}

/** True when a value's schema declares nothing about it (z.unknown(), z.any()). */
export function isOpaque(schema: z.core.$ZodType): boolean {
  const t = defOf(unwrap(schema)).type;
  return t === 'unknown' || t === 'any';
}

/** What an object does with keys its shape does not name: 'preserve' (loose / catchall), or 'drop' (strip / strict). */
export function extraKeys(schema: z.core.$ZodType): 'preserve' | 'drop' {
  const c = defOf(schema).catchall;
  return c && defOf(c).type !== 'never' ? 'preserve' : 'drop';
}

/** The schema of `key` inside the value `schema` describes, and whether that container is a map (record). */
export function childSchema(
  schema: z.core.$ZodType | undefined,
  key: PropertyKey,
): { schema: z.core.$ZodType | undefined; inMap: boolean } {
  if (!schema) return { schema: undefined, inMap: false };
  const s = unwrap(schema);
  const d = defOf(s);
  switch (d.type) {
    case 'object': {
      // An own field only: a key such as "constructor" must not find Object.prototype's member in the shape.
      const field = typeof key === 'string' ? getOwn(d.shape, key) : undefined;
      if (field) return { schema: field, inMap: false };
      return { schema: extraKeys(s) === 'preserve' ? d.catchall : undefined, inMap: false };
    }
    case 'record':
    case 'map':
      return { schema: d.valueType, inMap: true };
    case 'array':
      return { schema: d.element, inMap: false };
    case 'tuple':
      return { schema: typeof key === 'number' ? (d.items?.[key] ?? d.rest ?? undefined) : undefined, inMap: false };
    case 'union':
    case 'intersection': {
      const parts = d.type === 'union' ? (d.options ?? []) : [d.left, d.right].filter((x): x is z.core.$ZodType => !!x);
      for (const p of parts) {
        const c = childSchema(p, key);
        if (c.schema) return c;
      }
      return { schema: undefined, inMap: false };
    }
    default:
      return { schema: undefined, inMap: false };
  }
}

/**
 * The schemas directly below `schema` (through wrappers, pipes and lazies): object fields and catchall, record and
 * map values, array elements, tuple items and rest, union options, intersection sides.
 */
function childSchemas(schema: z.core.$ZodType): z.core.$ZodType[] {
  const d = defOf(unwrap(schema));
  const single = [d.catchall, d.element, d.valueType, d.rest, d.left, d.right].filter((c): c is z.core.$ZodType => c != null);
  return [...Object.values(d.shape ?? {}), ...(d.options ?? []), ...(d.items ?? []), ...single];
}

/**
 * Whether `test` holds for `schema` or any schema below it (childSchemas, to any depth), remembered per schema in
 * `memo` — one memo per question, so that a per-request check costs one lookup. A recursive schema ends: a schema met
 * again inside its own walk adds nothing new, and an answer that may depend on an unfinished walk is not remembered.
 */
export function anySchema(
  schema: z.core.$ZodType,
  test: (schema: z.core.$ZodType) => boolean,
  memo: WeakMap<z.core.$ZodType, boolean>,
): boolean {
  return memo.get(schema) ?? anySchemaWalk(schema, test, memo, new Set());
}

function anySchemaWalk(
  schema: z.core.$ZodType,
  test: (schema: z.core.$ZodType) => boolean,
  memo: WeakMap<z.core.$ZodType, boolean>,
  visiting: Set<z.core.$ZodType>,
): boolean {
  const known = memo.get(schema);
  if (known !== undefined) return known;
  if (visiting.has(schema)) return false;
  visiting.add(schema);
  const found = test(schema) || childSchemas(schema).some((c) => anySchemaWalk(c, test, memo, visiting));
  visiting.delete(schema);
  if (visiting.size === 0 || found) memo.set(schema, found);
  return found;
}

/** The schema at a data path, or undefined where the schema says nothing (unknown fields, opaque values). */
export function schemaAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): z.core.$ZodType | undefined {
  let s: z.core.$ZodType | undefined = schema;
  for (const k of path) {
    s = childSchema(s, k).schema;
    if (!s) return undefined;
  }
  return s;
}

/** Kubernetes' field.Path rendering: `spec.containers[0].name`, `metadata.labels[app]`. */
export function formatFieldPath(root: z.core.$ZodType | undefined, path: readonly PropertyKey[]): string {
  let out = '';
  let s = root;
  for (const k of path) {
    const { schema, inMap } = childSchema(s, k);
    if (typeof k === 'number') out += `[${k}]`;
    else if (inMap) out += `[${String(k)}]`;
    else out += out === '' ? String(k) : `.${String(k)}`;
    s = schema;
  }
  return out;
}

/** The OpenAPI type name of a schema, as Kubernetes names types in messages ("integer", "string", …). */
export function openAPITypeOf(schema: z.core.$ZodType | undefined): string | undefined {
  if (!schema) return undefined;
  const s = unwrap(schema);
  const d = defOf(s);
  switch (d.type) {
    case 'string':
    case 'boolean':
    case 'object':
    case 'array':
      return d.type;
    case 'record':
    case 'map':
      return 'object';
    case 'tuple':
      return 'array';
    case 'number':
      return d.format && /int/.test(d.format) ? 'integer' : 'number';
    case 'int':
    case 'bigint':
      return 'integer';
    case 'enum':
      return typeof Object.values(d.entries ?? {})[0] === 'number' ? 'number' : 'string';
    case 'literal': {
      const v = d.values?.[0];
      return typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v === 'boolean' ? 'boolean' : 'string';
    }
    default:
      return undefined;
  }
}
