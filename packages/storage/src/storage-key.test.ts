import { describe, expect, it } from 'vitest';
import { recordStorageKey, storageKeyOf } from './storage-key.ts';

describe('storage keys', () => {
  it('are recorded per object, frozen ones included, without touching the object', () => {
    const a = Object.freeze({ metadata: { name: 'a' } });
    const b = { metadata: { name: 'a' } };
    recordStorageKey(a, '/registry/x/ns/a');
    expect(storageKeyOf(a)).toBe('/registry/x/ns/a');
    expect(storageKeyOf(b)).toBeUndefined();
    expect(Object.keys(a)).toEqual(['metadata']);
  });

  it('live on globalThis, so another copy of the package sees the same keys', () => {
    const a = {};
    recordStorageKey(a, '/k');
    const shared = (globalThis as Record<symbol, unknown>)[Symbol.for('kapi.storageKey')] as WeakMap<object, string>;
    expect(shared.get(a)).toBe('/k');
  });
});
