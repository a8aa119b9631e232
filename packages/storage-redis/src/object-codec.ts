import { type KubeObject, stringifyJson } from '@kapi/apimachinery';
import { deepFreeze, recordStorageKey, storageErrors } from '@kapi/storage';

/** etcd's default --max-request-bytes: objects larger than this are refused on every backend alike. */
export const DEFAULT_MAX_VALUE_BYTES = 1.5 * 1024 * 1024;

/**
 * The stored form of an object: its JSON without metadata.resourceVersion (the revision is the version's score, so a
 * stored value never disagrees with it). Throws InvalidObject for what JSON cannot hold, RequestTooLarge above `limit`.
 */
export function encodeObject(key: string, obj: KubeObject, limit: number): string {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw storageErrors.invalidObject(key, 'object must be a JSON object');
  const md = obj.metadata;
  let value: unknown = obj;
  if (md === undefined || md === null) value = { ...obj, metadata: {} };
  else if (md.resourceVersion !== undefined) {
    const { resourceVersion: _, ...rest } = md;
    value = { ...obj, metadata: rest };
  }
  let json: string;
  try {
    // Not JSON.stringify: its recursion stops near 4,500 levels, and accepted objects may nest up to 10,000.
    json = stringifyJson(value);
  } catch (err) {
    throw storageErrors.invalidObject(key, `object cannot be encoded as JSON: ${(err as Error).message}`);
  }
  // A UTF-8 byte is at most 3 per UTF-16 unit: only long strings need counting.
  if (json.length * 3 > limit) {
    const bytes = Buffer.byteLength(json);
    if (bytes > limit) throw storageErrors.requestTooLarge(key, bytes, limit);
  }
  return json;
}

/**
 * The value stored at storage key `key` as an object with `rev` as its resourceVersion and `key` recorded as its
 * storage key (every object the store hands out comes through here). A fresh, unfrozen copy.
 */
export function decodeObject(key: string, json: string, rev: number | string): KubeObject {
  const obj = JSON.parse(json) as KubeObject;
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  obj.metadata.resourceVersion = String(rev);
  recordStorageKey(obj, key);
  return obj;
}

/** Like decodeObject, frozen (for values that are shared or handed to callbacks that must not change them). */
export function decodeFrozen(key: string, json: string, rev: number | string): KubeObject {
  return deepFreeze(decodeObject(key, json, rev));
}
