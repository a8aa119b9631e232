import { jsonEqual } from '@kapi/apimachinery';

type StringMap = Record<string, string>;

/** What reconciliation merges of an object's metadata. */
interface Labelled {
  metadata: { labels?: StringMap; annotations?: StringMap };
}

/**
 * The metadata step of kube's computeReconciledRole and computeReconciledRoleBinding: the expected labels and
 * annotations added to the existing ones (the existing values win), set on `target` (the copy of `existing` being
 * reconciled) where that changes them. True when it changed any.
 */
export function reconcileMetadata(target: Labelled, existing: Labelled, expected: Labelled): boolean {
  let changed = false;
  for (const field of ['annotations', 'labels'] as const) {
    const merged = mergeMaps(expected.metadata[field], existing.metadata[field]);
    if (mapsEqual(merged, existing.metadata[field])) continue;
    target.metadata[field] = merged;
    changed = true;
  }
  return changed;
}

/** kube's merge: the maps' union, later maps winning; none when every map is absent. */
function mergeMaps(...maps: (StringMap | undefined)[]): StringMap | undefined {
  let out: StringMap | undefined;
  for (const m of maps) {
    if (!m) continue;
    out = { ...out, ...m };
  }
  return out;
}

/** Label and annotation maps compare equal when their entries do (an empty map is no map, as the API stores them). */
function mapsEqual(a: StringMap | undefined, b: StringMap | undefined): boolean {
  return jsonEqual(a ?? {}, b ?? {});
}
