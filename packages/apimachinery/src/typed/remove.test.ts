import { describe, expect, it } from 'vitest';
import type { FieldSet } from '../fieldpath/set.ts';
import { jsonEqual } from '../json-data.ts';
import { merge } from './merge.ts';
import { extractItems, removeItems } from './remove.ts';
import { KBF, NS, P, typeOf, V, y } from './test-support/smd.ts';
import { toFieldSet } from './to-field-set.ts';
import { validate } from './validate.ts';

// SMD typed/remove_test.go (removeCases, reversibleExtractCases, extractWithKeysCases), as data.

const simplePairSchema = `types:
- name: stringPair
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: value
      type:
        namedType: __untyped_atomic_
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`;

const structGrabBagSchema = `types:
- name: myStruct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
    - name: bool
      type:
        scalar: boolean
    - name: setStr
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: setBool
      type:
        list:
          elementType:
            scalar: boolean
          elementRelationship: associative
    - name: setNumeric
      type:
        list:
          elementType:
            scalar: numeric
          elementRelationship: associative
`;

const associativeAndAtomicSchema = `types:
- name: myRoot
  map:
    fields:
    - name: list
      type:
        namedType: myList
    - name: atomicList
      type:
        namedType: mySequence
    - name: atomicMap
      type:
        namedType: myAtomicMap
    - name: atomicElementList
      type:
        namedType: myAtomicElementList
- name: myList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - key
    - id
- name: myAtomicMap
  map:
    fields:
    - name: id
      type:
        scalar: string
    elementType:
      scalar: string
    elementRelationship: atomic
- name: myAtomicElementList
  list:
    elementType:
      namedType: myAtomicMap
    elementRelationship: associative
    keys:
    - id
- name: mySequence
  list:
    elementType:
      scalar: string
    elementRelationship: atomic
- name: myElement
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
        namedType: myValue
    - name: bv
      type:
        scalar: boolean
    - name: nv
      type:
        scalar: numeric
- name: myValue
  map:
    elementType:
      scalar: string
`;

const nestedTypesSchema = `types:
- name: type
  map:
    fields:
      - name: listOfLists
        type:
          namedType: listOfLists
      - name: listOfMaps
        type:
          namedType: listOfMaps
      - name: mapOfLists
        type:
          namedType: mapOfLists
      - name: mapOfMaps
        type:
          namedType: mapOfMaps
      - name: mapOfMapsRecursive
        type:
          namedType: mapOfMapsRecursive
      - name: struct
        type:
          namedType: struct
- name: struct
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: value
      type:
        scalar: number
- name: listOfLists
  list:
    elementType:
      map:
        fields:
        - name: name
          type:
            scalar: string
        - name: value
          type:
            namedType: list
    elementRelationship: associative
    keys:
    - name
- name: list
  list:
    elementType:
      scalar: string
    elementRelationship: associative
- name: listOfMaps
  list:
    elementType:
      map:
        fields:
        - name: name
          type:
            scalar: string
        - name: value
          type:
            namedType: map
    elementRelationship: associative
    keys:
    - name
- name: map
  map:
    elementType:
      scalar: string
    elementRelationship: associative
- name: mapOfLists
  map:
    elementType:
      namedType: list
    elementRelationship: associative
- name: mapOfMaps
  map:
    elementType:
      namedType: map
    elementRelationship: associative
- name: mapOfMapsRecursive
  map:
    elementType:
      namedType: mapOfMapsRecursive
    elementRelationship: associative
`;

interface RemoveTestCase {
  name: string;
  rootTypeName: string;
  schema: string;
  quadruplets: [object: string, set: FieldSet, removeOutput: string, extractOutput: string][];
}

