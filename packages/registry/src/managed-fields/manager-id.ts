import { goQuote, type ManagedFieldsEntry } from '@kapi/apimachinery';

/**
 * The key of one managedFields entry, as kube's BuildManagerIdentifier builds it: the entry's JSON without fieldsType,
 * fieldsV1 and time (and without apiVersion for an Apply entry, so an applier keeps one entry across versions), in
 * Go's field order with its omitempty rules. Entries with the same key are one manager.
 */
export function managerIdentifier(e: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  // Every decoding of every entry asks for its identifier; the same few managers come back. Only string fields are
  // keyed (a client's entry may hold anything, and 1 and "1" must not share an identifier).
  const { manager, operation, apiVersion, subresource } = e;
  if (!isOptionalString(manager) || !isOptionalString(operation) || !isOptionalString(apiVersion) || !isOptionalString(subresource))
    return buildIdentifier(e);
  const key = `${manager ?? ''}\u0000${operation ?? ''}\u0000${apiVersion ?? ''}\u0000${subresource ?? ''}`;
  return identifiers.get(key) ?? remember(identifiers, key, buildIdentifier(e));
}

const isOptionalString = (v: unknown): boolean => v === undefined || typeof v === 'string';

/** How many identifiers each memo below holds before it starts over (manager names come from clients). */
const MEMO_MAX = 1024;

/** Remembers `value` for `key` in `memo` (emptied when full); returns `value`. */
function remember<V>(memo: Map<string, V>, key: string, value: V): V {
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(key, value);
  return value;
}

/** Identifiers by their fields. */
const identifiers = new Map<string, string>();

function buildIdentifier(e: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  // Key order is metav1.ManagedFieldsEntry's (manager, operation, apiVersion, …, subresource), as Go marshals it.
  const id: Record<string, string> = {};
  if (e.manager) id.manager = e.manager;
  if (e.operation) id.operation = e.operation;
  if (e.apiVersion && e.operation !== 'Apply') id.apiVersion = e.apiVersion;
  if (e.subresource) id.subresource = e.subresource;
  return JSON.stringify(id);
}

type ManagerFields = Readonly<Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>>;

/**
 * Parsed identifiers: a write that creates a manager's entry names its fields from the identifier, and the same
 * few managers write again and again.
 */
const parsed = new Map<string, ManagerFields | undefined>();

/** The entry fields a manager identifier carries (its inverse); undefined when `id` is not one. */
export function parseManagerIdentifier(id: string): ManagerFields | undefined {
  const hit = parsed.get(id);
  // Undefined is remembered too (not an identifier): told apart from a miss by has().
  if (hit !== undefined || parsed.has(id)) return hit;
  const fields = parseUncached(id);
  return remember(parsed, id, fields && Object.freeze(fields));
}

function parseUncached(id: string): Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'> | undefined {
  let v: unknown;
  try {
    v = JSON.parse(id);
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
  const out: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'> = {};
  const manager = str('manager');
  if (manager !== undefined) out.manager = manager;
  const op = str('operation');
  if (op === 'Apply' || op === 'Update') out.operation = op;
  const apiVersion = str('apiVersion');
  if (apiVersion !== undefined) out.apiVersion = apiVersion;
  const subresource = str('subresource');
  if (subresource !== undefined) out.subresource = subresource;
  return out;
}

/**
 * A manager as conflict messages name it (kube's printManager): `"kubectl"`, `"ctl" with subresource "status"`, and
 * for an Update entry ` using <apiVersion>` after it. An identifier that is not JSON is quoted whole.
 */
export function printManager(id: string): string {
  const e = parseManagerIdentifier(id);
  if (!e) return goQuote(id);
  let out = goQuote(e.manager ?? '');
  if (e.subresource) out = `${out} with subresource ${goQuote(e.subresource)}`;
  // The identifier never carries a time, so kube's "at <time>" form does not occur.
  if (e.operation === 'Update') return `${out} using ${e.apiVersion ?? ''}`;
  return out;
}
