import { type KubeObject, stringifyJson } from '@kapi/apimachinery';

/**
 * metadata.managedFields entries of objects a storage committed: private, deep-frozen JSON it made itself. A write
 * usually carries most entries of the revision it starts from unchanged (the field manager re-encodes only the
 * entries whose set or time changed; a manager writing again a second later keeps its entry's fieldsV1), and entries
 * are most of a small object's nodes; a later revision shares such an entry, or such a fieldsV1, as it is instead of
 * freezing a second copy and comparing it with the previous version's member by member. Only identity counts: an
 * equal entry the caller built is copied like the rest of the object.
 */
// A module-private symbol, set (non-enumerable) before the copy is frozen: JSON, spreads and walks over own keys never
// see or copy it, and no caller can forge it. Cheaper than a WeakSet of every stored entry.
const STORED = Symbol('kapi.storedManagedFields');

const isStored = (v: unknown): v is object =>
  typeof v === 'object' && v !== null && Object.isFrozen(v) && (v as Record<symbol, unknown>)[STORED] === true;

/**
 * A private JSON copy of `obj` (JSON.stringify's rules) in which the stored entries it carries, and the stored fieldsV1
 * of entries it rebuilt, are shared, not copied, with metadata.resourceVersion set to `resourceVersion` when given (in
 * place, or last in metadata, as a spread would put it); `out.bytes` is set to how many bytes the copy takes as JSON
 * (UTF-16 units of its encoding), and `out.text` to the copy's exact JSON when the resourceVersion went into it.
 */
export function copyForStorage(obj: KubeObject, out?: { bytes: number; text?: string | undefined }, resourceVersion?: string): unknown {
  const meta = obj.metadata as KubeObject['metadata'] | undefined;
  // The new resourceVersion goes into the text, so the copy needs no metadata spread after the parse.
  const plain = resourceVersion !== undefined && isPlainObject(obj);
  // The whole object is encoded, shared entries too: the text is then the copy's encoding, which the response and
  // the watch cache take instead of encoding the object again.
  const json = stringifyJson(plain ? { ...obj, metadata: { ...meta, resourceVersion } } : obj);
  const copy = JSON.parse(json);
  if (!plain) setResourceVersion(copy, resourceVersion);
  if (out) {
    out.bytes = json.length;
    out.text = plain ? json : undefined;
  }
  shareStored(meta?.managedFields, copy);
  return copy;
}

/** Puts the stored entries of `entries` (and stored fieldsV1 of the others) in place of their copies in `copy`. */
function shareStored(entries: unknown, copy: unknown): void {
  if (!Array.isArray(entries)) return;
  const list = (copy as { metadata?: { managedFields?: unknown } } | null)?.metadata?.managedFields;
  // An entry JSON drops (undefined, a function) shifts nothing here: it encodes as null, in its place.
  if (!Array.isArray(list) || list.length !== entries.length) return;
  for (let i = 0; i < entries.length; i++) {
    const e: unknown = entries[i];
    if (typeof e !== 'object' || e === null) continue;
    if (isStored(e)) list[i] = e;
    else {
      const fieldsV1 = (e as { fieldsV1?: unknown }).fieldsV1;
      const c: unknown = list[i];
      if (isStored(fieldsV1) && typeof c === 'object' && c !== null && !Array.isArray(c) && Object.hasOwn(c, 'fieldsV1'))
        (c as { fieldsV1: unknown }).fieldsV1 = fieldsV1;
    }
  }
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

/** Marks the entries of `copy` (a private copy about to be committed and deep-frozen), and their fieldsV1, as shareable by the revisions after it. */
export function markStoredEntries(copy: KubeObject): void {
  const entries: unknown = copy.metadata?.managedFields;
  if (!Array.isArray(entries)) return;
  for (const e of entries) {
    if (typeof e !== 'object' || e === null || Array.isArray(e)) continue;
    mark(e);
    const fieldsV1 = (e as { fieldsV1?: unknown }).fieldsV1;
    if (typeof fieldsV1 === 'object' && fieldsV1 !== null && !Array.isArray(fieldsV1)) mark(fieldsV1);
  }
}

function mark(o: object): void {
  if (!Object.isFrozen(o) && !Object.hasOwn(o, STORED)) Object.defineProperty(o, STORED, { value: true });
}