const removeCases: RemoveTestCase[] = [
  {
    name: 'simple pair',
    rootTypeName: 'stringPair',
    schema: simplePairSchema,
    quadruplets: [
      ['{"key":"foo"}', NS(P('key')), '', '{"key":"foo"}'],
      ['{"key":"foo"}', NS(), '{"key":"foo"}', ''],
      ['{"key":"foo","value":true}', NS(P('key')), '{"value":true}', '{"key":"foo"}'],
      ['{"key":"foo","value":{"a": "b"}}', NS(P('value')), '{"key":"foo"}', '{"value":{"a": "b"}}'],
    ],
  },
  {
    name: 'struct grab bag',
    rootTypeName: 'myStruct',
    schema: structGrabBagSchema,
    quadruplets: [
      ['{"setBool":[false]}', NS(P('setBool', V(false))), '{"setBool":null}', '{"setBool":[false]}'],
      ['{"setBool":[false]}', NS(P('setBool', V(true))), '{"setBool":[false]}', '{"setBool":null}'],
      ['{"setBool":[true,false]}', NS(P('setBool', V(true))), '{"setBool":[false]}', '{"setBool":[true]}'],
      ['{"setBool":[true,false]}', NS(P('setBool')), '', '{"setBool":null}'],
      ['{"setNumeric":[1,2,3,4.5]}', NS(P('setNumeric', V(1)), P('setNumeric', V(4.5))), '{"setNumeric":[2,3]}', '{"setNumeric":[1,4.5]}'],
      ['{"setStr":["a","b","c"]}', NS(P('setStr', V('a'))), '{"setStr":["b","c"]}', '{"setStr":["a"]}'],
    ],
  },
  {
    name: 'associative and atomic',
    rootTypeName: 'myRoot',
    schema: associativeAndAtomicSchema,
    quadruplets: [
      [
        '{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}',
        NS(P('list', KBF('key', 'a', 'id', 1), 'key'), P('list', KBF('key', 'a', 'id', 1), 'id')),
        'unparseable',
        '{"list":[{"key":"a","id":1}]}',
      ],
      [
        '{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}',
        NS(P('list', KBF('key', 'a', 'id', 1))),
        '{"list":[{"key":"a","id":2},{"key":"b","id":1}]}',
        'unparseable',
      ],
      ['{"atomicList":["a", "a", "a"]}', NS(P('atomicList')), '', '{"atomicList":["a", "a", "a"]}'],
      ['{"atomicMap":{"a": "c", "b": "d"}}', NS(P('atomicMap')), '', '{"atomicMap":{"a": "c", "b": "d"}}'],
    ],
  },
  {
    name: 'nested types',
    rootTypeName: 'type',
    schema: nestedTypesSchema,
    quadruplets: [
      [
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        NS(
          P('listOfLists', KBF('name', 'a'), 'name'),
          P('listOfLists', KBF('name', 'a'), 'value', V('b')),
          P('listOfLists', KBF('name', 'a'), 'value', V('c')),
          P('listOfLists', KBF('name', 'd'), 'name'),
        ),
        'unparseable',
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
      ],
      ['{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}', NS(P('listOfLists')), '', '{"listOfLists": null}'],
      [
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        NS(P('listOfLists', KBF('name', 'd'), 'name')),
        'unparseable',
        '{"listOfLists": [{"name": "d"}]}',
      ],
      [
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        NS(P('listOfLists', KBF('name', 'd'))),
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}]}',
        'unparseable',
      ],
      [
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        NS(P('listOfLists', KBF('name', 'a'), 'name')),
        'unparseable',
        '{"listOfLists": [{"name": "a"}]}',
      ],
      [
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        NS(P('listOfLists', KBF('name', 'a'))),
        '{"listOfLists": [{"name": "d"}]}',
        'unparseable',
      ],
      [
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        NS(P('listOfLists', KBF('name', 'a'), 'value', V('b'))),
        '{"listOfLists": [{"name":"a", "value": ["c"]}, {"name": "d"}]}',
        'unparseable',
      ],
      [
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        NS(P('listOfLists', KBF('name', 'a'), 'name'), P('listOfLists', KBF('name', 'a'), 'value', V('b'))),
        'unparseable',
        '{"listOfLists": [{"name": "a", "value": ["b"]}]}',
      ],
      [
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        NS(P('listOfLists', KBF('name', 'x'))),
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        '{"listOfLists":null}',
      ],
      [
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        NS(P('listOfLists', KBF('name', 'a'), 'value', V('x'))),
        '{"listOfLists": [{"name":"a", "value": ["b","c"]}, {"name": "d"}]}',
        'unparseable',
      ],
      [
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        NS(P('listOfLists', KBF('name', 'a'), 'name'), P('listOfLists', KBF('name', 'a'), 'value', V('x'))),
        'unparseable',
        'unparseable',
      ],
      [
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        NS(P(V('b'))),
        '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
        '',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        NS(
          P('listOfMaps', KBF('name', 'a'), 'name'),
          P('listOfMaps', KBF('name', 'a'), 'value', 'b'),
          P('listOfMaps', KBF('name', 'a'), 'value', 'c'),
          P('listOfMaps', KBF('name', 'd'), 'name'),
          P('listOfMaps', KBF('name', 'd'), 'value', 'e'),
        ),
        'unparseable',
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        NS(P('listOfMaps')),
        '',
        '{"listOfMaps"}',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        NS(P('listOfMaps', KBF('name', 'a'), 'name')),
        'unparseable',
        '{"listOfMaps": [{"name": "a"}]}',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        NS(P('listOfMaps', KBF('name', 'a'))),
        '{"listOfMaps": [{"name": "d", "value": {"e":"z"}}]}',
        'unparseable',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        NS(P('listOfMaps', KBF('name', 'a'), 'value', 'b')),
        '{"listOfMaps": [{"name": "a", "value": {"c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        'unparseable',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        NS(P('listOfMaps', KBF('name', 'a'), 'name'), P('listOfMaps', KBF('name', 'a'), 'value', 'b')),
        'unparseable',
        '{"listOfMaps": [{"name": "a", "value": {"b":"x"}}]}',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        NS(P('listOfMaps', KBF('name', 'q'), 'name')),
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        '{"listOfMaps":null}',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        NS(P('listOfMaps', KBF('name', 'a'), 'value', 'q')),
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        'unparseable',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        NS(P('listOfMaps', KBF('name', 'a'), 'name'), P('listOfMaps', KBF('name', 'a'), 'value', 'q')),
        'unparseable',
        '{"listOfMaps": [{"name":"a", "value": null}]}',
      ],
      [
        '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
        NS(P('mapOfLists', 'b', V('a')), P('mapOfLists', 'b', V('c')), P('mapOfLists', 'd', V('e')), P('mapOfLists', 'd', V('f'))),
        'unparseable',
        '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
      ],
      ['{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}', NS(P('mapOfLists')), '', '{"mapOfLists":null}'],
      [
        '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
        NS(P('mapOfLists', 'b')),
        '{"mapOfLists": {"d":["e", "f"]}}',
        '{"mapOfLists": {"b":null}}',
      ],
      [
        '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
        NS(P('mapOfLists', 'b', V('a'))),
        '{"mapOfLists":{"b":["c"],"d":["e", "f"]}}',
        '{"mapOfLists":{"b":["a"]}}',
      ],
      [
        '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
        NS(P('mapOfLists', 'q')),
        '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
        '{"mapOfLists":null}',
      ],
      [
        '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
        NS(P('mapOfLists', 'b', V('q'))),
        '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
        '{"mapOfLists":{"b":null}}',
      ],
      [
        '{"mapOfLists": {"b":null, "d":["e", "f"]}}',
        NS(P('mapOfLists', 'b')),
        '{"mapOfLists": {"d":["e", "f"]}}',
        '{"mapOfLists":{"b":null}}',
      ],
      ['{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}', NS(P(V('a'))), '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}', ''],
      [
        '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}',
        NS(P('mapOfMaps', 'b', 'a'), P('mapOfMaps', 'b', 'c'), P('mapOfMaps', 'd', 'e'), P('mapOfMaps', 'd', 'f')),
        'unparseable',
        '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}',
      ],
      ['{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}', NS(P('mapOfMaps')), '', '{"mapOfMaps":null}'],
      [
        '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}',
        NS(P('mapOfMaps', 'b')),
        '{"mapOfMaps": {"d":{"e":"y", "f":"w"}}}',
        '{"mapOfMaps": {"b":null}}',
      ],
      [
        '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}',
        NS(P('mapOfMaps', 'b', 'a')),
        '{"mapOfMaps": {"b":{"c":"z"},"d":{"e":"y", "f":"w"}}}',
        '{"mapOfMaps": {"b":{"a":"x"}}}',
      ],
      [
        '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}',
        NS(P('mapOfMaps', 'q')),
        '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}',
        '{"mapOfMaps": null}',
      ],
      [
        '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}',
        NS(P('mapOfMaps', 'b', 'q')),
        '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}',
        '{"mapOfMaps": {"b":null}}',
      ],
      [
        '{"mapOfMaps": {"b":null, "d":{"e":"y", "f":"w"}}}',
        NS(P('mapOfMaps', 'b')),
        '{"mapOfMaps": {"d":{"e":"y", "f":"w"}}}',
        '{"mapOfMaps": {"b":null}}',
      ],
      [
        '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}',
        NS(P('a')),
        '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}',
        '',
      ],
      ['{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}', NS(P('mapOfMapsRecursive')), '', '{"mapOfMapsRecursive":null}'],
      [
        '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}',
        NS(P('mapOfMapsRecursive', 'a')),
        '{"mapOfMapsRecursive"}',
        '{"mapOfMapsRecursive": {"a":null}}',
      ],
      [
        '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}',
        NS(P('mapOfMapsRecursive', 'a', 'b')),
        '{"mapOfMapsRecursive":{"a":null}}',
        '{"mapOfMapsRecursive": {"a":{"b":null}}}',
      ],
      [
        '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}',
        NS(P('mapOfMapsRecursive', 'a', 'b', 'c')),
        '{"mapOfMapsRecursive":{"a":{"b":null}}}',
        '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}',
      ],
      ['{"listOfLists": []}', NS(P('listOfLists')), '', '{"listOfLists": []}'],
      ['{"listOfLists": null}', NS(P('listOfLists')), '', '{"listOfLists": null}'],
      ['{"mapOfMaps": {}}', NS(P('mapOfMaps')), '', '{"mapOfMaps": {}}'],
      ['{"mapOfMaps": null}', NS(P('mapOfMaps')), '', '{"mapOfMaps": null}'],
    ],
  },
];

