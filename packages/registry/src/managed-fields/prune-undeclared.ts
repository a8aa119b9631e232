import type { TypedSchema } from '@kapi/apimachinery';

type TypeRef = TypedSchema['typeRef'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * An apply configuration without the fields its schema does not declare (kept where the schema takes any key: maps,
 * preserve-unknown-fields), as a new value. The typed merge refuses undeclared fields, so fieldValidation's Warn and
 * Ignore drop them first, as decoding drops them from other writes.
 */
export function pruneUndeclared(typed: TypedSchema, value: unknown): unknown {
  return prune(typed.schema, typed.typeRef, value);
}

function prune(schema: TypedSchema['schema'], tr: TypeRef, v: unknown): unknown {
  const atom = schema.resolve(tr);
  if (!atom) return v;
  if (isRecord(v) && atom.map) {
    const map = atom.map;
    const open = map.elementType !== undefined && Object.keys(map.elementType).length > 0 ? map.elementType : undefined;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const field = schema.findField(map, k);
      if (field) out[k] = prune(schema, field.type, x);
      else if (open) out[k] = prune(schema, open, x);
    }
    return out;
  }
  if (Array.isArray(v) && atom.list) {
    const elementType = atom.list.elementType;
    return v.map((x) => prune(schema, elementType, x));
  }
  return v;
}
