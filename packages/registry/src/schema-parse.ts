import { getOwn, isJsonObject, setOwn } from '@kapi/apimachinery';
import { z } from 'zod';
import { anySchema, defOf, extraKeys, isOpaque, openAPITypeOf, unwrap } from './schema-walk.ts';

/**
 * zod's safeParse with "__proto__" keys as data. zod skips an own "__proto__" key of its input everywhere (it builds
 * its output in a plain `{}`, where assigning that key would replace the prototype): the value goes unvalidated and
 * vanishes from the output, so a ConfigMap's `data["__proto__"]` would be lost. Here such a key is parsed as zod
 * parses any other key at that place (a record's key and value schemas, a loose object's catchall) and written back
 * into the output as an own property; its errors join zod's with their paths. Where the schema drops unknown keys,
 * the key is dropped like any other unknown key.
 *
 * The walk follows the schema and the input together with an explicit stack and stops where the schema says nothing
 * (z.unknown() keeps its input, "__proto__" keys included), so it costs little beside zod's own walk.
 *
 * A schema may also declare a field named like a member of Object.prototype ("constructor", "toString", …): zod reads
 * `input[key]`, which finds the inherited function when the body leaves the field out. Such objects reach zod as
 * null-prototype copies (withoutInheritedMembers), so an absent field is absent.
 */
export function safeParseData<S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  params?: z.core.ParseContext<z.core.$ZodIssue>,
): z.ZodSafeParseResult<z.output<S>> {
  const result = z.safeParse(schema, withoutInheritedMembers(schema, value), params);
  // Nearly every body has no "__proto__" key at all: a plain scan says so for less than the schema-guided walk.
  if (!mayHoldProtoKey(value, 0)) return result;
  const issues: z.core.$ZodIssue[] = [];
  restoreProtoKeys(schema, value, result.success ? result.data : undefined, issues, params);
  if (issues.length === 0) return result;
  return { success: false, error: new z.ZodError([...(result.success ? [] : result.error.issues), ...issues]) } as z.ZodSafeParseResult<
    z.output<S>
  >;
}

/** Below this depth the scan gives up and answers "maybe" (the walk after it keeps its own stack). */
const SCAN_DEPTH = 64;

/** Whether `value` may have an own "__proto__" key at some depth (false: certainly none). */
function mayHoldProtoKey(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth >= SCAN_DEPTH) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (mayHoldProtoKey(v, depth + 1)) return true;
    return false;
  }
  if (Object.hasOwn(value, '__proto__')) return true;
  const o = value as Record<string, unknown>;
  for (const k in o) if (Object.hasOwn(o, k) && mayHoldProtoKey(o[k], depth + 1)) return true;
  return false;
}

interface Item {
  schema: z.core.$ZodType;
  input: unknown;
  /** What zod made of `input`, when it succeeded. */
  output: unknown;
  path: PropertyKey[];
}

function restoreProtoKeys(
  root: z.core.$ZodType,
  value: unknown,
  parsed: unknown,
  issues: z.core.$ZodIssue[],
  params: z.core.ParseContext<z.core.$ZodIssue> | undefined,
): void {
  const stack: Item[] = [{ schema: root, input: value, output: parsed, path: [] }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { input, output, path } = item;
    if (typeof input !== 'object' || input === null) continue;
    const s = unwrap(item.schema);
    const d = defOf(s);
    const push = (schema: z.core.$ZodType | undefined, key: PropertyKey, out: unknown): void => {
      const v = (input as Record<PropertyKey, unknown>)[key];
      if (schema && !isOpaque(schema) && typeof v === 'object' && v !== null)
        stack.push({ schema, input: v, output: out, path: [...path, key] });
    };
    switch (d.type) {
      case 'object':
      case 'record': {
        if (!isJsonObject(input)) continue;
        const out = isJsonObject(output) ? output : undefined;
        const preserve = d.type === 'object' && extraKeys(s) === 'preserve';
        const childOf = (k: string): z.core.$ZodType | undefined =>
          d.type === 'record' ? d.valueType : (getOwn(d.shape, k) ?? (preserve ? d.catchall : undefined));
        if (Object.hasOwn(input, '__proto__')) {
          const at = [...path, '__proto__'];
          const keyResult = d.type === 'record' && d.keyType ? z.safeParse(d.keyType, '__proto__', params) : undefined;
          if (keyResult && !keyResult.success) {
            issues.push({
              code: 'invalid_key',
              origin: 'record',
              issues: keyResult.error.issues,
              input: '__proto__',
              path: at,
              message: 'Invalid key in record',
            });
          } else {
            const childSchema = childOf('__proto__');
            if (childSchema) {
              // Recursion only through nested "__proto__" keys at places the schema describes, so bounded by the schema.
              const r = safeParseData(childSchema, getOwn(input, '__proto__'), params);
              if (!r.success) for (const i of r.error.issues) issues.push({ ...i, path: [...at, ...i.path] });
              else if (out) restoreAt(out, input, r.data);
            }
          }
        }
        for (const k of Object.keys(input)) {
          // Only containers can hold a "__proto__" key; most values are scalars, so look at the value first.
          const v = input[k];
          if (k === '__proto__' || typeof v !== 'object' || v === null) continue;
          push(childOf(k), k, out ? getOwn(out, k) : undefined);
        }
        continue;
      }
      case 'array':
        if (Array.isArray(input) && d.element && !isOpaque(d.element))
          for (let i = 0; i < input.length; i++) {
            const v = input[i];
            if (typeof v === 'object' && v !== null) push(d.element, i, Array.isArray(output) ? output[i] : undefined);
          }
        continue;
      case 'union': {
        // zod keeps the first option that accepts the value; failing that, the one of the value's JSON type.
        const options = d.options ?? [];
        const chosen =
          options.find((o) => z.safeParse(o, input, params).success) ??
          options.find((o) => openAPITypeOf(o) === (Array.isArray(input) ? 'array' : 'object'));
        if (chosen) stack.push({ ...item, schema: chosen });
        continue;
      }
      case 'intersection':
        if (d.left) stack.push({ ...item, schema: d.left });
        if (d.right) stack.push({ ...item, schema: d.right });
        continue;
      default:
    }
  }
}

