import { type KubeObject, parseLabelSelector } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { recordStorageKey, storageKeyOf } from './storage-key.ts';
import { bookmarkObject, lastStateAt, watchEventFor } from './watch-event.ts';

const o = (rev: number, app?: string): KubeObject => ({
  metadata: { name: 'a', resourceVersion: String(rev), ...(app ? { labels: { app } } : {}) },
});
const pred = { label: parseLabelSelector('app=web') };

describe('watchEventFor', () => {
  it('without a predicate: create ADDED, update MODIFIED, delete DELETED with the last state at the delete revision', () => {
    expect(watchEventFor(undefined, { rev: 1, obj: o(1), prev: null })).toEqual({ type: 'ADDED', object: o(1) });
    expect(watchEventFor(undefined, { rev: 2, obj: o(2), prev: o(1) })).toEqual({ type: 'MODIFIED', object: o(2) });
    expect(watchEventFor(undefined, { rev: 3, obj: null, prev: o(2) })).toEqual({ type: 'DELETED', object: o(3) });
  });

  it('with a predicate: starting to match is ADDED, stopping is DELETED with the old object at the new revision', () => {
    expect(watchEventFor(pred, { rev: 2, obj: o(2, 'web'), prev: o(1, 'db') })).toEqual({ type: 'ADDED', object: o(2, 'web') });
    expect(watchEventFor(pred, { rev: 3, obj: o(3, 'db'), prev: o(2, 'web') })).toEqual({ type: 'DELETED', object: o(3, 'web') });
    expect(watchEventFor(pred, { rev: 4, obj: o(4, 'web'), prev: o(3, 'web') })?.type).toBe('MODIFIED');
    expect(watchEventFor(pred, { rev: 5, obj: o(5, 'db'), prev: o(4, 'db') })).toBeUndefined();
    expect(watchEventFor(pred, { rev: 6, obj: null, prev: o(5, 'db') })).toBeUndefined();
    expect(watchEventFor(pred, { rev: 7, obj: null, prev: o(5, 'web') })).toEqual({ type: 'DELETED', object: o(7, 'web') });
  });

  it('lastStateAt copies (frozen) and never touches the original', () => {
    const before = o(1, 'web');
    const after = lastStateAt(before, 9);
    expect(after.metadata.resourceVersion).toBe('9');
    expect(before.metadata.resourceVersion).toBe('1');
    expect(Object.isFrozen(after.metadata)).toBe(true);
  });

  it('lastStateAt keeps the storage key, also on the DELETED copies watchEventFor makes', () => {
    const before = o(1, 'web');
    recordStorageKey(before, '/registry/x/ns/a/child');
    expect(storageKeyOf(lastStateAt(before, 2))).toBe('/registry/x/ns/a/child');
    expect(storageKeyOf(watchEventFor(pred, { rev: 3, obj: null, prev: before })?.object as KubeObject)).toBe('/registry/x/ns/a/child');
    expect(storageKeyOf(lastStateAt(o(1), 2))).toBeUndefined();
  });
});

describe('bookmarkObject', () => {
  it('carries only the resourceVersion, and the initial-events-end annotation when asked; frozen', () => {
    expect(bookmarkObject(5)).toEqual({ metadata: { resourceVersion: '5' } });
    expect(bookmarkObject(5, true)).toEqual({ metadata: { resourceVersion: '5', annotations: { 'k8s.io/initial-events-end': 'true' } } });
    expect(Object.isFrozen(bookmarkObject(1, true).metadata.annotations)).toBe(true);
  });
});
