import { isJsonObject, type JsonObject } from '@kapi/apimachinery';
import type { Structural } from './structural.ts';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

export interface PruneOptions {
  /** The value is a whole resource: its apiVersion, kind and metadata are kept as they are (ObjectMeta coercion decides on metadata). */
  isResourceRoot?: boolean;
}

/**
 * PruneWithOptions (pruning/algorithm.go): removes, in place, the object fields `s` does not specify, and returns
 * their paths sorted (`spec.foo`, `spec.list[0].bar`), the words kube puts in `unknown field "…"` warnings
 * (fieldValidation=Warn) and strict decoding errors (Strict).
 *
 * A field is kept when it is a property, or any key under additionalProperties; x-kubernetes-preserve-unknown-fields
 * keeps unknown fields at its level and below until properties or additionalProperties there say otherwise;
 * x-kubernetes-embedded-resource (and the resource root) keeps apiVersion, kind and metadata untouched. Without a
 * schema (additionalProperties: true, or an item of an array without items) every object field below is dropped.
 */
export function prune(obj: unknown, s: Structural | undefined, opts: PruneOptions = {}): string[] {
  let schema = s;
  if (opts.isResourceRoot && !schema?.xEmbeddedResource) schema = { ...schema, xEmbeddedResource: true };
  const pruned: string[] = [];
  pruneValue(obj, schema, '', pruned);
  return pruned.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const childPath = (parent: string, k: string): string => (parent === '' ? k : `${parent}.${k}`);

function pruneValue(x: unknown, s: Structural | undefined, path: string, pruned: string[]): void {
  if (s?.xPreserveUnknownFields) {
    skipPrune(x, s, path, pruned);
    return;
  }
  if (Array.isArray(x)) {
    x.forEach((v, i) => {
      pruneValue(v, s?.items, `${path}[${i}]`, pruned);
    });
    return;
  }
  if (!isJsonObject(x)) return;
  if (s === undefined) {
    for (const k of Object.keys(x)) {
      pruned.push(childPath(path, k));
      delete x[k];
    }
    return;
  }
  for (const k of Object.keys(x)) {
    if (s.xEmbeddedResource && META_FIELDS.has(k)) continue;
    const prop = s.properties?.get(k);
    if (prop !== undefined) pruneValue(x[k], prop, childPath(path, k), pruned);
    else if (s.additionalProperties !== undefined) pruneValue(x[k], s.additionalProperties.structural, childPath(path, k), pruned);
    else {
      // At the top, an unknown apiVersion/kind/metadata is not reported (kube's `!metaFields[k] || len(ParentPath) > 0`).
      if (!META_FIELDS.has(k) || path !== '') pruned.push(childPath(path, k));
      delete (x as JsonObject)[k];
    }
  }
}

/** Under x-kubernetes-preserve-unknown-fields: unknown fields stay, known ones are pruned by their own schema. */
function skipPrune(x: unknown, s: Structural, path: string, pruned: string[]): void {
  if (Array.isArray(x)) {
    if (s.items !== undefined) {
      const items = s.items;
      x.forEach((v, i) => {
        skipPrune(v, items, `${path}[${i}]`, pruned);
      });
    }
    return;
  }
  if (!isJsonObject(x)) return;
  for (const k of Object.keys(x)) {
    if (s.xEmbeddedResource && META_FIELDS.has(k)) continue;
    const prop = s.properties?.get(k);
    if (prop !== undefined) pruneValue(x[k], prop, childPath(path, k), pruned);
    else if (s.additionalProperties !== undefined) pruneValue(x[k], s.additionalProperties.structural, childPath(path, k), pruned);
  }
}

/** The strict-decoding / warning text kube gives each pruned path. */
export function unknownFieldMessage(path: string): string {
  return `unknown field "${path}"`;
}
