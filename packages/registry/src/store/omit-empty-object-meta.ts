/**
 * metadata as kube keeps it once Go has decoded it into ObjectMeta and encoded it again: every ObjectMeta field is
 * `omitempty` (strings, an integer, maps, slices, pointers), and JSON null leaves a field at its zero value, so a member
 * that is null or empty is not there afterwards — a client that sends `annotations: {}`, `labels: null` or
 * `generateName: ""` reads back an object without them (a custom resource's metadata goes through ObjectMeta too).
 */

/** The string fields: "" is their zero value. */
const STRINGS = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion'];
/** The maps and slices: empty is their zero value, encoded as nothing. managedFields is not one of them (below). */
const COLLECTIONS = ['labels', 'annotations', 'ownerReferences', 'finalizers'];

/**
 * Removes from `meta` (a private copy) the members Go's round trip leaves out: null ones (deletionGracePeriodSeconds'
 * 0 is a value: it is a pointer), "" strings, a zero generation, empty label and annotation maps, empty owner reference
 * and finalizer lists. An empty managedFields list stays: kube tells it from none (it asks the field manager to reset
 * tracking), and the field manager replaces it.
 */
export function omitEmptyObjectMeta(meta: Record<string, unknown>): void {
  for (const k of Object.keys(meta)) {
    const v = meta[k];
    if (v === null) delete meta[k];
  }
  for (const k of STRINGS) if (meta[k] === '') delete meta[k];
  if (meta.generation === 0) delete meta.generation;
  for (const k of COLLECTIONS) {
    const v = meta[k];
    if (typeof v === 'object' && v !== null && (Array.isArray(v) ? v.length === 0 : isEmpty(v))) delete meta[k];
  }
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}
