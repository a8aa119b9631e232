import { type KubeObject, stringifyJson } from '@kapi/apimachinery';
import { approximateJsonSize } from './json-size.ts';

/**
 * metadata.managedFields entries of objects a storage committed: private, deep-frozen JSON it made itself. A write
 * usually carries most entries of the revision it starts from unchanged (the field manager re-encodes only the
 * entries whose set or time changed), and entries are most of a small object's nodes; a later revision shares such an
 * entry as it is instead of encoding, parsing and freezing it again. Only identity counts: an equal entry the caller
 * built is copied like the rest of the object.
 */
// A module-private symbol, set (non-enumerable) before the copy is frozen: JSON, spreads and walks over own keys never
// see or copy it, and no caller can forge it. Cheaper than a WeakSet of every stored entry. Its value is the entry's
// JSON size, so a revision sharing it knows its own size without encoding it.
const STORED = Symbol('kapi.storedManagedFieldsEntry');

const storedSize = (e: unknown): number | undefined => {
  if (typeof e !== 'object' || e === null || !Object.isFrozen(e)) return undefined;
  const size = (e as Record<symbol, unknown>)[STORED];
  return typeof size === 'number' ? size : undefined;
};
const isStored = (e: unknown): e is object => storedSize(e) !== undefined;

/**
 * A private JSON copy of `obj` (JSON.stringify's rules) in which the stored entries it carries are shared, not copied;
 * `size.bytes` is set to about how many bytes the copy takes as JSON (UTF-16 units of its encoding).
 */
export function copyForStorage(obj: KubeObject, size?: { bytes: number }): unknown {
  const meta = obj.metadata as KubeObject['metadata'] | undefined;
  const entries: unknown = meta?.managedFields;
  if (!Array.isArray(entries) || !entries.some(isStored)) {
    const json = stringifyJson(obj);
    if (size) size.bytes = json.length;
    return JSON.parse(json);
  }
  // The stored entries stand in as nulls while the rest is encoded, then come back in their places.
  const json = stringifyJson({ ...obj, metadata: { ...meta, managedFields: entries.map((e) => (isStored(e) ? null : e)) } });
  const copy = JSON.parse(json);
  let bytes = json.length;
  const list = copy.metadata.managedFields as unknown[];
  for (let i = 0; i < entries.length; i++) {
    const shared = storedSize(entries[i]);
    if (shared === undefined) continue;
    list[i] = entries[i];
    bytes += shared - 4; // in place of the "null"
  }
  if (size) size.bytes = bytes;
  return copy;
}

/** Marks the entries of `copy` (a private copy about to be committed and deep-frozen) as shareable by the revisions after it. */
export function markStoredEntries(copy: KubeObject): void {
  const entries: unknown = copy.metadata?.managedFields;
  if (!Array.isArray(entries)) return;
  for (const e of entries)
    if (typeof e === 'object' && e !== null && !Array.isArray(e) && !Object.isFrozen(e))
      Object.defineProperty(e, STORED, { value: approximateJsonSize(e) });
}
