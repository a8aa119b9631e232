/**
 * What a strategic merge patch needs to know about a field: the Go struct tags patchStrategy / patchMergeKey
 * of built-in kinds, x-kubernetes-patch-strategy / -patch-merge-key in OpenAPI. A node describes one field's
 * value and leads to its fields (objects), values (maps) and items (lists). Where nothing is known the node
 * is empty: maps then merge as in a JSON merge patch and lists are replaced.
 */
export interface PatchMeta {
  /** The field's patch strategies: "merge", "replace", "retainKeys" (a tag may list several). */
  readonly strategies: readonly string[];
  /** For a list of objects merged item by item: the field identifying an item. */
  readonly mergeKey?: string;
  /** The node of a field of this object, or of a value of this map. */
  field(key: string): PatchMeta;
  /** The node of this list's items. */
  items(): PatchMeta;
}

/** Knows nothing: merge-patch semantics for maps, replace for lists. */
export const EMPTY_PATCH_META: PatchMeta = Object.freeze({
  strategies: Object.freeze([]) as readonly string[],
  field: (): PatchMeta => EMPTY_PATCH_META,
  items: (): PatchMeta => EMPTY_PATCH_META,
});

/** A list whose items merge into the original's (by merge key for objects, as a set for primitives). */
export const mergesList = (meta: PatchMeta): boolean => meta.strategies.includes('merge');

/** A map the patch replaces as a whole (patchStrategy "replace"). */
export const replacesMap = (meta: PatchMeta): boolean => meta.strategies.includes('replace');

/** Splits a tag such as "merge,retainKeys". */
export function parseStrategies(tag: string | undefined): readonly string[] {
  return tag
    ? tag
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
    : [];
}

/** A patch-meta tree written out by hand, e.g. for kinds without a zod schema, or in tests. */
export interface PatchMetaSpec {
  /** "merge", "replace", "retainKeys", or several joined by commas. */
  strategy?: string;
  mergeKey?: string;
  /** Fields of an object. */
  fields?: Readonly<Record<string, PatchMetaSpec>>;
  /** Values of a map (a field not in `fields`). */
  values?: PatchMetaSpec;
  /** Items of a list. */
  items?: PatchMetaSpec;
}

/** The PatchMeta a spec describes. */
export function patchMetaFromSpec(spec: PatchMetaSpec): PatchMeta {
  const strategies = parseStrategies(spec.strategy);
  return {
    strategies,
    ...(spec.mergeKey ? { mergeKey: spec.mergeKey } : {}),
    field(key) {
      const child = (spec.fields && Object.hasOwn(spec.fields, key) ? spec.fields[key] : undefined) ?? spec.values;
      return child ? patchMetaFromSpec(child) : EMPTY_PATCH_META;
    },
    items: () => (spec.items ? patchMetaFromSpec(spec.items) : EMPTY_PATCH_META),
  };
}
