import { storageErrors } from './storage-error.ts';

/**
 * Validates a storage key and gives it its canonical form (one leading "/"), as etcd3's prepareKey does:
 * "" and "/" are an empty key; "." or ".." segments are an invalid key (they would escape a prefix).
 */
export function normalizeKey(key: string): string {
  if (key === '' || key === '/') throw storageErrors.invalidKey(key, 'empty key');
  // Only keys with a dot right after a slash (or at the start) can hold a "." or ".." segment.
  if (key.startsWith('.') || key.includes('/.')) {
    const segments = key.split('/');
    if (segments.includes('..') || segments.includes('.')) throw storageErrors.invalidKey(key, 'invalid key');
  }
  return key.startsWith('/') ? key : `/${key}`;
}

/** The range a recursive list or watch covers: the key with a trailing "/", so /x/foo never covers /x/foobar. */
export function prefixOf(key: string): string {
  return key.endsWith('/') ? key : `${key}/`;
}

/** The last path segment of a key: the object's name. */
export const nameOfKey = (key: string): string => key.slice(key.lastIndexOf('/') + 1);