interface ReversibleExtractTestCase {
  name: string;
  rootTypeName: string;
  schema: string;
  pairs: [object: string, pso: string][];
}

const reversibleExtractCases: ReversibleExtractTestCase[] = [
  {
    name: 'nested types',
    rootTypeName: 'type',
    schema: nestedTypesSchema,
    pairs: [
      ['{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}', '{"listOfLists": [{"name": "f", "value": ["j", "k"]},]}'],
      ['{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}', '{"listOfLists": [{"name": "a", "value": ["j", "k"]},]}'],
      ['{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}', '{"listOfLists": [{"name": "a", "value": null},]}'],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        '{"listOfMaps": [{"name": "f", "value": {"q":"p"}}]}',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        '{"listOfMaps": [{"name": "a", "value": {"f":"p"}}]}',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        '{"listOfMaps": [{"name": "a", "value": {"b":"p"}}]}',
      ],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        '{"listOfMaps": [{"name": "a", "value": null}]}',
      ],
      ['{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}', '{"mapOfLists": {"x":["y","z"]}}'],
      ['{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}', '{"mapOfLists": {"b":["y","z"]}}'],
      ['{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}', '{"mapOfLists": {"b":null}}'],
      ['{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}', '{"mapOfMaps": {"i":{"j":"k"}}}'],
      ['{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}', '{"mapOfMaps": {"b":{"j":"k"}}}'],
      ['{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}', '{"mapOfMaps": {"b":{"a":"k"}}}'],
      ['{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}', '{"mapOfMaps": {"b": null}}'],
      [
        '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
        '{"mapOfLists": {"b":["y","z"]}}',
      ],
      [
        '{"mapOfMapsRecursive": {"a":{"b":{"c":null}, "d":{"e":{"f":null}, "g":null}}}}',
        '{"mapOfMapsRecursive": {"a":{"d":{"e":{"f":{"q":null}, "p":null}}}}}',
      ],
      [
        '{"mapOfMapsRecursive": {"a":{"b":{"c":{"d":{"e":{"f":null}}, "g":{"h":null}, "i":null}}}}}',
        '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}',
      ],
    ],
  },
];

