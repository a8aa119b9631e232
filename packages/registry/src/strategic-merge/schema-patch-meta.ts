import type { z } from 'zod';
import { kubeMetaOf } from '../kube-extensions.ts';
import { OBJECT_META_OPENAPI } from '../metav1.ts';
import type { JSONSchema } from '../openapi.ts';
import type { ResourceDefinition, ResourceVersion } from '../resource-definition.ts';
import { childSchema } from '../schema-walk.ts';
import { EMPTY_PATCH_META, type PatchMeta, parseStrategies } from './patch-meta.ts';

/**
 * PatchMeta read off schemas: the patch strategy and merge key listMap / listSet (or withKubeMeta) recorded on
 * a zod schema, and x-kubernetes-patch-strategy / -patch-merge-key in OpenAPI. Only those two facts count, as
 * in kube's OpenAPI-driven lookup: list-type and map-type alone do not change how a strategic patch merges.
 * Nodes are built on demand, so recursive (lazy) schemas are fine.
 */

class ZodNode implements PatchMeta {
  readonly strategies: readonly string[];
  readonly mergeKey?: string;
  readonly #schema: z.core.$ZodType;
  readonly #children = new Map<string, PatchMeta>();

  constructor(schema: z.core.$ZodType) {
    this.#schema = schema;
    const meta = kubeMetaOf(schema);
    this.strategies = parseStrategies(meta?.patchStrategy);
    if (meta?.patchMergeKey) this.mergeKey = meta.patchMergeKey;
  }

  field(key: string): PatchMeta {
    return this.#child(key, key);
  }

  items(): PatchMeta {
    return this.#child('[]', 0);
  }

  #child(cacheKey: string, key: PropertyKey): PatchMeta {
    let node = this.#children.get(cacheKey);
    if (!node) {
      const s = childSchema(this.#schema, key).schema;
      node = s ? new ZodNode(s) : EMPTY_PATCH_META;
      this.#children.set(cacheKey, node);
    }
    return node;
  }
}

/** The PatchMeta of values a zod schema describes. */
export function patchMetaForSchema(schema: z.core.$ZodType): PatchMeta {
  return new ZodNode(schema);
}

/** The PatchMeta of values an OpenAPI v3 (structural) schema describes. */
export function patchMetaForOpenAPI(schema: JSONSchema): PatchMeta {
  const strategy = schema['x-kubernetes-patch-strategy'];
  const mergeKey = schema['x-kubernetes-patch-merge-key'];
  const extra = schema.additionalProperties;
  return {
    strategies: parseStrategies(typeof strategy === 'string' ? strategy : undefined),
    ...(typeof mergeKey === 'string' && mergeKey ? { mergeKey } : {}),
    field(key) {
      const s = (schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined) ?? extra;
      return typeof s === 'object' ? patchMetaForOpenAPI(s) : EMPTY_PATCH_META;
    },
    items: () => (schema.items ? patchMetaForOpenAPI(schema.items) : EMPTY_PATCH_META),
  };
}

const OBJECT_META = patchMetaForOpenAPI(OBJECT_META_OPENAPI);
const cache = new WeakMap<ResourceVersion, PatchMeta>();

/**
 * The PatchMeta of whole objects of one version of a kind: ObjectMeta as Kubernetes tags it (finalizers merge
 * as a set, ownerReferences by uid) and the version's zod schema for everything else.
 */
export function patchMetaFor(def: ResourceDefinition, version: string): PatchMeta {
  const v = def.version(version);
  if (!v) throw new Error(`${def.kind}.${def.group} has no version ${JSON.stringify(version)}`);
  let root = cache.get(v);
  if (!root) {
    const body = v.schema.patchMeta();
    root = {
      strategies: [],
      field: (key) => (key === 'metadata' ? OBJECT_META : body.field(key)),
      items: () => EMPTY_PATCH_META,
    };
    cache.set(v, root);
  }
  return root;
}
