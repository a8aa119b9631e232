import { describe, expect, it } from 'vitest';
import { deepFreeze, jsonEqual, sameStoredObject } from './deep-equal.ts';

describe('jsonEqual', () => {
  it('ignores key order and undefined members, not array order', () => {
    expect(jsonEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, u: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: [] }, { a: {} })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
  });
  it('sameStoredObject ignores metadata.resourceVersion only', () => {
    expect(sameStoredObject({ metadata: { name: 'a', resourceVersion: '1' } }, { metadata: { name: 'a', resourceVersion: '9' } })).toBe(
      true,
    );
    expect(sameStoredObject({ metadata: { name: 'a' } }, { metadata: { name: 'b' } })).toBe(false);
  });
  it('deepFreeze freezes nested values', () => {
    const o = deepFreeze({ a: { b: [1] } });
    expect(Object.isFrozen(o.a.b)).toBe(true);
  });
});
