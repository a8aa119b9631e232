import { z } from 'zod';
import { defOf, unwrap } from './schema-walk.ts';

/**
 * Per-field Kubernetes schema facts that zod has no words for: list and map topology (x-kubernetes-list-type,
 * -list-map-keys, -map-type), strategic-merge-patch hints (x-kubernetes-patch-strategy, -patch-merge-key),
 * int-or-string and preserve-unknown-fields. They live in a zod registry of this package's own, so users'
 * `.meta()` stays theirs; the OpenAPI generator and (later) the strategic merge patch read them back.
 */
export interface KubeFieldMeta {
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: readonly string[];
  mapType?: 'atomic' | 'granular';
  /** e.g. "merge", "replace", "retainKeys", "merge,retainKeys". */
  patchStrategy?: string;
  patchMergeKey?: string;
  preserveUnknownFields?: boolean;
  intOrString?: boolean;
  /** A map or list Go writes with `omitempty`: left out when empty (not an OpenAPI fact: kube's decoding). */
  omitEmpty?: boolean;
}

const kubeMetaRegistry = z.registry<KubeFieldMeta>();

/** A copy of `schema` carrying `meta` on top of what it carried; the original stays untouched (it may be shared). */
export function withKubeMeta<S extends z.ZodType>(schema: S, meta: KubeFieldMeta): S {
  const copy = schema.clone() as S;
  kubeMetaRegistry.add(copy, { ...kubeMetaRegistry.get(schema), ...meta });
  return copy;
}

/** The Kubernetes facts recorded on a schema or on what it wraps (`.optional()` of a listMap keeps its facts). */
export function kubeMetaOf(schema: z.core.$ZodType): KubeFieldMeta | undefined {
  return kubeMetaRegistry.get(schema) ?? kubeMetaRegistry.get(unwrap(schema));
}

/**
 * A list of objects identified by `keys` (x-kubernetes-list-type: map), merged by its first key in patches
 * (x-kubernetes-patch-strategy: merge, -patch-merge-key), as Kubernetes' own keyed lists (containers, ports) are.
 */
export function listMap<S extends z.ZodArray<z.ZodObject>>(schema: S, keys: readonly [string, ...string[]]): S {
  const shape = defOf(unwrap(defOf(schema).element ?? schema)).shape ?? {};
  for (const k of keys) if (!Object.hasOwn(shape, k)) throw new Error(`listMap: key "${k}" is not a field of the list's items`);
  return withKubeMeta(schema, { listType: 'map', listMapKeys: [...keys], patchStrategy: 'merge', patchMergeKey: keys[0] });
}

/** A list of unique scalars (x-kubernetes-list-type: set), merged as a set in patches. */
export function listSet<S extends z.ZodArray>(schema: S): S {
  return withKubeMeta(schema, { listType: 'set', patchStrategy: 'merge' });
}

/** A list replaced as a whole by patches and apply (x-kubernetes-list-type: atomic). */
export function atomicList<S extends z.ZodArray>(schema: S): S {
  return withKubeMeta(schema, { listType: 'atomic' });
}

/** An object or map replaced as a whole by patches and apply (x-kubernetes-map-type: atomic). */
export function atomicMap<S extends z.ZodObject | z.ZodRecord>(schema: S): S {
  return withKubeMeta<z.ZodType>(schema, { mapType: 'atomic' }) as S;
}

/**
 * A map or list field Go declares `omitempty`: an empty one is left out of the decoded object, as kube-apiserver's
 * round trip through its Go type leaves it out (`data: {}` on a ConfigMap is not stored, nor owned in managedFields).
 */
export function omitEmpty<S extends z.ZodRecord | z.ZodArray>(schema: S): S {
  return withKubeMeta<z.ZodType>(schema, { omitEmpty: true }) as S;
}

/** Keeps fields the schema does not declare instead of pruning them (x-kubernetes-preserve-unknown-fields). */
export function preserveUnknownFields<S extends z.ZodObject>(schema: S): S {
  return withKubeMeta(schema.loose() as unknown as S, { preserveUnknownFields: true });
}

/** intstr.IntOrString: an integer or a string (x-kubernetes-int-or-string), e.g. a port name or number. */
export function intOrString(): z.ZodUnion<[z.ZodInt, z.ZodString]> {
  return withKubeMeta(z.union([z.int(), z.string()]), { intOrString: true });
}
