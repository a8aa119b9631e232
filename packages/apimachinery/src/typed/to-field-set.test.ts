import { describe, expect, it } from 'vitest';
import type { FieldSet } from '../fieldpath/set.ts';
import { KBF, NS, P, typeOf, V, y } from './test-support/smd.ts';
import { toFieldSet } from './to-field-set.ts';
import { validate } from './validate.ts';

// SMD typed/toset_test.go (fieldsetCases), as data.
interface FieldsetTestCase {
  name: string;
  rootTypeName: string;
  schema: string;
  pairs: [object: string, set: FieldSet][];
}

const fieldsetCases: FieldsetTestCase[] = [
  {
    name: 'simple pair',
    rootTypeName: 'stringPair',
    schema:
      'types:\n- name: stringPair\n  map:\n    fields:\n    - name: key\n      type:\n        scalar: string\n    - name: value\n      type:\n        namedType: __untyped_atomic_\n- name: __untyped_atomic_\n  scalar: untyped\n  list:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n  map:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n',
    pairs: [
      ['{"key":"foo","value":1}', NS(P('key'), P('value'))],
      ['{"key":"foo","value":{"a": "b"}}', NS(P('key'), P('value'))],
      ['{"key":"foo","value":null}', NS(P('key'), P('value'))],
      ['{"key":"foo"}', NS(P('key'))],
      ['{"key":"foo","value":true}', NS(P('key'), P('value'))],
    ],
  },
  {
    name: 'struct grab bag',
    rootTypeName: 'myStruct',
    schema:
      'types:\n- name: myStruct\n  map:\n    fields:\n    - name: numeric\n      type:\n        scalar: numeric\n    - name: string\n      type:\n        scalar: string\n    - name: bool\n      type:\n        scalar: boolean\n    - name: setStr\n      type:\n        list:\n          elementType:\n            scalar: string\n          elementRelationship: associative\n    - name: setBool\n      type:\n        list:\n          elementType:\n            scalar: boolean\n          elementRelationship: associative\n    - name: setNumeric\n      type:\n        list:\n          elementType:\n            scalar: numeric\n          elementRelationship: associative\n    - name: color\n      type:\n        map:\n          fields:\n          - name: R\n            type:\n              scalar: numeric\n          - name: G\n            type:\n              scalar: numeric\n          - name: B\n            type:\n              scalar: numeric\n          elementRelationship: atomic\n    - name: arbitraryWavelengthColor\n      type:\n        map:\n          elementType:\n            scalar: numeric\n          elementRelationship: atomic\n    - name: args\n      type:\n        list:\n          elementType:\n            map:\n              fields:\n              - name: key\n                type:\n                  scalar: string\n              - name: value\n                type:\n                  scalar: string\n          elementRelationship: atomic\n',
    pairs: [
      ['{"numeric":1}', NS(P('numeric'))],
      ['{"numeric":3.14159}', NS(P('numeric'))],
      ['{"string":"aoeu"}', NS(P('string'))],
      ['{"bool":true}', NS(P('bool'))],
      ['{"bool":false}', NS(P('bool'))],
      ['{"setStr":["a","b","c"]}', NS(P('setStr', V('a')), P('setStr', V('b')), P('setStr', V('c')))],
      ['{"setStr":["a","b","c","a","b","c","c"]}', NS(P('setStr', V('a')), P('setStr', V('b')), P('setStr', V('c')))],
      ['{"setBool":[true,false,true]}', NS(P('setBool', V(true)), P('setBool', V(false)))],
      [
        '{"setNumeric":[1,2,3,3.14159]}',
        // biome-ignore lint/suspicious/noApproximativeNumericConstant: SMD's test value
        NS(P('setNumeric', V(1)), P('setNumeric', V(2)), P('setNumeric', V(3)), P('setNumeric', V(3.14159))),
      ],
      ['{"color":{}}', NS(P('color'))],
      ['{"color":null}', NS(P('color'))],
      ['{"color":{"R":255,"G":0,"B":0}}', NS(P('color'))],
      ['{"arbitraryWavelengthColor":{}}', NS(P('arbitraryWavelengthColor'))],
      ['{"arbitraryWavelengthColor":null}', NS(P('arbitraryWavelengthColor'))],
      ['{"arbitraryWavelengthColor":{"IR":255}}', NS(P('arbitraryWavelengthColor'))],
      ['{"args":[]}', NS(P('args'))],
      ['{"args":null}', NS(P('args'))],
      ['{"args":[null]}', NS(P('args'))],
      ['{"args":[{"key":"a","value":"b"},{"key":"c","value":"d"}]}', NS(P('args'))],
    ],
  },
  {
    name: 'associative list',
    rootTypeName: 'myRoot',
    schema:
      'types:\n- name: myRoot\n  map:\n    fields:\n    - name: list\n      type:\n        namedType: myList\n    - name: atomicList\n      type:\n        namedType: mySequence\n- name: myList\n  list:\n    elementType:\n      namedType: myElement\n    elementRelationship: associative\n    keys:\n    - key\n    - id\n- name: mySequence\n  list:\n    elementType:\n      scalar: string\n    elementRelationship: atomic\n- name: myElement\n  map:\n    fields:\n    - name: key\n      type:\n        scalar: string\n    - name: id\n      type:\n        scalar: numeric\n    - name: value\n      type:\n        namedType: myValue\n    - name: bv\n      type:\n        scalar: boolean\n    - name: nv\n      type:\n        scalar: numeric\n- name: myValue\n  map:\n    elementType:\n      scalar: string\n',
    pairs: [
      ['{"list":[]}', NS()],
      [
        '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
        NS(
          P('list', KBF('key', 'a', 'id', 1)),
          P('list', KBF('key', 'a', 'id', 1), 'key'),
          P('list', KBF('key', 'a', 'id', 1), 'id'),
          P('list', KBF('key', 'a', 'id', 1), 'value', 'a'),
        ),
      ],
      [
        '{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}',
        NS(
          P('list', KBF('key', 'a', 'id', 1)),
          P('list', KBF('key', 'a', 'id', 2)),
          P('list', KBF('key', 'b', 'id', 1)),
          P('list', KBF('key', 'a', 'id', 1), 'key'),
          P('list', KBF('key', 'a', 'id', 1), 'id'),
          P('list', KBF('key', 'a', 'id', 2), 'key'),
          P('list', KBF('key', 'a', 'id', 2), 'id'),
          P('list', KBF('key', 'b', 'id', 1), 'key'),
          P('list', KBF('key', 'b', 'id', 1), 'id'),
        ),
      ],
      [
        '{"list":[{"key":"a","id":1,"nv":2},{"key":"a","id":2,"nv":3},{"key":"b","id":1},{"key":"a","id":2,"bv":true}]}',
        NS(
          P('list', KBF('key', 'a', 'id', 1)),
          P('list', KBF('key', 'a', 'id', 1), 'key'),
          P('list', KBF('key', 'a', 'id', 1), 'id'),
          P('list', KBF('key', 'a', 'id', 1), 'nv'),
          P('list', KBF('key', 'a', 'id', 2)),
          P('list', KBF('key', 'b', 'id', 1)),
          P('list', KBF('key', 'b', 'id', 1), 'key'),
          P('list', KBF('key', 'b', 'id', 1), 'id'),
        ),
      ],
      ['{"atomicList":["a","a","a"]}', NS(P('atomicList'))],
    ],
  },
];

describe('toFieldSet (SMD toset_test)', () => {
  for (const tt of fieldsetCases) {
    describe(tt.name, () => {
      tt.pairs.forEach(([object, set], i) => {
        it(`${tt.name}-${i}`, () => {
          const type = typeOf(tt.schema, tt.rootTypeName);
          const value = y(object);
          expect(validate(type, value, { allowDuplicates: true })).toEqual([]);
          const got = toFieldSet(type, value);
          expect(got.equals(set), `wanted\n${set}\ngot\n${got}`).toBe(true);
        });
      });
    });
  }
});

describe('toFieldSet of values built in code', () => {
  it('treats a key set to undefined as absent, as JSON does', () => {
    const type = typeOf(fieldsetCases[0]?.schema ?? '', 'stringPair');
    expect(toFieldSet(type, { key: 'foo', value: undefined }).equals(NS(P('key')))).toBe(true);
    expect(validate(type, { key: 'foo', value: undefined })).toEqual([]);
  });
});
