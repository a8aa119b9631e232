import { describe, expect, it } from 'vitest';
import { ValidationErrors, validationErrorString } from './helpers.ts';
import { typeOf, y } from './test-support/smd.ts';
import { validate } from './validate.ts';

// SMD typed/validate_test.go (validationCases), as data.
interface ValidationTestCase {
  name: string;
  rootTypeName: string;
  schema: string;
  validObjects?: string[];
  invalidObjects?: string[];
  /** Valid with allowDuplicates, invalid otherwise. */
  duplicatesObjects?: string[];
}

const validationCases: ValidationTestCase[] = [
  {
    name: 'simple pair',
    rootTypeName: 'stringPair',
    schema:
      'types:\n- name: stringPair\n  map:\n    fields:\n    - name: key\n      type:\n        scalar: string\n    - name: value\n      type:\n        namedType: __untyped_atomic_\n- name: __untyped_atomic_\n  scalar: untyped\n  list:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n  map:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n',
    validObjects: [
      '{"key":"foo","value":1}',
      '{"key":"foo","value":{}}',
      '{"key":"foo","value":null}',
      '{"key":"foo"}',
      '{"key":"foo","value":true}',
      '{"key":null}',
    ],
    invalidObjects: [
      '{"key":true,"value":1}',
      '{"key":1,"value":{}}',
      '{"key":false,"value":null}',
      '{"key":[1, 2]}',
      '{"key":{"foo":true}}',
    ],
  },
  {
    name: 'struct grab bag',
    rootTypeName: 'myStruct',
    schema:
      'types:\n- name: myStruct\n  map:\n    fields:\n    - name: numeric\n      type:\n        scalar: numeric\n    - name: string\n      type:\n        scalar: string\n    - name: bool\n      type:\n        scalar: boolean\n    - name: setStr\n      type:\n        list:\n          elementType:\n            scalar: string\n          elementRelationship: associative\n    - name: setBool\n      type:\n        list:\n          elementType:\n            scalar: boolean\n          elementRelationship: associative\n    - name: setNumeric\n      type:\n        list:\n          elementType:\n            scalar: numeric\n          elementRelationship: associative\n',
    validObjects: [
      '{"numeric":null}',
      '{"numeric":1}',
      '{"numeric":3.14159}',
      '{"string":null}',
      '{"string":"aoeu"}',
      '{"bool":null}',
      '{"bool":true}',
      '{"bool":false}',
      '{"setStr":["a","b","c"]}',
      '{"setBool":[true,false]}',
      '{"setNumeric":[1,2,3,3.14159]}',
    ],
    invalidObjects: [
      '{"numeric":["foo"]}',
      '{"numeric":{"a":1}}',
      '{"numeric":"foo"}',
      '{"numeric":true}',
      '{"string":1}',
      '{"string":3.5}',
      '{"string":true}',
      '{"string":{"a":1}}',
      '{"string":["foo"]}',
      '{"bool":1}',
      '{"bool":3.5}',
      '{"bool":"aoeu"}',
      '{"bool":{"a":1}}',
      '{"bool":["foo"]}',
      '{"setStr":[1]}',
      '{"setStr":[true]}',
      '{"setStr":[1.5]}',
      '{"setStr":[null]}',
      '{"setStr":[{}]}',
      '{"setStr":[[]]}',
      '{"setBool":[1]}',
      '{"setBool":[1.5]}',
      '{"setBool":[null]}',
      '{"setBool":[{}]}',
      '{"setBool":[[]]}',
      '{"setBool":["a"]}',
      '{"setNumeric":[null]}',
      '{"setNumeric":[true]}',
      '{"setNumeric":["a"]}',
      '{"setNumeric":[[]]}',
      '{"setNumeric":[{}]}',
    ],
    duplicatesObjects: ['{"setStr":["a","a"]}', '{"setBool":[true,false,true]}', '{"setNumeric":[1,2,3,3.14159,1]}'],
  },
  {
    name: 'associative list',
    rootTypeName: 'myRoot',
    schema:
      'types:\n- name: myRoot\n  map:\n    fields:\n    - name: list\n      type:\n        namedType: myList\n    - name: atomicList\n      type:\n        namedType: mySequence\n- name: myList\n  list:\n    elementType:\n      namedType: myElement\n    elementRelationship: associative\n    keys:\n    - key\n    - id\n- name: mySequence\n  list:\n    elementType:\n      scalar: string\n    elementRelationship: atomic\n- name: myElement\n  map:\n    fields:\n    - name: key\n      type:\n        scalar: string\n    - name: id\n      type:\n        scalar: numeric\n    - name: value\n      type:\n        namedType: myValue\n    - name: bv\n      type:\n        scalar: boolean\n    - name: nv\n      type:\n        scalar: numeric\n- name: myValue\n  map:\n    elementType:\n      scalar: string\n',
    validObjects: [
      '{"list":[]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}',
      '{"atomicList":["a","a","a"]}',
      '{"list":[{"key":"x","value":{"a":"a"},"bv":true,"nv":3.14}]}',
    ],
    invalidObjects: [
      '{"key":true,"value":1}',
      '{"list":{"key":true,"value":1}}',
      '{"list":true}',
      'true',
      '{"list":[{"key":true,"value":1}]}',
      '{"list":[{"key":[],"value":1}]}',
      '{"list":[{"key":{},"value":1}]}',
      '{"list":[{"key":1.5,"value":1}]}',
      '{"list":[{"key":1,"value":1}]}',
      '{"list":[{"key":null,"value":1}]}',
      '{"list":[{},{}]}',
      '{"list":[{},null]}',
      '{"list":[[]]}',
      '{"list":[null]}',
      '{"list":[{}]}',
      '{"list":[{"value":{"a":"a"},"bv":true,"nv":3.14}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":1}}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"},"bv":"true","nv":3.14}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"},"bv":true,"nv":false}]}',
    ],
    duplicatesObjects: ['{"list":[{"key":"a","id":1},{"key":"a","id":1}]}'],
  },
];

