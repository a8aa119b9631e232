import { describe, expect, it } from 'vitest';
import { nameOfKey, normalizeKey, prefixOf } from './keys.ts';
import { isStorageError, type StorageError } from './storage-error.ts';

describe('keys', () => {
  it('gives keys one leading slash', () => {
    expect(normalizeKey('registry/a')).toBe('/registry/a');
    expect(normalizeKey('/registry/a')).toBe('/registry/a');
  });
  it('rejects empty keys and dot segments', () => {
    for (const k of ['', '/']) expect(() => normalizeKey(k)).toThrow(/^empty key/);
    for (const k of ['.', '..', '/a/../b', '/a/./b', '../a', '/a/..']) {
      try {
        normalizeKey(k);
        expect.unreachable(k);
      } catch (e) {
        expect(isStorageError(e, 'InvalidKey')).toBe(true);
        expect((e as Error).message).toMatch(/^invalid key/);
        expect((e as StorageError).toStatusError('widgets').status).toMatchObject({ code: 400, reason: 'BadRequest' });
      }
    }
  });
  it('prefixOf adds one trailing slash; nameOfKey takes the last segment', () => {
    expect(prefixOf('/x/foo')).toBe('/x/foo/');
    expect(prefixOf('/x/foo/')).toBe('/x/foo/');
    expect(nameOfKey('/registry/widgets/ns/a')).toBe('a');
  });
});
