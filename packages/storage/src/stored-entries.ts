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
 * A private JSON copy of `obj` (JSON.stringify's rules) in which the stored entries it carries are shared, not copied,
 * with metadata.resourceVersion set to `resourceVersion` when given (in place, or last in metadata, as a spread would
 * put it); `out.bytes` is set to about how many bytes the copy takes as JSON (UTF-16 units of its encoding), and
 * `out.text` to the copy's exact JSON when the copy was parsed from it whole (no shared entries), else undefined.
 */
export function copyForStorage(obj: KubeObject, out?: { bytes: number; text?: string | undefined }, resourceVersion?: string): unknown {
  const meta = obj.metadata as KubeObject['metadata'] | undefined;
  const entries: unknown = meta?.managedFields;
  // The new resourceVersion goes into the text, so the copy needs no metadata spread after the parse.
  const plain = resourceVersion !== undefined && isPlainObject(obj);
  if (!Array.isArray(entries) || !entries.some(isStored)) {
    const json = stringifyJson(plain ? { ...obj, metadata: { ...meta, resourceVersion } } : obj);
    const copy = JSON.parse(json);
    if (!plain) setResourceVersion(copy, resourceVersion);
    if (out) {
      out.bytes = json.length;
      out.text = plain ? json : undefined;
    }
    return copy;
  }
  // The stored entries stand in as nulls while the rest is encoded, then come back in their places.
  const nulls = entries.map((e) => (isStored(e) ? null : e));
  const json = stringifyJson({ ...obj, metadata: { ...meta, managedFields: nulls, ...(plain ? { resourceVersion } : {}) } });
  const copy = JSON.parse(json);
  if (!plain) setResourceVersion(copy, resourceVersion);
  let bytes = json.length;
  const list = copy.metadata.managedFields as unknown[];
  for (let i = 0; i < entries.length; i++) {
    const shared = storedSize(entries[i]);
    if (shared === undefined) continue;
    list[i] = entries[i];
    bytes += shared - 4; // in place of the "null"
  }
  if (out) {
    out.bytes = bytes;
    out.text = undefined;
  }
  return copy;
}

function isPlainObject(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** Sets metadata.resourceVersion on a parsed copy (left alone when it is no object: the caller refuses those). */
function setResourceVersion(copy: unknown, resourceVersion: string | undefined): void {
  if (resourceVersion === undefined || typeof copy !== 'object' || copy === null || Array.isArray(copy)) return;
  const c = copy as { metadata?: unknown };
  c.metadata = { ...((c.metadata ?? {}) as object), resourceVersion };
}

/** Marks the entries of `copy` (a private copy about to be committed and deep-frozen) as shareable by the revisions after it. */
export function markStoredEntries(copy: KubeObject): void {
  const entries: unknown = copy.metadata?.managedFields;
  if (!Array.isArray(entries)) return;
  for (const e of entries)
    if (typeof e === 'object' && e !== null && !Array.isArray(e) && !Object.isFrozen(e))
      Object.defineProperty(e, STORED, { value: approximateJsonSize(e) });
}