describe('validate (SMD validate_test)', () => {
  for (const tt of validationCases) {
    describe(tt.name, () => {
      const type = typeOf(tt.schema, tt.rootTypeName);
      (tt.validObjects ?? []).forEach((v, i) => {
        it(`${tt.name}-valid-${i}`, () => expect(validate(type, y(v))).toEqual([]));
      });
      (tt.invalidObjects ?? []).forEach((v, i) => {
        it(`${tt.name}-invalid-${i}`, () => {
          const errs = validate(type, y(v));
          expect(errs.length).toBeGreaterThan(0);
          // Errors should be useful.
          expect(errs.map(validationErrorString).join('\n')).not.toContain('invalid atom');
        });
      });
      (tt.duplicatesObjects ?? []).forEach((v, i) => {
        it(`${tt.name}-duplicates-${i}`, () => {
          const errs = validate(type, y(v));
          expect(errs.length).toBeGreaterThan(0);
          expect(errs.map(validationErrorString).join('\n')).not.toContain('invalid atom');
          expect(validate(type, y(v), { allowDuplicates: true })).toEqual([]);
        });
      });
    });
  }
});

describe('validate messages (as SMD prints them)', () => {
  const schema = `types:
- name: root
  map:
    fields:
    - name: list
      type:
        list:
          elementType:
            namedType: item
          elementRelationship: associative
          keys: [key, id]
    - name: set
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: count
      type:
        scalar: numeric
    - name: name
      type:
        scalar: string
- name: item
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: id
      type:
        scalar: numeric
    - name: value
      type:
        scalar: string
`;
  const type = typeOf(schema, 'root');
  const messages = (v: unknown) => validate(type, v).map(validationErrorString);

  it('reports duplicate map-list items and set values at the list', () => {
    expect(
      messages({
        list: [
          { key: 'a', id: 1 },
          { key: 'a', id: 1, value: 'x' },
        ],
      }),
    ).toEqual(['.list: duplicate entries for key [id=1,key="a"]']);
    expect(messages({ set: ['a', 'b', 'a'] })).toEqual(['.set: duplicate entries for key [="a"]']);
  });
  it('reports items that cannot be identified', () => {
    expect(messages({ list: [{ value: 'x' }] })).toEqual([
      '.list: element 0: associative list with keys has an element that omits all key fields ["key" "id"] (and doesn\'t have default values for any key fields)',
    ]);
    expect(messages({ list: [null] })).toEqual(['.list: element 0: associative list with keys may not have a null element']);
    expect(messages({ set: [{ a: 1 }] })).toEqual([".set: element 0: associative list without keys has an element that's a map type"]);
  });
  it('reports undeclared fields and wrong scalar kinds, with the path', () => {
    expect(messages({ nope: 1 })).toEqual(['.nope: field not declared in schema']);
    expect(messages({ count: 'x' })).toEqual(['.count: expected numeric (int or float), got string']);
    expect(messages({ list: [{ key: 'a', id: 1, value: 2 }] })).toEqual([
      '.list[id=1,key="a"].value: expected string, got &value.valueUnstructured{Value:2}',
    ]);
  });
  it('joins several errors as SMD does', () => {
    const errs = validate(type, { count: 'x', name: 1 });
    expect(new ValidationErrors(errs).message).toBe(
      'errors:\n  .count: expected numeric (int or float), got string\n  .name: expected string, got &value.valueUnstructured{Value:1}',
    );
  });
});
