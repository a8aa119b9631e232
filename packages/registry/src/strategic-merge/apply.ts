import { copyJson, newBadRequest } from '@kapi/apimachinery';
import { isObject, type JsonObject, kindOf } from './json.ts';
import { mergeMap } from './merge.ts';
import type { PatchMeta } from './patch-meta.ts';

/**
 * Applies a strategic merge patch (application/strategic-merge-patch+json) as kube-apiserver does for built-in
 * kinds: maps merge key by key and `null` deletes; a list whose field says "merge" merges by merge key (objects)
 * or as a set (primitives), any other list is replaced; `$patch`, `$retainKeys`, `$setElementOrder/…` and
 * `$deleteFromPrimitiveList/…` directives apply. `meta` says which fields merge how (`patchMetaFor(def, version)`,
 * or EMPTY_PATCH_META for merge-patch semantics). Neither input is mutated; the result shares nothing with them.
 * A malformed patch or directive is a 400 (lists of lists 422), with kube's messages.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, meta: PatchMeta): JsonObject {
  if (!isObject(patch)) throw newBadRequest(`error decoding patch: a strategic merge patch must be a JSON object, got ${kindOf(patch)}`);
  const ownPatch: JsonObject = copyJson(patch);
  // A missing original (or one that is not an object) is patched as an empty object, as kube decodes "null" as {}.
  const ownOriginal: JsonObject = isObject(original) ? copyJson(original) : {};
  return mergeMap(ownOriginal, ownPatch, meta);
}
