import { describe, expect, it } from 'vitest';
import { recordStorageKey, storageKeyOf } from './storage-key.ts';

describe('storage keys', () => {
  it('are recorded per object, frozen ones included, invisibly to JSON, spreads and key walks', () => {
    const a = Object.freeze({ metadata: { name: 'a' } });
    const b = { metadata: { name: 'a' } };
    recordStorageKey(a, '/registry/x/ns/a');
    expect(storageKeyOf(a)).toBe('/registry/x/ns/a');
    expect(storageKeyOf(b)).toBeUndefined();
    expect(Object.keys(a)).toEqual(['metadata']);

    const c = { metadata: { name: 'c' } };
    recordStorageKey(c, '/registry/x/ns/c');
    Object.freeze(c);
    expect(storageKeyOf(c)).toBe('/registry/x/ns/c');
    expect(Object.keys(c)).toEqual(['metadata']);
    expect(JSON.stringify(c)).toBe('{"metadata":{"name":"c"}}');
    // A copy is another object: it has no key until one is recorded for it.
    expect(storageKeyOf({ ...c })).toBeUndefined();
    expect(storageKeyOf(Object.assign({}, c))).toBeUndefined();
    recordStorageKey(b, '/first');
    recordStorageKey(b, '/second');
    expect(storageKeyOf(b)).toBe('/second');
  });

  it('are shared by every copy of the package in the process (a symbol from the global registry, a table on globalThis)', () => {
    const open = {};
    recordStorageKey(open, '/k');
    expect((open as Record<symbol, unknown>)[Symbol.for('kapi.storageKey.property')]).toBe('/k');
    const frozen = Object.freeze({});
    recordStorageKey(frozen, '/f');
    const shared = (globalThis as Record<symbol, unknown>)[Symbol.for('kapi.storageKey')] as WeakMap<object, string>;
    expect(shared.get(frozen)).toBe('/f');
  });
});
