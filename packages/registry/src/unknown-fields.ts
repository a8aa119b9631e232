import { getOwn, goQuote } from '@kapi/apimachinery';
import type { z } from 'zod';
import { OBJECT_META_FIELDS, OBJECT_META_ITEM_FIELDS } from './metav1.ts';
import type { ResourceDefinition } from './resource-definition.ts';
import { defOf, extraKeys, openAPITypeOf, unwrap } from './schema-walk.ts';

/**
 * Fields an object carries that its schema does not declare: what fieldValidation=Strict rejects and Warn
 * reports, and what pruning drops. Loose objects, records of unknown and z.unknown() accept anything below them.
 */

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'number' ? 'number' : typeof v;
}

function join(path: string, key: string | number, inMap: boolean): string {
  if (typeof key === 'number' || inMap) return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

function walk(schema: z.core.$ZodType, value: unknown, path: string, out: string[]): void {
  const s = unwrap(schema);
  const d = defOf(s);
  switch (d.type) {
    case 'object': {
      if (!isRecord(value)) return;
      const shape = d.shape ?? {};
      const keep = extraKeys(s) === 'preserve';
      for (const k of Object.keys(value)) {
        const child = getOwn(shape, k) ?? (keep ? d.catchall : undefined);
        const v = value[k];
        // A scalar holds no fields: no walk, and no path built for it (most of an object's values are scalars).
        if (!child) out.push(join(path, k, false));
        else if (typeof v === 'object' && v !== null) walk(child, v, join(path, k, false), out);
      }
      return;
    }
    case 'record':
      if (isRecord(value) && d.valueType)
        for (const k of Object.keys(value)) {
          const v = value[k];
          if (typeof v === 'object' && v !== null) walk(d.valueType, v, join(path, k, true), out);
        }
      return;
    case 'array':
      if (Array.isArray(value) && d.element)
        for (let i = 0; i < value.length; i++) {
          const v = value[i];
          if (typeof v === 'object' && v !== null) walk(d.element, v, join(path, i, false), out);
        }
      return;
    case 'union': {
      // The branch of the value's JSON type that finds the fewest unknown fields is the one the value meant.
      const t = jsonType(value);
      let best: string[] | undefined;
      for (const option of d.options ?? []) {
        const ot = openAPITypeOf(option);
        if (ot !== undefined && ot !== t && !(ot === 'integer' && t === 'number')) continue;
        const found: string[] = [];
        walk(option, value, path, found);
        if (!best || found.length < best.length) best = found;
      }
      out.push(...(best ?? []));
      return;
    }
    case 'intersection': {
      // A field is unknown only when neither side declares it.
      const left: string[] = [];
      const right: string[] = [];
      if (d.left) walk(d.left, value, path, left);
      if (d.right) walk(d.right, value, path, right);
      out.push(...left.filter((p) => right.includes(p)));
      return;
    }
    default:
      return;
  }
}

/** Field paths (`spec.foo`, `spec.items[0].bar`, `metadata.foo`) that `obj` has and version `version` of its kind does not declare. */
export function findUnknownFields(def: ResourceDefinition, version: string, obj: unknown): string[] {
  const v = def.version(version);
  if (!v) throw new Error(`${def.kind}.${def.group} has no version ${JSON.stringify(version)}`);
  if (!isRecord(obj)) return [];
  const out: string[] = [];
  const { apiVersion: _a, kind: _k, metadata, ...body } = obj;
  if (isRecord(metadata)) out.push(...findUnknownMetadataFields(metadata));
  out.push(...v.schema.unknownFields(body));
  return out;
}

/** The paths (`metadata.foo`, `metadata.ownerReferences[0].bar`) of the fields of `metadata` ObjectMeta does not declare. */
export function findUnknownMetadataFields(metadata: Record<string, unknown>): string[] {
  const out: string[] = [];
  unknownMetadataFields(metadata, (path) => out.push(path));
  return out;
}

/**
 * Tells `found` the path of each field of `metadata` that ObjectMeta does not declare, in its lists' items too
 * (`metadata.managedFields[0].foo`: kube's strict decoding of ObjectMeta names those as well), with a function that
 * removes it from a copy.
 */
function unknownMetadataFields(
  metadata: Record<string, unknown>,
  found: (path: string, list?: string, index?: number, key?: string) => void,
): void {
  for (const k in metadata) {
    if (!Object.hasOwn(metadata, k)) continue;
    if (!OBJECT_META_FIELDS.has(k)) {
      found(`metadata.${k}`);
      continue;
    }
    const declared = OBJECT_META_ITEM_FIELDS.get(k);
    const items = metadata[k];
    if (!declared || !Array.isArray(items)) continue;
    for (let i = 0; i < items.length; i++) {
      const item: unknown = items[i];
      if (!isRecord(item)) continue;
      for (const f in item) if (Object.hasOwn(item, f) && !declared.has(f)) found(`metadata.${k}[${i}].${f}`, k, i, f);
    }
  }
}

/**
 * Drops from `metadata` the fields ObjectMeta does not declare, in its lists' items too, as kube's decoding into
 * ObjectMeta drops them. A list with such an item is replaced by a copy (its items may be shared: a caller's, or the
 * stored object's managedFields entries); `metadata` itself must be the caller's own.
 */
export function pruneUnknownMetadata(metadata: Record<string, unknown>): void {
  const copied = new Set<string>();
  unknownMetadataFields(metadata, (path, list, index, key) => {
    if (list === undefined || index === undefined || key === undefined) {
      delete metadata[path.slice('metadata.'.length)];
      return;
    }
    if (!copied.has(list)) {
      metadata[list] = [...(metadata[list] as unknown[])];
      copied.add(list);
    }
    const items = metadata[list] as Record<string, unknown>[];
    const { [key]: _dropped, ...kept } = items[index] as Record<string, unknown>;
    items[index] = kept;
  });
}

/** Paths that `body` has and the zod schema does not declare (zodVersionSchema's unknownFields). */
export function findUnknownZodFields(schema: z.core.$ZodType, body: unknown): string[] {
  const out: string[] = [];
  walk(schema, body, '', out);
  return out;
}

/**
 * How kube-apiserver words an unknown field of a built-in kind in a warning or a strict decoding error:
 * `unknown field "spec.foo"`, the path quoted by strconv.Quote as sigs.k8s.io/json's strictError does. Custom
 * resources' pruned fields are worded without escaping (apiextensions' unknownFieldMessage), as kube does.
 */
export function unknownFieldMessage(path: string): string {
  return `unknown field ${goQuote(path)}`;
}
