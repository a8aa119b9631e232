import { fieldErrorMessage } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { Structural } from '../schema/structural.ts';
import { validateListSetsAndMaps } from './list-type.ts';

const set = (items?: Structural): Structural => ({ type: 'array', xListType: 'set', ...(items ? { items } : {}) });
const obj = (props: Record<string, Structural>): Structural => ({ type: 'object', properties: new Map(Object.entries(props)) });
const run = (s: Structural | undefined, o: unknown) => validateListSetsAndMaps('root', s, o).map(fieldErrorMessage);

// TestValidateListSetsAndMaps (apiextensions-apiserver pkg/apiserver/schema/listtype/validation_test.go).
describe('kube TestValidateListSetsAndMaps', () => {
  it('no schema, no object, lists that are not sets', () => {
    expect(run(undefined, { array: ['a', 'b', 'a'] })).toEqual([]);
    expect(run({}, undefined)).toEqual([]);
    expect(run(obj({ array: { type: 'array' } }), { array: ['a', 'b', 'a'] })).toEqual([]);
    expect(run(obj({ array: { type: 'array', items: { type: 'string' } } }), { array: ['a', 'b', 'a'] })).toEqual([]);
  });

  it('sets: each value reported once, at its second occurrence', () => {
    expect(run(obj({ array: set() }), { array: ['a'] })).toEqual([]);
    expect(run(obj({ array: set() }), { array: ['a', 'a'] })).toEqual(['root.array[1]: Duplicate value: "a"']);
    expect(run(obj({ array: set() }), { array: ['a', 'a', 'b', 'c', 'd', 'c'] })).toEqual([
      'root.array[1]: Duplicate value: "a"',
      'root.array[5]: Duplicate value: "c"',
    ]);
  });

  it('sets under additionalProperties ([key]) and under items', () => {
    const under: Structural = { type: 'object', additionalProperties: { bool: true, structural: set({ type: 'string' }) } };
    expect(run(under, { array: ['a', 'b', 'a'] })).toEqual(['root[array][2]: Duplicate value: "a"']);
    const nested = obj({ array: { type: 'array', items: set({ type: 'string' }) } });
    expect(
      run(nested, {
        array: [
          ['a', 'b', 'a'],
          ['b', 'b', 'a'],
        ],
      }),
    ).toEqual(['root.array[0][2]: Duplicate value: "a"', 'root.array[1][1]: Duplicate value: "b"']);
  });

  it('compound set items compare as JSON; scalars by type and value', () => {
    const s = obj({ maps: set(), arrays: set(), nils: set(), mixed: set() });
    expect(
      run(s, {
        maps: [{ a: 'b' }, { a: 'c' }, { a: 'b' }, { a: 'c' }, { a: 'c' }],
        arrays: [[], ['a'], ['b'], ['a']],
        nils: ['a', null, null],
        mixed: [1, '1', true, 'true', 1.5],
      }),
    ).toEqual([
      'root.maps[2]: Duplicate value: map[string]interface {}{"a":"b"}',
      'root.maps[3]: Duplicate value: map[string]interface {}{"a":"c"}',
      'root.arrays[3]: Duplicate value: []interface {}{"a"}',
      'root.nils[2]: Duplicate value: "null"',
    ]);
  });

  it('map lists: items must be objects, keys unique, a missing key is a value of its own', () => {
    const one: Structural = { type: 'array', xListType: 'map', xListMapKeys: ['a'] };
    const two: Structural = { type: 'array', xListType: 'map', xListMapKeys: ['a', 'b'] };
    const s = obj({ strings: one, oneKey: one, twoKeys: two, undefinedKey: two, nilItem: one });
    expect(
      run(s, {
        strings: ['a'],
        oneKey: [{ a: '0', c: '2' }, { a: '1', c: '1' }, { a: '1', c: '2' }, {}],
        twoKeys: [{ a: '1', b: '1', c: '1' }, { a: '1', b: '2', c: '2' }, { a: '1', b: '2', c: '3' }, {}],
        undefinedKey: [{ a: '1', b: '1', c: '1' }, { a: '1', c: '2' }, { a: '1', c: '3' }, {}],
        nilItem: [null, { a: '0', c: '1' }, { a: null }, { c: '1' }],
      }),
    ).toEqual([
      'root.strings[0]: Invalid value: "a": must be an object for an array of list-type map',
      'root.oneKey[2]: Duplicate value: map[string]interface {}{"a":"1"}',
      'root.twoKeys[2]: Duplicate value: map[string]interface {}{"a":"1", "b":"2"}',
      'root.undefinedKey[2]: Duplicate value: map[string]interface {}{"a":"1"}',
      'root.nilItem[3]: Duplicate value: map[string]interface {}{}',
    ]);
  });
});