/** Puts "__proto__" back into `out` where it stood among `input`'s keys (the keys after it are moved behind it). */
function restoreAt(out: Record<string, unknown>, input: Record<string, unknown>, value: unknown): void {
  setOwn(out, '__proto__', value);
  const keys = Object.keys(input);
  for (const k of keys.slice(keys.indexOf('__proto__') + 1)) {
    if (!Object.hasOwn(out, k)) continue;
    const v = out[k];
    delete out[k];
    setOwn(out, k, v);
  }
}

/** Names every plain object inherits (except "__proto__", which zod skips anyway: see restoreProtoKeys). */
const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype).filter((k) => k !== '__proto__'));

const declaresInherited = new WeakMap<z.core.$ZodType, boolean>();

/** An object schema with a field named like an inherited member. */
function declaresInheritedField(schema: z.core.$ZodType): boolean {
  const d = defOf(unwrap(schema));
  return d.type === 'object' && Object.keys(d.shape ?? {}).some((k) => INHERITED.has(k));
}

/** Whether any object schema in `schema` (lazy ones included) declares a field named like an inherited member. */
const needsNullPrototype = (schema: z.core.$ZodType): boolean => anySchema(schema, declaresInheritedField, declaresInherited);

/**
 * `value` with every object whose schema declares a field named like an inherited member replaced by a null-prototype
 * copy (and the objects above it copied), so zod finds only own fields. The input is never changed; without such
 * fields in the schema it is returned as it is, at the cost of one cached lookup.
 */
function withoutInheritedMembers(schema: z.core.$ZodType, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !needsNullPrototype(schema)) return value;
  const s = unwrap(schema);
  const d = defOf(s);
  switch (d.type) {
    case 'object':
    case 'record': {
      if (!isJsonObject(value)) return value;
      const declares = declaresInheritedField(s);
      // Object.assign onto a null-prototype object: no "__proto__" setter to run, so that key stays data.
      let out: Record<string, unknown> | undefined = declares ? Object.assign(Object.create(null), value) : undefined;
      const preserve = d.type === 'object' && extraKeys(s) === 'preserve';
      for (const k of Object.keys(value)) {
        const child = d.type === 'record' ? d.valueType : (getOwn(d.shape, k) ?? (preserve ? d.catchall : undefined));
        const v = value[k];
        const prepared = child ? withoutInheritedMembers(child, v) : v;
        if (prepared === v) continue;
        out ??= Object.assign(Object.getPrototypeOf(value) === null ? Object.create(null) : {}, value);
        setOwn(out as object, k, prepared);
      }
      return out ?? value;
    }
    case 'array': {
      if (!Array.isArray(value) || !d.element) return value;
      const element = d.element;
      let out: unknown[] | undefined;
      value.forEach((v, i) => {
        const prepared = withoutInheritedMembers(element, v);
        if (prepared === v) return;
        out ??= [...value];
        out[i] = prepared;
      });
      return out ?? value;
    }
    case 'union':
    case 'intersection': {
      let v: unknown = value;
      for (const part of d.type === 'union' ? (d.options ?? []) : [d.left, d.right]) if (part) v = withoutInheritedMembers(part, v);
      return v;
    }
    default:
      return value;
  }
}
