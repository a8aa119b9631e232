import { type FieldError, goSharpV, type JsonRendering, OMIT_VALUE, renderJson } from '@kapi/apimachinery';
import type { z } from 'zod';
import { kubeMetaOf } from './kube-extensions.ts';
import { anySchema, childSchema, formatFieldPath } from './schema-walk.ts';

/**
 * The uniqueness invariants of x-kubernetes-list-type "map" and "set" lists (listMap / listSet), as
 * apiextensions-apiserver's ValidateListSetsAndMaps (pkg/apiserver/schema/listtype) checks them on custom
 * resources: a map list's items have distinct key values, a set list's items are distinct. Each value repeated
 * is reported once, at its second appearance: `spec.ports[1]: Duplicate value: map[string]interface {}{"port":80}`.
 */

/** Go's %#v of a value decoded from JSON (one copy, in @kapi/apimachinery); re-exported for this package's users. */
export { goSharpV };

/** field.Duplicate as Kubernetes prints it: scalars as ErrorBody prints them, maps and slices with %#v. */
function duplicate(field: string, value: unknown): FieldError {
  if (typeof value === 'object' && value !== null)
    return { type: 'FieldValueDuplicate', field, badValue: OMIT_VALUE, detail: goSharpV(value) };
  return { type: 'FieldValueDuplicate', field, badValue: value };
}

const CANONICAL: JsonRendering = {
  scalar: (v) => JSON.stringify(v) ?? 'null',
  keys: (o) => Object.keys(o).sort(),
  key: (k) => `${JSON.stringify(k)}:`,
  array: ['[', ',', ']'],
  object: ['{', ',', '}'],
};

/** encoding/json's output for a value (keys sorted), which kube compares compound set items by. */
function canonicalJSON(v: unknown): string {
  return renderJson(v, CANONICAL);
}

/** A map-list item without the key field (kube's unspecifiedKeyValue{}), unequal to every value, null included. */
const UNSPECIFIED: unique symbol = Symbol('unspecified');

/** validateListSet: indexes of the second appearance of every repeated value. */
function nonUnique(values: readonly unknown[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  values.forEach((x, i) => {
    // Scalars and compounds never compare equal; neither does an unspecified key with any value.
    const id = x === UNSPECIFIED ? 'u' : typeof x === 'object' && x !== null ? `c${canonicalJSON(x)}` : `s${typeof x}:${String(x)}`;
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkArray(root: z.core.$ZodType, schema: z.core.$ZodType, path: PropertyKey[], list: unknown[], out: FieldError[]): void {
  const meta = kubeMetaOf(schema);
  const at = (i: number) => formatFieldPath(root, [...path, i]);
  if (meta?.listType === 'set') {
    for (const i of nonUnique(list)) out.push(duplicate(at(i), list[i]));
  } else if (meta?.listType === 'map' && meta.listMapKeys?.length && list.every((x) => x === null || isObject(x))) {
    const keyFields = meta.listMapKeys;
    if (keyFields.length === 1) {
      const field = keyFields[0] as string;
      const keys = list.map((x) => (isObject(x) && Object.hasOwn(x, field) ? x[field] : UNSPECIFIED));
      for (const i of nonUnique(keys)) out.push(duplicate(at(i), keys[i] === UNSPECIFIED ? {} : { [field]: keys[i] }));
    } else {
      const keys = list.map((x) => {
        const key: Record<string, unknown> = {};
        if (isObject(x)) for (const f of keyFields) if (Object.hasOwn(x, f)) key[f] = x[f];
        return key;
      });
      for (const i of nonUnique(keys)) out.push(duplicate(at(i), keys[i]));
    }
  }
  list.forEach((item, i) => {
    walk(root, childSchema(schema, i).schema, [...path, i], item, out);
  });
}

function walk(root: z.core.$ZodType, schema: z.core.$ZodType | undefined, path: PropertyKey[], value: unknown, out: FieldError[]): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    checkArray(root, schema, path, value, out);
    return;
  }
  if (isObject(value))
    for (const [k, v] of Object.entries(value))
      if (typeof v === 'object' && v !== null) walk(root, childSchema(schema, k).schema, [...path, k], v, out);
}

/** Whether any list `schema` describes, at any depth, is a map or set list; remembered per schema. */
const declaresMapsOrSets = new WeakMap<z.core.$ZodType, boolean>();

function isMapOrSetList(schema: z.core.$ZodType): boolean {
  const type = kubeMetaOf(schema)?.listType;
  return type === 'map' || type === 'set';
}

const hasMapOrSetLists = (schema: z.core.$ZodType): boolean => anySchema(schema, isMapOrSetList, declaresMapsOrSets);

/** The duplicate items of every map and set list in `body` (an object without apiVersion, kind and metadata). */
export function validateListSetsAndMaps(schema: z.core.$ZodType, body: unknown): FieldError[] {
  const out: FieldError[] = [];
  // Most kinds (a ConfigMap, a Secret) have no such list: nothing to walk.
  if (!hasMapOrSetLists(schema)) return out;
  walk(schema, schema, [], body, out);
  return out;
}
