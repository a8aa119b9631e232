import { describe, expect, it } from 'vitest';
import type { FieldSet } from '../fieldpath/set.ts';
import { type Comparison, compare, excludeFields } from './compare.ts';
import { KBF, NS, P, typeOf, V, y } from './test-support/smd.ts';
import { validate } from './validate.ts';

// SMD typed/symdiff_test.go (symdiffCases), as data. Every case runs both ways: removed and added swap.
interface SymdiffQuint {
  lhs: string;
  rhs: string;
  removed: FieldSet;
  modified: FieldSet;
  added: FieldSet;
}
interface SymdiffTestCase {
  name: string;
  rootTypeName: string;
  schema: string;
  quints: SymdiffQuint[];
}

const symdiffCases: SymdiffTestCase[] = [
  {
    name: 'simple pair',
    rootTypeName: 'stringPair',
    schema:
      'types:\n- name: stringPair\n  map:\n    fields:\n    - name: key\n      type:\n        scalar: string\n    - name: value\n      type:\n        namedType: __untyped_atomic_\n- name: __untyped_atomic_\n  scalar: untyped\n  list:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n  map:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n',
    quints: [
      {
        lhs: '{"key":"foo","value":1}',
        rhs: '{"key":"foo","value":1}',
        removed: NS(),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"key":"foo","value":{}}',
        rhs: '{"key":"foo","value":1}',
        removed: NS(),
        modified: NS(P('value')),
        added: NS(),
      },
      {
        lhs: '{"key":"foo","value":1}',
        rhs: '{"key":"foo","value":{}}',
        removed: NS(),
        modified: NS(P('value')),
        added: NS(),
      },
      {
        lhs: '{"key":"foo","value":1}',
        rhs: '{"key":"foo","value":{"doesn\'t matter":"what\'s here","or":{"how":"nested"}}}',
        removed: NS(),
        modified: NS(P('value')),
        added: NS(),
      },
      {
        lhs: '{"key":"foo","value":null}',
        rhs: '{"key":"foo","value":{}}',
        removed: NS(),
        modified: NS(P('value')),
        added: NS(),
      },
      {
        lhs: '{"key":"foo"}',
        rhs: '{"value":true}',
        removed: NS(P('key')),
        modified: NS(),
        added: NS(P('value')),
      },
      {
        lhs: '{"key":"foot"}',
        rhs: '{"key":"foo","value":true}',
        removed: NS(),
        modified: NS(P('key')),
        added: NS(P('value')),
      },
    ],
  },
  {
    name: 'null/empty map',
    rootTypeName: 'nestedMap',
    schema:
      'types:\n- name: nestedMap\n  map:\n    fields:\n    - name: inner\n      type:\n        map:\n          elementType:\n            namedType: __untyped_atomic_\n- name: __untyped_atomic_\n  scalar: untyped\n  list:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n  map:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n',
    quints: [
      {
        lhs: '{}',
        rhs: '{"inner":{}}',
        removed: NS(),
        modified: NS(),
        added: NS(P('inner')),
      },
      {
        lhs: '{}',
        rhs: '{"inner":null}',
        removed: NS(),
        modified: NS(),
        added: NS(P('inner')),
      },
      {
        lhs: '{"inner":null}',
        rhs: '{"inner":{}}',
        removed: NS(),
        modified: NS(P('inner')),
        added: NS(),
      },
      {
        lhs: '{"inner":{}}',
        rhs: '{"inner":null}',
        removed: NS(),
        modified: NS(P('inner')),
        added: NS(),
      },
      {
        lhs: '{"inner":{}}',
        rhs: '{"inner":{}}',
        removed: NS(),
        modified: NS(),
        added: NS(),
      },
    ],
  },
  {
    name: 'null/empty struct',
    rootTypeName: 'nestedStruct',
    schema:
      'types:\n- name: nestedStruct\n  map:\n    fields:\n    - name: inner\n      type:\n        map:\n          fields:\n          - name: value\n            type:\n              namedType: __untyped_atomic_\n',
    quints: [
      {
        lhs: '{}',
        rhs: '{"inner":{}}',
        removed: NS(),
        modified: NS(),
        added: NS(P('inner')),
      },
      {
        lhs: '{}',
        rhs: '{"inner":null}',
        removed: NS(),
        modified: NS(),
        added: NS(P('inner')),
      },
      {
        lhs: '{"inner":null}',
        rhs: '{"inner":{}}',
        removed: NS(),
        modified: NS(P('inner')),
        added: NS(),
      },
      {
        lhs: '{"inner":{}}',
        rhs: '{"inner":null}',
        removed: NS(),
        modified: NS(P('inner')),
        added: NS(),
      },
      {
        lhs: '{"inner":{}}',
        rhs: '{"inner":{}}',
        removed: NS(),
        modified: NS(),
        added: NS(),
      },
    ],
  },
  {
    name: 'null/empty list',
    rootTypeName: 'nestedList',
    schema:
      'types:\n- name: nestedList\n  map:\n    fields:\n    - name: inner\n      type:\n        list:\n          elementType:\n            namedType: __untyped_atomic_\n          elementRelationship: atomic\n- name: __untyped_atomic_\n  scalar: untyped\n  list:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n  map:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n',
    quints: [
      {
        lhs: '{}',
        rhs: '{"inner":[]}',
        removed: NS(),
        modified: NS(),
        added: NS(P('inner')),
      },
      {
        lhs: '{}',
        rhs: '{"inner":null}',
        removed: NS(),
        modified: NS(),
        added: NS(P('inner')),
      },
      {
        lhs: '{"inner":null}',
        rhs: '{"inner":[]}',
        removed: NS(),
        modified: NS(P('inner')),
        added: NS(),
      },
      {
        lhs: '{"inner":[]}',
        rhs: '{"inner":null}',
        removed: NS(),
        modified: NS(P('inner')),
        added: NS(),
      },
      {
        lhs: '{"inner":[]}',
        rhs: '{"inner":[]}',
        removed: NS(),
        modified: NS(),
        added: NS(),
      },
    ],
  },
  {
    name: 'map merge',
    rootTypeName: 'nestedMap',
    schema: 'types:\n- name: nestedMap\n  map:\n    elementType:\n      namedType: nestedMap\n',
    quints: [
      {
        lhs: '{"a":{},"b":{}}',
        rhs: '{"a":{},"b":{}}',
        removed: NS(),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"a":{}}',
        rhs: '{"b":{}}',
        removed: NS(P('a')),
        modified: NS(),
        added: NS(P('b')),
      },
      {
        lhs: '{"a":{"b":{"c":{}}}}',
        rhs: '{"a":{"b":{}}}',
        removed: NS(P('a', 'b', 'c')),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"a":{}}',
        rhs: '{"a":{"b":{}}}',
        removed: NS(),
        modified: NS(),
        added: NS(P('a', 'b')),
      },
    ],
  },
  {
    name: 'untyped deduced',
    rootTypeName: '__untyped_deduced_',
    schema:
      'types:\n- name: __untyped_atomic_\n  scalar: untyped\n  list:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n  map:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n- name: __untyped_deduced_\n  scalar: untyped\n  list:\n    elementType:\n      namedType: __untyped_atomic_\n    elementRelationship: atomic\n  map:\n    elementType:\n      namedType: __untyped_deduced_\n    elementRelationship: separable\n',
    quints: [
      {
        lhs: '{"a":{}}}',
        rhs: '{"a":{"b":{}}}',
        removed: NS(),
        modified: NS(),
        added: NS(P('a', 'b')),
      },
      {
        lhs: '{"a":null}',
        rhs: '{"a":{"b":{}}}',
        removed: NS(),
        modified: NS(),
        added: NS(P('a', 'b')),
      },
      {
        lhs: '{"a":{"b":{}}}',
        rhs: '{"a":{}}}',
        removed: NS(P('a', 'b')),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"a":{"b":{}}}',
        rhs: '{"a":null}',
        removed: NS(P('a', 'b')),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"a":[]}',
        rhs: '{"a":["b"]}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":null}',
        rhs: '{"a":["b"]}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":["b"]}',
        rhs: '{"a":[]}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":["b"]}',
        rhs: '{"a":null}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":null}',
        rhs: '{"a":"b"}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":"b"}',
        rhs: '{"a":null}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":{"b":{}}}',
        rhs: '{"a":["b"]}}',
        removed: NS(P('a', 'b')),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":["b"]}}',
        rhs: '{"a":{"b":{}}}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(P('a', 'b')),
      },
      {
        lhs: '{"a":{"b":{}}}',
        rhs: '{"a":"b"}',
        removed: NS(P('a', 'b')),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":"b"}',
        rhs: '{"a":{"b":{}}}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(P('a', 'b')),
      },
      {
        lhs: '{"a":["b"]}}',
        rhs: '{"a":"b"}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":"b"}',
        rhs: '{"a":["b"]}}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(),
      },
    ],
  },
  {
    name: 'untyped separable',
    rootTypeName: '__untyped_separable_',
    schema:
      'types:\n- name: __untyped_separable_\n  scalar: untyped\n  list:\n    elementType:\n      namedType: __untyped_separable_\n    elementRelationship: associative\n  map:\n    elementType:\n      namedType: __untyped_separable_\n    elementRelationship: separable\n',
    quints: [
      {
        lhs: '{"a":{}}}',
        rhs: '{"a":{"b":{}}}',
        removed: NS(),
        modified: NS(),
        added: NS(P('a', 'b')),
      },
      {
        lhs: '{"a":null}',
        rhs: '{"a":{"b":{}}}',
        removed: NS(),
        modified: NS(),
        added: NS(P('a', 'b')),
      },
      {
        lhs: '{"a":{"b":{}}}',
        rhs: '{"a":{}}}',
        removed: NS(P('a', 'b')),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"a":{"b":{}}}',
        rhs: '{"a":null}',
        removed: NS(P('a', 'b')),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"a":[]}',
        rhs: '{"a":["b"]}',
        removed: NS(),
        modified: NS(),
        added: NS(P('a', V('b'))),
      },
      {
        lhs: '{"a":null}',
        rhs: '{"a":["b"]}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(P('a', V('b'))),
      },
      {
        lhs: '{"a":["b"]}',
        rhs: '{"a":[]}',
        removed: NS(P('a', V('b'))),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"a":["b"]}',
        rhs: '{"a":null}',
        removed: NS(P('a', V('b'))),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":null}',
        rhs: '{"a":"b"}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":"b"}',
        rhs: '{"a":null}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":{"b":{}}}',
        rhs: '{"a":["b"]}}',
        removed: NS(P('a', 'b')),
        modified: NS(),
        added: NS(P('a', V('b'))),
      },
      {
        lhs: '{"a":["b"]}}',
        rhs: '{"a":{"b":{}}}',
        removed: NS(P('a', V('b'))),
        modified: NS(),
        added: NS(P('a', 'b')),
      },
      {
        lhs: '{"a":{"b":{}}}',
        rhs: '{"a":"b"}',
        removed: NS(P('a', 'b')),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":"b"}',
        rhs: '{"a":{"b":{}}}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(P('a', 'b')),
      },
      {
        lhs: '{"a":["b"]}}',
        rhs: '{"a":"b"}',
        removed: NS(P('a', V('b'))),
        modified: NS(P('a')),
        added: NS(),
      },
      {
        lhs: '{"a":"b"}',
        rhs: '{"a":["b"]}}',
        removed: NS(),
        modified: NS(P('a')),
        added: NS(P('a', V('b'))),
      },
    ],
  },
  {
    name: 'struct grab bag',
    rootTypeName: 'myStruct',
    schema:
      'types:\n- name: myStruct\n  map:\n    fields:\n    - name: numeric\n      type:\n        scalar: numeric\n    - name: string\n      type:\n        scalar: string\n    - name: bool\n      type:\n        scalar: boolean\n    - name: setStr\n      type:\n        list:\n          elementType:\n            scalar: string\n          elementRelationship: associative\n    - name: setBool\n      type:\n        list:\n          elementType:\n            scalar: boolean\n          elementRelationship: associative\n    - name: setNumeric\n      type:\n        list:\n          elementType:\n            scalar: numeric\n          elementRelationship: associative\n',
    quints: [
      {
        lhs: '{"numeric":1}',
        rhs: '{"numeric":3.14159}',
        removed: NS(),
        modified: NS(P('numeric')),
        added: NS(),
      },
      {
        lhs: '{"numeric":3.14159}',
        rhs: '{"numeric":1}',
        removed: NS(),
        modified: NS(P('numeric')),
        added: NS(),
      },
      {
        lhs: '{"string":"aoeu"}',
        rhs: '{"bool":true}',
        removed: NS(P('string')),
        modified: NS(),
        added: NS(P('bool')),
      },
      {
        lhs: '{"setStr":["a","b"]}',
        rhs: '{"setStr":["a","b","c"]}',
        removed: NS(),
        modified: NS(),
        added: NS(P('setStr', V('c'))),
      },
      {
        lhs: '{"setStr":["a"]}',
        rhs: '{"setStr":["a","b","b"]}',
        removed: NS(),
        modified: NS(),
        added: NS(P('setStr', V('b'))),
      },
      {
        lhs: '{"setStr":["a","b"]}',
        rhs: '{"setStr":["a","b","b"]}',
        removed: NS(P('setStr', V('b'))),
        modified: NS(),
        added: NS(P('setStr', V('b'))),
      },
      {
        lhs: '{"setStr":["b","b"]}',
        rhs: '{"setStr":["a","b","b"]}',
        removed: NS(),
        modified: NS(),
        added: NS(P('setStr', V('a'))),
      },
      {
        lhs: '{"setStr":["a","b","c"]}',
        rhs: '{"setStr":[]}',
        removed: NS(P('setStr', V('a')), P('setStr', V('b')), P('setStr', V('c'))),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"setBool":[true]}',
        rhs: '{"setBool":[false]}',
        removed: NS(P('setBool', V(true))),
        modified: NS(),
        added: NS(P('setBool', V(false))),
      },
      {
        lhs: '{"setNumeric":[1,2,3.14159]}',
        rhs: '{"setNumeric":[1,2,3]}',
        // biome-ignore lint/suspicious/noApproximativeNumericConstant: SMD's test value
        removed: NS(P('setNumeric', V(3.14159))),
        modified: NS(),
        added: NS(P('setNumeric', V(3))),
      },
      {
        lhs: '{"setStr":["a","b","b","c","a"]}',
        rhs: '{"setStr":[]}',
        removed: NS(P('setStr', V('a')), P('setStr', V('b')), P('setStr', V('c'))),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"setBool":[true,true]}',
        rhs: '{"setBool":[false]}',
        removed: NS(P('setBool', V(true))),
        modified: NS(),
        added: NS(P('setBool', V(false))),
      },
      {
        lhs: '{"setNumeric":[1,2,2,3.14159,1]}',
        rhs: '{"setNumeric":[1,2,3]}',
        // biome-ignore lint/suspicious/noApproximativeNumericConstant: SMD's test value
        removed: NS(P('setNumeric', V(1)), P('setNumeric', V(2)), P('setNumeric', V(3.14159))),
        modified: NS(),
        added: NS(P('setNumeric', V(1)), P('setNumeric', V(2)), P('setNumeric', V(3))),
      },
    ],
  },
  {
    name: 'associative list',
    rootTypeName: 'myRoot',
    schema:
      'types:\n- name: myRoot\n  map:\n    fields:\n    - name: list\n      type:\n        namedType: myList\n    - name: atomicList\n      type:\n        namedType: mySequence\n- name: myList\n  list:\n    elementType:\n      namedType: myElement\n    elementRelationship: associative\n    keys:\n    - key\n    - id\n- name: mySequence\n  list:\n    elementType:\n      scalar: string\n    elementRelationship: atomic\n- name: myElement\n  map:\n    fields:\n    - name: key\n      type:\n        scalar: string\n    - name: id\n      type:\n        scalar: numeric\n    - name: value\n      type:\n        namedType: myValue\n    - name: bv\n      type:\n        scalar: boolean\n    - name: nv\n      type:\n        scalar: numeric\n- name: myValue\n  map:\n    elementType:\n      scalar: string\n',
    quints: [
      {
        lhs: '{}',
        rhs: '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
        removed: NS(),
        modified: NS(),
        added: NS(
          P('list'),
          P('list', KBF('key', 'a', 'id', 1)),
          P('list', KBF('key', 'a', 'id', 1), 'key'),
          P('list', KBF('key', 'a', 'id', 1), 'id'),
          P('list', KBF('key', 'a', 'id', 1), 'value'),
          P('list', KBF('key', 'a', 'id', 1), 'value', 'a'),
        ),
      },
      {
        lhs: '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
        rhs: '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
        removed: NS(),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
        rhs: '{"list":[{"key":"a","id":1,"value":{"a":"b"}}]}',
        removed: NS(),
        modified: NS(P('list', KBF('key', 'a', 'id', 1), 'value', 'a')),
        added: NS(),
      },
      {
        lhs: '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
        rhs: '{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}',
        removed: NS(
          P('list', KBF('key', 'a', 'id', 1)),
          P('list', KBF('key', 'a', 'id', 1), 'key'),
          P('list', KBF('key', 'a', 'id', 1), 'id'),
          P('list', KBF('key', 'a', 'id', 1), 'value'),
          P('list', KBF('key', 'a', 'id', 1), 'value', 'a'),
        ),
        modified: NS(),
        added: NS(
          P('list', KBF('key', 'a', 'id', 2)),
          P('list', KBF('key', 'a', 'id', 2), 'key'),
          P('list', KBF('key', 'a', 'id', 2), 'id'),
          P('list', KBF('key', 'a', 'id', 2), 'value'),
          P('list', KBF('key', 'a', 'id', 2), 'value', 'a'),
        ),
      },
      {
        lhs: '{"list":[{"key":"a","id":1},{"key":"b","id":1}]}',
        rhs: '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}',
        removed: NS(
          P('list', KBF('key', 'b', 'id', 1)),
          P('list', KBF('key', 'b', 'id', 1), 'key'),
          P('list', KBF('key', 'b', 'id', 1), 'id'),
        ),
        modified: NS(),
        added: NS(
          P('list', KBF('key', 'a', 'id', 2)),
          P('list', KBF('key', 'a', 'id', 2), 'key'),
          P('list', KBF('key', 'a', 'id', 2), 'id'),
        ),
      },
      {
        lhs: '{"atomicList":["a","a","a"]}',
        rhs: '{"atomicList":null}',
        removed: NS(),
        modified: NS(P('atomicList')),
        added: NS(),
      },
      {
        lhs: '{"atomicList":["a","b","c"]}',
        rhs: '{"atomicList":[]}',
        removed: NS(),
        modified: NS(P('atomicList')),
        added: NS(),
      },
      {
        lhs: '{"atomicList":["a","a","a"]}',
        rhs: '{"atomicList":["a","a"]}',
        removed: NS(),
        modified: NS(P('atomicList')),
        added: NS(),
      },
      {
        lhs: '{"list":[{"key":"a","id":1,"nv":2},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
        rhs: '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}',
        removed: NS(
          P('list', KBF('key', 'b', 'id', 1)),
          P('list', KBF('key', 'b', 'id', 1), 'key'),
          P('list', KBF('key', 'b', 'id', 1), 'id'),
          P('list', KBF('key', 'a', 'id', 1)),
        ),
        modified: NS(),
        added: NS(
          P('list', KBF('key', 'a', 'id', 1)),
          P('list', KBF('key', 'a', 'id', 1), 'key'),
          P('list', KBF('key', 'a', 'id', 1), 'id'),
          P('list', KBF('key', 'a', 'id', 2)),
          P('list', KBF('key', 'a', 'id', 2), 'key'),
          P('list', KBF('key', 'a', 'id', 2), 'id'),
        ),
      },
      {
        lhs: '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
        rhs: '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true,"nv":1}]}',
        removed: NS(),
        modified: NS(P('list', KBF('key', 'a', 'id', 1))),
        added: NS(),
      },
      {
        lhs: '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
        rhs: '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
        removed: NS(),
        modified: NS(),
        added: NS(),
      },
      {
        lhs: '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
        rhs: '{"list":[{"key":"a","id":1},{"key":"b","id":1,"bv":true},{"key":"a","id":1,"bv":true}]}',
        removed: NS(),
        modified: NS(),
        added: NS(P('list', KBF('key', 'b', 'id', 1), 'bv')),
      },
      {
        lhs: '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
        rhs: '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}],"atomicList":["unrelated"]}',
        removed: NS(),
        modified: NS(),
        added: NS(P('atomicList')),
      },
    ],
  },
];

