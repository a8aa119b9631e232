import { newBadRequest } from './status-error.ts';

/**
 * Parses a resourceVersion the way APIObjectVersioner does: "" and "0" are 0, anything else must be a
 * non-negative decimal integer. A bad value throws 400 "invalid resource version: …". Revisions beyond
 * Number.MAX_SAFE_INTEGER are refused as out of range.
 */
export function parseResourceVersion(rv: string | undefined): number {
  if (rv === undefined || rv === '') return 0;
  // kube-apiserver wraps the strconv error in a field error on "resourceVersion".
  const q = JSON.stringify(rv);
  const invalid = (why: string) =>
    newBadRequest(`invalid resource version: resourceVersion: Invalid value: ${q}: strconv.ParseUint: parsing ${q}: ${why}`);
  if (!/^[0-9]+$/.test(rv)) throw invalid('invalid syntax');
  const n = Number(rv);
  if (!Number.isSafeInteger(n)) throw invalid('value out of range');
  return n;
}

/** A revision as the decimal string clients see. */
export const formatResourceVersion = (rev: number): string => String(rev);
