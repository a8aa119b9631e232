import {
  FieldSet,
  fieldSetFromFieldsV1,
  fieldSetToFieldsV1,
  type KubeObject,
  type ManagedFields,
  type ManagedFieldsEntry,
  type VersionedSet,
} from '@kapi/apimachinery';
import { LRUCache } from 'lru-cache';
import { managerIdentifier, parseManagerIdentifier } from './manager-id.ts';

/** What `metadata.managedFields` says, decoded: each manager's set and the time of its last change (RFC 3339). */
export interface Managed {
  fields: ManagedFields;
  times: Map<string, string | undefined>;
  /** The entries decoded, by manager id: encoding reuses one whose set and time did not change (no FieldsV1 walk). */
  decoded?: ReadonlyMap<string, { vs: VersionedSet; entry: ManagedFieldsEntry }>;
}

export const emptyManaged = (): Managed => ({ fields: new Map(), times: new Map() });

/**
 * Decodings of stored objects' entries by object (namespace, name, uid), for one Store (its field managers share it).
 * One stored version of an object has exactly one managedFields content, so a decoding is reused whole for the same
 * resourceVersion; for a later version, the entries it shares by identity with the decoded one (a backend that keeps
 * committed objects frozen, as MemoryStorage, hands the unchanged entries of the previous revision on as they are)
 * reuse their decoded sets, and only the entries that changed — usually the writer's own — are decoded again.
 * Bounded (least recently used dropped): a miss only costs a decode.
 */
export class StoredManagedFieldsCache {
  /**
   * One decoding per object, the latest asked for. Each costs about 2.5 KB, so 10,000 of them per resource were the
   * largest per-object cost of a memory-backed server (issue 18): a small bound holds the objects written now.
   */
  readonly #lru = new LRUCache<string, { resourceVersion: string; managed: Managed }>({ max: 1_000 });

  /** The decoding of `obj`'s entries (`obj` a stored object: it has a resourceVersion), remembered. */
  decode(obj: KubeObject): Managed {
    const entries = obj.metadata?.managedFields;
    if (!entries) return emptyManaged();
    const m = obj.metadata;
    // Stored objects always have one; anything else is decoded afresh.
    if (!m.resourceVersion) return decodeManagedFields(entries);
    const key = storedKey(m);
    const hit = this.#lru.get(key);
    // Cheap guard against a key reused for other content (a storage replaced under the Store): same entry headers.
    if (hit?.resourceVersion === m.resourceVersion && hit.managed.decoded && sameHeaders(entries, hit.managed.decoded))
      return copyManaged(hit.managed);
    const managed = decodeManagedFields(entries, hit && frozenEntries(hit.managed));
    this.#lru.set(key, { resourceVersion: m.resourceVersion, managed });
    return copyManaged(managed);
  }
}

/** The decoded entries of `managed` that are frozen (never to change, so the same object decodes the same), by entry. */
function frozenEntries(managed: Managed): ReadonlyMap<ManagedFieldsEntry, { id: string; vs: VersionedSet }> | undefined {
  if (!managed.decoded) return undefined;
  const out = new Map<ManagedFieldsEntry, { id: string; vs: VersionedSet }>();
  for (const [id, { vs, entry }] of managed.decoded) if (Object.isFrozen(entry)) out.set(entry, { id, vs });
  return out.size > 0 ? out : undefined;
}

const storedKey = (m: KubeObject['metadata']): string => `${m.namespace ?? ''}/${m.name ?? ''}/${m.uid ?? ''}`;

function sameHeaders(entries: readonly ManagedFieldsEntry[], decoded: Managed['decoded'] & object): boolean {
  if (entries.length !== decoded.size) return false;
  let i = 0;
  for (const { entry } of decoded.values()) {
    const e = entries[i++];
    if (
      !e ||
      e.manager !== entry.manager ||
      e.operation !== entry.operation ||
      e.apiVersion !== entry.apiVersion ||
      e.time !== entry.time ||
      e.subresource !== entry.subresource
    )
      return false;
  }
  return true;
}

/**
 * A copy the pipeline may change: the times are copied; the fields map is shared, as the pipeline never changes the
 * one it is given (the Updater works on its own copy, and the field manager changes only the Updater's result).
 * The sets and entries are immutable and shared.
 */
function copyManaged(hit: Managed): Managed {
  return { fields: hit.fields, times: new Map(hit.times), ...(hit.decoded ? { decoded: hit.decoded } : {}) };
}

/**
 * kube's DecodeManagedFields: the entries as manager id → set. Throws an Error (kube's words) for an entry with
 * another operation than Apply or Update, no apiVersion, a fieldsType other than FieldsV1, or fieldsV1 that do not
 * decode; the caller decides what that means (an update falls back to the live object's entries).
 */