interface ExtractWithKeysTestCase {
  name: string;
  rootTypeName: string;
  schema: string;
  triplets: { object: string; set: FieldSet; wantOutput: unknown }[];
}

const extractWithKeysCases: ExtractWithKeysTestCase[] = [
  {
    name: 'associativeAndAtomicSchema',
    rootTypeName: 'myRoot',
    schema: associativeAndAtomicSchema,
    triplets: [
      {
        object: '{"list":[{"key":"nginx","id":1,"nv":2}]}',
        set: NS(P('list', KBF('key', 'nginx', 'id', 1), 'key'), P('list', KBF('key', 'nginx', 'id', 1), 'id')),
        wantOutput: '{"list":[{"key":"nginx","id":1}]}',
      },
      {
        object: '{"list":[{"key":"nginx","id":1,"nv":2}]}',
        set: NS(P('list', KBF('key', 'nginx', 'id', 1), 'nv')),
        wantOutput: '{"list":[{"key":"nginx","id":1, "nv":2}]}',
      },
      {
        object: '{"list":[{"key":"nginx","id":1,"nv":2}]}',
        set: NS(P('list', KBF('key', 'nginx', 'id', 1), 'nv'), P('list', KBF('key', 'nginx', 'id', 1), 'id')),
        wantOutput: '{"list":[{"key":"nginx","id":1, "nv":2}]}',
      },
      {
        // extract with null field value
        object: '{"list":[{"key":"nginx","id":1,"nv":2}]}',
        set: NS(P('list', KBF('key', 'nginx', 'id', 1), 'value')),
        wantOutput: { list: [null] },
      },
      {
        object: '{"atomicElementList":[{"id":"test-123","data":"value","extra":"field"}]}',
        set: NS(P('atomicElementList', KBF('id', 'test-123'))),
        wantOutput: '{"atomicElementList":[{"id":"test-123","data":"value","extra":"field"}]}',
      },
    ],
  },
];