const show = (s: FieldSet) => `\n${s}`;

describe('compare (SMD symdiff_test)', () => {
  for (const tt of symdiffCases) {
    describe(tt.name, () => {
      tt.quints.forEach((q, i) => {
        it(`${tt.name}-valid-${i}`, () => {
          const type = typeOf(tt.schema, tt.rootTypeName);
          const lhs = y(q.lhs);
          const rhs = y(q.rhs);
          expect(validate(type, lhs, { allowDuplicates: true })).toEqual([]);
          expect(validate(type, rhs, { allowDuplicates: true })).toEqual([]);
          const got = compare(type, lhs, rhs);
          expect(got.added.equals(q.added), `added${show(got.added)}`).toBe(true);
          expect(got.modified.equals(q.modified), `modified${show(got.modified)}`).toBe(true);
          expect(got.removed.equals(q.removed), `removed${show(got.removed)}`).toBe(true);
          const back = compare(type, rhs, lhs);
          expect(back.modified.equals(got.modified), `reverse modified${show(back.modified)}`).toBe(true);
          expect(back.removed.equals(got.added), `reverse removed${show(back.removed)}`).toBe(true);
          expect(back.added.equals(got.removed), `reverse added${show(back.added)}`).toBe(true);
        });
      });
    });
  }
});

