import { decodeContinue, encodeContinue, newBadRequest, parseResourceVersion } from '@kapi/apimachinery';
import type { ListOptions } from './interfaces.ts';
import { normalizeKey, prefixOf } from './keys.ts';
import { matchesEverything } from './selection-predicate.ts';
import { MESSAGES, type StorageError, storageErrors } from './storage-error.ts';

/**
 * What a list must read, decided from its options exactly as k8s.io/apiserver's etcd3 store decides it.
 * Every backend executes a plan; none re-derives these rules.
 */
export interface ListPlan {
  /** The normalized key: the object for a non-recursive list, the range's root otherwise. */
  key: string;
  recursive: boolean;
  /** Range covered by a recursive list: keys starting with this (key + "/"). */
  prefix: string;
  /** First key to read (inclusive): the prefix, or the continue token's start. */
  startKey: string;
  /** The revision to read at; undefined = the latest. */
  readAt: number | undefined;
  /** The result's revision must be at least this (NotOlderThan); 0 = no bound. */
  minRevision: number;
  /** Page size; 0 = everything. */
  limit: number;
  /** True when the page came from a continue token (compaction then yields the "inconsistent continue" error). */
  continuing: boolean;
  /** No label or field selector: remainingItemCount is reported. */
  unfiltered: boolean;
}

export function planList(key: string, opts: ListOptions = {}): ListPlan {
  const k = normalizeKey(key);
  const recursive = opts.recursive ?? true;
  const prefix = recursive ? prefixOf(k) : k;
  const pred = opts.predicate;
  const rvString = opts.resourceVersion ?? '';
  const rv = parseResourceVersion(rvString);
  const limit = recursive && pred?.limit && pred.limit > 0 ? Math.floor(pred.limit) : 0;
  const plan: ListPlan = {
    key: k,
    recursive,
    prefix,
    startKey: prefix,
    readAt: undefined,
    minRevision: 0,
    limit,
    continuing: false,
    unfiltered: matchesEverything(pred),
  };

  if (recursive && pred?.continue) {
    const { fromKey, rv: tokenRv } = decodeContinue(pred.continue, prefix);
    if (rvString !== '' && rvString !== '0') {
      throw newBadRequest('specifying resource version is not allowed when using continue');
    }
    plan.startKey = fromKey;
    plan.continuing = true;
    // rv < 0 continues at the latest revision (a token handed out after its snapshot was compacted).
    if (tokenRv > 0) plan.readAt = tokenRv;
    return plan;
  }
  if (rvString === '') return plan;

  let match = opts.resourceVersionMatch ?? '';
  if (match === '') match = recursive && limit > 0 && rv > 0 ? 'Exact' : 'NotOlderThan';
  switch (match) {
    case 'NotOlderThan':
      plan.minRevision = rv;
      break;
    case 'Exact':
      if (rv > 0) plan.readAt = rv;
      break;
    default:
      throw newBadRequest(`unknown ResourceVersionMatch value: ${String(match)}`);
  }
  return plan;
}

/**
 * Checks a plan's revision against the store's current and compacted revisions; returns the revision to read at.
 * Throws TooLargeResourceVersion or Expired (with a fresh rv -1 token when continuing).
 */
export function resolveReadRevision(plan: ListPlan, current: number, compacted: number): number {
  if (plan.minRevision > current) throw storageErrors.tooLargeResourceVersion(plan.minRevision, current);
  if (plan.readAt === undefined) return current;
  if (plan.readAt > current) throw storageErrors.tooLargeResourceVersion(plan.readAt, current);
  if (plan.readAt < compacted) throw listExpiredError(plan);
  return plan.readAt;
}

/**
 * The 410 for a list whose revision was compacted: "too old" for a list, or — when continuing — the inconsistent-continue
 * message with a fresh rv -1 token at the same start key, so the client may read the rest at the latest revision.
 */
export function listExpiredError(plan: ListPlan): StorageError {
  if (plan.continuing) {
    return storageErrors.expired(MESSAGES.inconsistentContinue, { continue: encodeContinue(plan.startKey, plan.prefix, -1) });
  }
  return storageErrors.expired(MESSAGES.listExpired);
}

/** The continue token for the page after `lastKey` (read at `revision`). */
export function continueAfter(plan: ListPlan, lastKey: string, revision: number): string {
  return encodeContinue(`${lastKey}\u0000`, plan.prefix, revision);
}
