// Ported as data from structured-merge-diff merge/nested_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _KBF, _NS, _P, _V, type ParserSpec, type Table } from '../test-support/state.ts';

export const nestedTypeParser: ParserSpec = {
  schema: `types:
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
        scalar: numeric
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
`,
  typeName: 'type',
};

export const testUpdateNestedType: Table = {
  parser: nestedTypeParser,
  cases: {
    listOfLists_change_value: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						listOfLists:
						- name: a
						  value:
						  - b
						  - c
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						listOfLists:
						- name: a
						  value:
						  - a
						  - c
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				listOfLists:
				- name: a
				  value:
				  - a
				  - c
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(
            _P('listOfLists', _KBF('name', 'a')),
            _P('listOfLists', _KBF('name', 'a'), 'name'),
            _P('listOfLists', _KBF('name', 'a'), 'value', _V('a')),
            _P('listOfLists', _KBF('name', 'a'), 'value', _V('c')),
          ),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    listOfLists_change_key_and_value: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						listOfLists:
						- name: a
						  value:
						  - b
						  - c
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						listOfLists:
						- name: b
						  value:
						  - a
						  - c
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				listOfLists:
				- name: b
				  value:
				  - a
				  - c
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(
            _P('listOfLists', _KBF('name', 'b')),
            _P('listOfLists', _KBF('name', 'b'), 'name'),
            _P('listOfLists', _KBF('name', 'b'), 'value', _V('a')),
            _P('listOfLists', _KBF('name', 'b'), 'value', _V('c')),
          ),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    listOfMaps_change_value: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						listOfMaps:
						- name: a
						  value:
						    b: "x"
						    c: "y"
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						listOfMaps:
						- name: a
						  value:
						    a: "x"
						    c: "z"
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				listOfMaps:
				- name: a
				  value:
				    a: "x"
				    c: "z"
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(
            _P('listOfMaps', _KBF('name', 'a')),
            _P('listOfMaps', _KBF('name', 'a'), 'name'),
            _P('listOfMaps', _KBF('name', 'a'), 'value', 'a'),
            _P('listOfMaps', _KBF('name', 'a'), 'value', 'c'),
          ),
          apiVersion: 'v1',
          applied: true,
        },
      },
    },
    listOfMaps_change_key_and_value: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						listOfMaps:
						- name: a
						  value:
						    b: "x"
						    c: "y"
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						listOfMaps:
						- name: b
						  value:
						    a: "x"
						    c: "z"
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				listOfMaps:
				- name: b
				  value:
				    a: "x"
				    c: "z"
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(
            _P('listOfMaps', _KBF('name', 'b')),
            _P('listOfMaps', _KBF('name', 'b'), 'name'),
            _P('listOfMaps', _KBF('name', 'b'), 'value', 'a'),
            _P('listOfMaps', _KBF('name', 'b'), 'value', 'c'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    mapOfLists_change_value: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						mapOfLists:
						  a:
						  - b
						  - c
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						mapOfLists:
						  a:
						  - a
						  - c
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				mapOfLists:
				  a:
				  - a
				  - c
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(_P('mapOfLists', 'a'), _P('mapOfLists', 'a', _V('a')), _P('mapOfLists', 'a', _V('c'))),
          apiVersion: 'v1',
          applied: true,
        },
      },
    },
    mapOfLists_change_key_and_value: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						mapOfLists:
						  a:
						  - b
						  - c
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						mapOfLists:
						  b:
						  - a
						  - c
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				mapOfLists:
				  b:
				  - a
				  - c
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(_P('mapOfLists', 'b'), _P('mapOfLists', 'b', _V('a')), _P('mapOfLists', 'b', _V('c'))),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    mapOfMaps_change_value: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						mapOfMaps:
						  a:
						    b: "x"
						    c: "y"
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						mapOfMaps:
						  a:
						    a: "x"
						    c: "z"
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				mapOfMaps:
				  a:
				    a: "x"
				    c: "z"
			`,
      apiVersion: 'v1',
      managed: {
        default: { set: _NS(_P('mapOfMaps', 'a'), _P('mapOfMaps', 'a', 'a'), _P('mapOfMaps', 'a', 'c')), apiVersion: 'v1', applied: false },
      },
    },
    mapOfMaps_change_key_and_value: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						mapOfMaps:
						  a:
						    b: "x"
						    c: "y"
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						mapOfMaps:
						  b:
						    a: "x"
						    c: "z"
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				mapOfMaps:
				  b:
				    a: "x"
				    c: "z"
			`,
      apiVersion: 'v1',
      managed: {
        default: { set: _NS(_P('mapOfMaps', 'b'), _P('mapOfMaps', 'b', 'a'), _P('mapOfMaps', 'b', 'c')), apiVersion: 'v1', applied: false },
      },
    },
    mapOfMapsRecursive_change_middle_key: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						mapOfMapsRecursive:
						  a:
						    b:
						      c:
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						mapOfMapsRecursive:
						  a:
						    d:
						      c:
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				mapOfMapsRecursive:
				  a:
				    d:
				      c:
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(_P('mapOfMapsRecursive', 'a'), _P('mapOfMapsRecursive', 'a', 'd'), _P('mapOfMapsRecursive', 'a', 'd', 'c')),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    struct_apply_remove_all: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						struct:
						  name: a
						  value: 1
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
			`,
      apiVersion: 'v1',
      managed: {},
    },
    struct_apply_remove_dangling: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						struct:
						  name: a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						struct:
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				struct:
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('struct')), apiVersion: 'v1', applied: true } },
    },
    struct_apply_update_remove_all: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						struct:
						  name: a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'controller',
          object: `
						struct:
						  name: a
						  value: 1
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				struct:
				  value: 1
			`,
      apiVersion: 'v1',
    },
    struct_apply_update_dict_dangling: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						struct:
						  name: a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'controller',
          object: `
						struct:
						  name: a
						  value: 1
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						struct: {}
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				struct:
				  value: 1
			`,
      apiVersion: 'v1',
    },
    struct_apply_update_dict_null: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						struct:
						  name: a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'controller',
          object: `
						struct:
						  name: a
						  value: 1
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						struct:
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				struct:
				  value: 1
			`,
      apiVersion: 'v1',
    },
    struct_apply_update_took_over: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						struct:
						  name: a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'controller',
          object: `
						struct:
						  name: b
						  value: 1
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						struct:
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				struct:
				  name: b
				  value: 1
			`,
      apiVersion: 'v1',
    },
  },
};