// SMD typed/comparison_test.go.
describe('excludeFields (SMD comparison_test)', () => {
  const c = (a: FieldSet, m: FieldSet, r: FieldSet): Comparison => ({ added: a, modified: m, removed: r });
  const cases: { name: string; comparison: Comparison; remove: FieldSet | undefined; expect: Comparison }[] = [
    {
      name: 'works on nil set',
      comparison: c(NS(P('a')), NS(P('b')), NS(P('c'))),
      remove: undefined,
      expect: c(NS(P('a')), NS(P('b')), NS(P('c'))),
    },
    {
      name: 'works on empty set',
      comparison: c(NS(P('a')), NS(P('b')), NS(P('c'))),
      remove: NS(),
      expect: c(NS(P('a')), NS(P('b')), NS(P('c'))),
    },
    {
      name: 'removes from entire object',
      comparison: c(NS(P('a', 'aa')), NS(P('b', 'ba')), NS(P('c', 'ca'))),
      remove: NS(P('a'), P('b'), P('c')),
      expect: c(NS(), NS(), NS()),
    },
  ];
  for (const t of cases) {
    it(t.name, () => {
      const got = excludeFields(t.comparison, t.remove);
      expect(got.added.equals(t.expect.added) && got.modified.equals(t.expect.modified) && got.removed.equals(t.expect.removed)).toBe(true);
    });
  }
});
