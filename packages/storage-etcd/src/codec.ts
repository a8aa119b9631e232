import { type KubeObject, stringifyJson } from '@kapi/apimachinery';
import { recordStorageKey, storageErrors } from '@kapi/storage';

/**
 * Objects are stored as JSON without metadata.resourceVersion: the revision of the write is the object's
 * resourceVersion (etcd's mod_revision), set on every read, as kube-apiserver's etcd3 store does.
 */
export function encodeObject(key: string, obj: KubeObject): Buffer {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw storageErrors.invalidObject(key, 'object must be a JSON object');
  const { resourceVersion: _, ...metadata } = (obj.metadata ?? {}) as KubeObject['metadata'];
  let json: string;
  try {
    // Not JSON.stringify: its recursion stops near 4,500 levels, and accepted objects may nest up to 10,000.
    json = stringifyJson({ ...obj, metadata });
  } catch (err) {
    throw storageErrors.invalidObject(key, `object cannot be encoded as JSON: ${(err as Error).message}`);
  }
  return Buffer.from(json, 'utf8');
}

/**
 * The object stored at storage key `key` in `value`, with `revision` as its resourceVersion and `key` recorded as its
 * storage key (every object the store hands out comes through here). A fresh object the caller owns.
 */
export function decodeObject(key: string, value: Buffer, revision: number): KubeObject {
  let obj: unknown;
  try {
    obj = JSON.parse(value.toString('utf8'));
  } catch (err) {
    throw storageErrors.invalidObject(key, `stored object cannot be decoded: ${(err as Error).message}`);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw storageErrors.invalidObject(key, 'stored object cannot be decoded: not a JSON object');
  }
  const o = obj as KubeObject;
  if (typeof o.metadata !== 'object' || o.metadata === null) o.metadata = {};
  o.metadata.resourceVersion = String(revision);
  recordStorageKey(o, key);
  return o;
}
