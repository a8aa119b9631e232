import { isEmptyMapOrList } from '../omit-empty-fields.ts';

/**
 * metadata as kube keeps it once Go has decoded it into ObjectMeta and encoded it again: every ObjectMeta field is
 * `omitempty` (strings, an integer, maps, slices, pointers), and JSON null leaves a field at its zero value, so a member
 * that is null or empty is not there afterwards — a client that sends `annotations: {}`, `labels: null` or
 * `generateName: ""` reads back an object without them (a custom resource's metadata goes through ObjectMeta too).
 */

/** The string fields: "" is their zero value. */
const STRINGS = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion'];
/** The maps of strings. */
const STRING_MAPS = ['labels', 'annotations'];
/** The maps and slices: empty is their zero value, encoded as nothing. managedFields is not one of them (below). */
const COLLECTIONS = ['labels', 'annotations', 'ownerReferences', 'finalizers'];

/**
 * Makes `meta` (a private copy) what Go's round trip makes of it: null members are left out
 * (deletionGracePeriodSeconds' 0 is a value: it is a pointer), and so are "" strings, a zero generation, empty label
 * and annotation maps and empty owner reference and finalizer lists; a label or annotation whose value is null has the
 * value "" (a map value's zero value). An empty managedFields list stays: kube tells it from none (it asks the field
 * manager to reset tracking), and the field manager replaces it.
 */
export function goObjectMeta(meta: Record<string, unknown>): void {
  for (const k in meta) if (meta[k] === null) delete meta[k];
  for (const k of STRING_MAPS) {
    const map = meta[k];
    if (typeof map !== 'object' || map === null || Array.isArray(map)) continue;
    const m = map as Record<string, unknown>;
    for (const key in m) if (m[key] === null) m[key] = '';
  }
  for (const k of STRINGS) if (meta[k] === '') delete meta[k];
  if (meta.generation === 0) delete meta.generation;
  for (const k of COLLECTIONS) if (isEmptyMapOrList(meta[k])) delete meta[k];
}