export function decodeManagedFields(
  entries: readonly ManagedFieldsEntry[] | undefined,
  /** Entries decoded before (frozen, so unchanged): their id and set are taken as they are. */
  known?: ReadonlyMap<ManagedFieldsEntry, { id: string; vs: VersionedSet }>,
  /**
   * The stored object's entries, when `entries` are a client's: an entry equal to the stored one at its place (a PUT
   * of the object as read sends a copy) is recorded as the stored one, which the storage then shares as it is rather
   * than copying it and comparing it with the previous version's.
   */
  live?: readonly ManagedFieldsEntry[],
): Managed {
  const out = emptyManaged();
  if (!entries) return out;
  const decoded = new Map<string, { vs: VersionedSet; entry: ManagedFieldsEntry }>();
  out.decoded = decoded;
  entries.forEach((e, i) => {
    const seen = known?.get(e);
    if (seen) {
      out.fields.set(seen.id, seen.vs);
      out.times.set(seen.id, typeof e.time === 'string' ? e.time : undefined);
      decoded.set(seen.id, { vs: seen.vs, entry: e });
      return;
    }
    if (e === null || typeof e !== 'object') throw new Error(`managed fields entry ${i} is not an object`);
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new Error('apiVersion must not be empty');
    if (!e.fieldsType) throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    const id = managerIdentifier(e);
    const text = fieldsV1Text(e.fieldsV1);
    let set: FieldSet;
    try {
      set = decodeFieldsV1(e.fieldsV1, text);
    } catch (err) {
      throw new Error(`error decoding versioned set from ${JSON.stringify(e)}: error decoding set: ${(err as Error).message}`);
    }
    const vs: VersionedSet = { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' };
    out.fields.set(id, vs);
    out.times.set(id, typeof e.time === 'string' ? e.time : undefined);
    const stored = live?.[i];
    decoded.set(id, { vs, entry: stored !== undefined && text !== undefined && sameEntry(e, stored, text) ? stored : e });
  });
  return out;
}

/**
 * Decoded sets by their FieldsV1 JSON text. Sets are immutable, so one decoding serves every entry with the same
 * fields — the objects a controller or client writes mostly share their shape — and the schema reconciliation the
 * Updater runs on each set (memoized on the set) is done once per shape instead of once per write. Bounded by the
 * texts' length (about 4 MiB of them).
 */
const decodedSets = new LRUCache<string, FieldSet>({ maxSize: 4 << 20, sizeCalculation: (_set, text) => text.length + 64 });

/** The JSON text of a FieldsV1 (the key of its decoding); undefined for none, or one nested beyond JSON.stringify's reach. */
function fieldsV1Text(fieldsV1: unknown): string | undefined {
  if (fieldsV1 === undefined || fieldsV1 === null) return undefined;
  try {
    return JSON.stringify(fieldsV1);
  } catch {
    return undefined;
  }
}

/** fieldSetFromFieldsV1, shared by content (`text`: fieldsV1Text's); an error is thrown as it is and nothing is remembered. */
function decodeFieldsV1(fieldsV1: unknown, text: string | undefined): FieldSet {
  if (fieldsV1 === undefined || fieldsV1 === null) return FieldSet.empty();
  // Nested beyond JSON.stringify's recursion: decoded as it is, not remembered.
  if (text === undefined) return fieldSetFromFieldsV1(fieldsV1);
  const known = decodedSets.get(text);
  if (known) return known;
  const set = fieldSetFromFieldsV1(fieldsV1);
  decodedSets.set(text, set);
  return set;
}

/**
 * Whether entry `e` (whose fieldsV1 encodes as `text`) says what `stored` says: the same manager, operation, version,
 * time, subresource and fields. Other members an entry may carry are not part of kube's ManagedFieldsEntry (its
 * decoding drops them), so they do not count.
 */
function sameEntry(e: ManagedFieldsEntry, stored: ManagedFieldsEntry, text: string): boolean {
  return (
    typeof stored === 'object' &&
    stored !== null &&
    e.manager === stored.manager &&
    e.operation === stored.operation &&
    e.apiVersion === stored.apiVersion &&
    e.time === stored.time &&
    e.fieldsType === stored.fieldsType &&
    e.subresource === stored.subresource &&
    fieldsV1Text(stored.fieldsV1) === text
  );
}

/** Whole seconds of an RFC 3339 time (0 without one), as kube compares entry times. */
export function timeSeconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * kube's encodeManagedFields: one entry per manager, sorted by operation (Apply first), time, manager, apiVersion
 * and subresource. Undefined when nobody manages anything (the field is then left out).
 */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const time = managed.times.get(id);
    const before = managed.decoded?.get(id);
    const sameSet = before !== undefined && sameVersionedSet(before.vs, vs);
    if (sameSet && before.entry.time === time) {
      entries.push(before.entry);
      continue;
    }
    // The entry the manager had carries the identifier's fields already (no JSON parse of the id).
    const parsed = before?.entry ?? parseManagerIdentifier(id) ?? {};
    const e: ManagedFieldsEntry = {};
    if (parsed.manager) e.manager = parsed.manager;
    e.operation = vs.applied ? 'Apply' : (parsed.operation ?? 'Update');
    e.apiVersion = vs.apiVersion;
    if (time) e.time = time;
    e.fieldsType = 'FieldsV1';
    // Only the time changed (a manager writing again a second later): an equal set encodes the same.
    e.fieldsV1 = sameSet && before.entry.fieldsV1 ? before.entry.fieldsV1 : fieldSetToFieldsV1(vs.set);
    if (parsed.subresource) e.subresource = parsed.subresource;
    entries.push(e);
  }
  return entries.sort(
    (p, q) =>
      cmp(p.operation ?? '', q.operation ?? '') ||
      timeSeconds(p.time) - timeSeconds(q.time) ||
      cmp(p.manager ?? '', q.manager ?? '') ||
      cmp(p.apiVersion ?? '', q.apiVersion ?? '') ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
}

/** Whether two versioned sets record the same fields in the same way. */
export function sameVersionedSet(a: VersionedSet, b: VersionedSet): boolean {
  return a === b || (a.apiVersion === b.apiVersion && a.applied === b.applied && (a.set === b.set || a.set.equals(b.set)));
}

/**
 * kube's isResetManagedFields: a request whose managedFields is `[]` or `[{}]` asks for tracking to start over (and
 * `[null]`, which Go decodes as `[{}]`).
 */
export function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  if (entries.length !== 1) return false;
  const only = entries[0];
  return only === null || (typeof only === 'object' && !Array.isArray(only) && Object.keys(only).length === 0);
}
