import { type KubeObject, stringifyJson } from '@kapi/apimachinery';

/**
 * metadata.managedFields entries of objects a storage committed: private, deep-frozen JSON it made itself. A write
 * usually carries most entries of the revision it starts from unchanged (the field manager re-encodes only the
 * entries whose set or time changed), and entries are most of a small object's nodes; a later revision shares such an
 * entry as it is instead of encoding, parsing and freezing it again. Only identity counts: an equal entry the caller
 * built is copied like the rest of the object.
 */
// A module-private symbol, set (non-enumerable) before the copy is frozen: JSON, spreads and walks over own keys never
// see or copy it, and no caller can forge it. Cheaper than a WeakSet of every stored entry.
const STORED = Symbol('kapi.storedManagedFieldsEntry');

const isStored = (e: unknown): e is object =>
  typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[STORED] === true && Object.isFrozen(e);

/** A private JSON copy of `obj` (JSON.stringify's rules) in which the stored entries it carries are shared, not copied. */
export function copyForStorage(obj: KubeObject): unknown {
  const meta = obj.metadata as KubeObject['metadata'] | undefined;
  const entries: unknown = meta?.managedFields;
  if (!Array.isArray(entries) || !entries.some(isStored)) return JSON.parse(stringifyJson(obj));
  // The stored entries stand in as nulls while the rest is encoded, then come back in their places.
  const copy = JSON.parse(stringifyJson({ ...obj, metadata: { ...meta, managedFields: entries.map((e) => (isStored(e) ? null : e)) } }));
  const list = copy.metadata.managedFields as unknown[];
  for (let i = 0; i < entries.length; i++) if (isStored(entries[i])) list[i] = entries[i];
  return copy;
}

/** Marks the entries of `copy` (a private copy about to be committed and deep-frozen) as shareable by the revisions after it. */
export function markStoredEntries(copy: KubeObject): void {
  const entries: unknown = copy.metadata?.managedFields;
  if (!Array.isArray(entries)) return;
  for (const e of entries)
    if (typeof e === 'object' && e !== null && !Array.isArray(e) && !Object.isFrozen(e)) Object.defineProperty(e, STORED, { value: true });
}
