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
  // An explicit stack: below a schema-less level the walk follows the data, which may nest as deep as the decoder allows.
  const work: Frame[] = [{ x: obj, s: schema, path: '', preserve: false }];
  for (let f = work.pop(); f !== undefined; f = work.pop()) {
    if (f.preserve || f.s?.xPreserveUnknownFields) skipPruneStep(f, work);
    else pruneStep(f, work, pruned);
  }
  return pruned.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A value still to prune: with `preserve`, kube's skipPrune (unknown fields stay) instead of prune. */
interface Frame {
  x: unknown;
  s: Structural | undefined;
  path: string;
  preserve: boolean;
}

const childPath = (parent: string, k: string): string => (parent === '' ? k : `${parent}.${k}`);

function pruneStep({ x, s, path }: Frame, work: Frame[], pruned: string[]): void {
  if (Array.isArray(x)) {
    for (const [i, v] of x.entries()) work.push({ x: v, s: s?.items, path: `${path}[${i}]`, preserve: false });
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
  pushKnownFields(x, s, path, work, (k) => {
    // At the top, an unknown apiVersion/kind/metadata is not reported (kube's `!metaFields[k] || len(ParentPath) > 0`).
    if (!META_FIELDS.has(k) || path !== '') pruned.push(childPath(path, k));
    delete x[k];
  });
}

/** Under x-kubernetes-preserve-unknown-fields: unknown fields stay, known ones are pruned by their own schema. */
function skipPruneStep({ x, s, path }: Frame, work: Frame[]): void {
  if (s === undefined) return;
  if (Array.isArray(x)) {
    for (const [i, v] of x.entries()) work.push({ x: v, s: s.items, path: `${path}[${i}]`, preserve: true });
    return;
  }
  if (isJsonObject(x)) pushKnownFields(x, s, path, work);
}

/**
 * Queues each field `s` specifies (a property, or any key under additionalProperties) to be pruned by its own schema,
 * leaving an embedded resource's apiVersion, kind and metadata as they are; hands every other field to `unknown`.
 */
function pushKnownFields(x: JsonObject, s: Structural, path: string, work: Frame[], unknown?: (k: string) => void): void {
  for (const k of Object.keys(x)) {
    if (s.xEmbeddedResource && META_FIELDS.has(k)) continue;
    const prop = s.properties?.get(k);
    if (prop !== undefined) work.push({ x: x[k], s: prop, path: childPath(path, k), preserve: false });
    else if (s.additionalProperties !== undefined)
      work.push({ x: x[k], s: s.additionalProperties.structural, path: childPath(path, k), preserve: false });
    else unknown?.(k);
  }
}

/**
 * The strict-decoding / warning text kube gives each pruned path: schemaCoercingDecoder's `unknown field "%s"`,
 * the path not escaped — unlike built-in kinds' strconv.Quote (registry's unknownFieldMessage).
 */
export function unknownFieldMessage(path: string): string {
  return `unknown field "${path}"`;
}