/** value.Equals, where an absent value (an empty YAML document) and null are both SMD's null. */
const same = (a: unknown, b: unknown) => jsonEqual(a ?? null, b ?? null);
const show = (v: unknown) => JSON.stringify(v ?? null);

describe('removeItems / extractItems (SMD remove_test)', () => {
  for (const tt of removeCases) {
    describe(tt.name, () => {
      tt.quadruplets.forEach(([object, set, removeOutput, extractOutput], i) => {
        it(`${tt.name}-valid-${i}`, () => {
          const type = typeOf(tt.schema, tt.rootTypeName);
          const value = y(object);
          expect(validate(type, value)).toEqual([]);
          const before = structuredClone(value);
          if (removeOutput !== 'unparseable') {
            const got = removeItems(type, value, set);
            expect(same(got, y(removeOutput)), `RemoveItems expected ${show(y(removeOutput))} got ${show(got)}`).toBe(true);
          }
          if (extractOutput !== 'unparseable') {
            const got = extractItems(type, value, set);
            expect(same(got, y(extractOutput)), `ExtractItems expected ${show(y(extractOutput))} got ${show(got)}`).toBe(true);
          }
          expect(value).toEqual(before);
        });
      });
    });
  }
});

describe('extractItems reverses a merge (SMD remove_test reversibleExtractCases)', () => {
  for (const tt of reversibleExtractCases) {
    tt.pairs.forEach(([object, psoText], i) => {
      it(`${tt.name}-valid-${i}`, () => {
        const type = typeOf(tt.schema, tt.rootTypeName);
        const pso = y(psoText);
        const merged = merge(type, y(object), pso);
        // Extracting a set takes everything under its first paths: extract the leaves only.
        const got = extractItems(type, merged, toFieldSet(type, pso).leaves());
        expect(same(got, pso), `expected ${show(pso)} got ${show(got)}`).toBe(true);
      });
    });
  }
});

describe('extractItems with key fields (SMD remove_test extractWithKeysCases)', () => {
  for (const tt of extractWithKeysCases) {
    tt.triplets.forEach((c, i) => {
      it(`${tt.name}-valid-${i}`, () => {
        const type = typeOf(tt.schema, tt.rootTypeName);
        const got = extractItems(type, y(c.object), c.set, { appendKeyFields: true });
        const want = typeof c.wantOutput === 'string' ? y(c.wantOutput) : c.wantOutput;
        expect(same(got, want), `expected ${show(want)} got ${show(got)}`).toBe(true);
      });
    });
  }
});
