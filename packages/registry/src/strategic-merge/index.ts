export { applyStrategicMergePatch } from './apply.ts';
export { EMPTY_PATCH_META, type PatchMeta, type PatchMetaSpec, patchMetaFromSpec } from './patch-meta.ts';
export { patchMetaFor, patchMetaForOpenAPI, patchMetaForSchema } from './schema-patch-meta.ts';
