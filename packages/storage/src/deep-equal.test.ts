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
    // An own __proto__ key is data: it is not the prototype the other side inherits.
    expect(jsonEqual(JSON.parse('{"__proto__":{}}'), {})).toBe(false);
  });
  it('sameStoredObject ignores metadata.resourceVersion only', () => {
    expect(sameStoredObject({ metadata: { name: 'a', resourceVersion: '1' } }, { metadata: { name: 'a', resourceVersion: '9' } })).toBe(
      true,
    );
    expect(sameStoredObject({ metadata: { name: 'a' } }, { metadata: { name: 'b' } })).toBe(false);
    // An absent metadata is an empty one; undefined members are absent; key order does not matter.
    type Stored = { metadata?: object; [member: string]: unknown };
    const same = (a: Stored, b: Stored) => sameStoredObject(a, b);
    expect(same({ metadata: { resourceVersion: '3' } }, {})).toBe(true);
    expect(same({ metadata: { name: 'a', uid: undefined }, data: { x: '1' } }, { data: { x: '1' }, metadata: { name: 'a' } })).toBe(true);
    const mf = (t: string) => [{ manager: 'm', operation: 'Update', time: t, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }];
    expect(sameStoredObject({ metadata: { name: 'a', managedFields: mf('1') } }, { metadata: { name: 'a', managedFields: mf('1') } })).toBe(
      true,
    );
    expect(sameStoredObject({ metadata: { name: 'a', managedFields: mf('1') } }, { metadata: { name: 'a', managedFields: mf('2') } })).toBe(
      false,
    );
    expect(sameStoredObject({ metadata: { name: 'a', managedFields: mf('1') } }, { metadata: { name: 'a' } })).toBe(false);
    expect(same({ metadata: { name: 'a' }, spec: 1 }, { metadata: { name: 'a' } })).toBe(false);
    expect(same({ metadata: { name: 'a' } }, { metadata: { name: 'a' }, status: {} })).toBe(false);
  });
  it('deepFreeze freezes nested values', () => {
    const o = deepFreeze({ a: { b: [1] } });
    expect(Object.isFrozen(o.a.b)).toBe(true);
  });

  describe('at depths past any recursion (kube admits 10,000 levels; 30,000 here)', () => {
    /** Objects and arrays alternating, `depth` levels, around `leaf`; built in a loop. */
    const deep = (depth: number, leaf: unknown): { root: unknown; levels: object[] } => {
      const levels: object[] = [];
      let v = leaf;
      for (let i = 0; i < depth; i++) {
        v = i % 2 === 0 ? { a: v, s: i } : [i, v];
        levels.push(v as object);
      }
      return { root: v, levels: levels.reverse() };
    };

    it('jsonEqual finds equal values equal and a difference at the bottom', () => {
      expect(jsonEqual(deep(30_000, 1).root, deep(30_000, 1).root)).toBe(true);
      expect(jsonEqual(deep(30_000, 1).root, deep(30_000, 2).root)).toBe(false);
      expect(jsonEqual(deep(30_000, { x: 1 }).root, deep(30_000, { x: 1, y: 2 }).root)).toBe(false);
      expect(jsonEqual(deep(30_000, 1).root, deep(29_999, 1).root)).toBe(false);
      const stored = { metadata: { resourceVersion: '1' }, spec: deep(30_000, 1).root };
      const written = { metadata: {}, spec: deep(30_000, 1).root };
      expect(sameStoredObject(stored, written)).toBe(true);
    });

    it('deepFreeze freezes every level', () => {
      const { root, levels } = deep(30_000, { leaf: [1] });
      deepFreeze(root);
      expect(levels.every((o) => Object.isFrozen(o))).toBe(true);
      const last = levels[levels.length - 1] as { a: { leaf: number[] } };
      expect(Object.isFrozen(last.a)).toBe(true);
      expect(Object.isFrozen(last.a.leaf)).toBe(true);
    });
  });
});
