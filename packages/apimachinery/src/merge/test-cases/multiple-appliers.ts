// Ported as data from structured-merge-diff merge/multiple_appliers_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _KBF, _NS, _P, _V, deducedParser, type ParserSpec, sprintf, type Table } from '../test-support/state.ts';
import { associativeListParser } from './key.ts';
import { nestedTypeParser } from './nested.ts';

export const structMultiversionParser: ParserSpec = {
  schema: `types:
- name: v1
  map:
    fields:
      - name: struct
        type:
          namedType: struct
      - name: version
        type:
          scalar: string
- name: struct
  map:
    fields:
      - name: name
        type:
          scalar: string
      - name: scalarField_v1
        type:
          scalar: string
      - name: complexField_v1
        type:
          namedType: complex
- name: complex
  map:
    fields:
      - name: name
        type:
          scalar: string
- name: v2
  map:
    fields:
      - name: struct
        type:
          namedType: struct_v2
      - name: version
        type:
          scalar: string
- name: struct_v2
  map:
    fields:
      - name: name
        type:
          scalar: string
      - name: scalarField_v2
        type:
          scalar: string
      - name: complexField_v2
        type:
          namedType: complex_v2
- name: complex_v2
  map:
    fields:
      - name: name
        type:
          scalar: string
- name: v3
  map:
    fields:
      - name: struct
        type:
          namedType: struct_v3
      - name: version
        type:
          scalar: string
- name: struct_v3
  map:
    fields:
      - name: name
        type:
          scalar: string
      - name: scalarField_v3
        type:
          scalar: string
      - name: complexField_v3
        type:
          namedType: complex_v3
- name: complex_v3
  map:
    fields:
      - name: name
        type:
          scalar: string
`,
  typeByVersion: true,
};

export const atomicMapParser: ParserSpec = {
  schema: `types:
- name: v1
  map:
    fields:
      - name: atomicMap
        type:
          namedType: atomicMap
- name: atomicMap
  map:
    fields:
      - name: field1
        type:
          scalar: string
      - name: field2
        type:
          scalar: string
    elementRelationship: atomic
`,
  typeByVersion: true,
};

export const multiversionWithReliantFieldsParser: ParserSpec = {
  schema: `types:
- name: v1
  map:
    fields:
      - name: field_foo_rely_on_bar
        type:
          scalar: string
      - name: common_field
        type:
          scalar: string
- name: v2
  map:
    fields:
      - name: required_field_bar
        type:
          scalar: string
      - name: common_field
        type:
          scalar: string
`,
  typeByVersion: true,
};

export const versionDoesntMatchTypeName: ParserSpec = {
  schema: `types:
- name: TypeV1
  map:
    fields:
      - name: field_foo_rely_on_bar
        type:
          scalar: string
      - name: common_field
        type:
          scalar: string
- name: TypeV2
  map:
    fields:
      - name: required_field_bar
        type:
          scalar: string
      - name: common_field
        type:
          scalar: string
`,
  typeByVersion: true,
};

export const testMultipleAppliersSet: Table = {
  parser: associativeListParser,
  cases: {
    remove_one: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: 'v1',
          object: `
						list:
						- name: a
						- name: b
					`,
        },
        {
          op: 'apply',
          manager: 'apply-two',
          apiVersion: 'v2',
          object: `
						list:
						- name: c
					`,
        },
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: 'v3',
          object: `
						list:
						- name: a
					`,
        },
      ],
      object: `
				list:
				- name: a
				- name: c
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': { set: _NS(_P('list', _KBF('name', 'a')), _P('list', _KBF('name', 'a'), 'name')), apiVersion: 'v3', applied: false },
        'apply-two': { set: _NS(_P('list', _KBF('name', 'c')), _P('list', _KBF('name', 'c'), 'name')), apiVersion: 'v2', applied: false },
      },
    },
    same_value_no_conflict: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: 'v1',
          object: `
						list:
						- name: a
						  value: 0
					`,
        },
        {
          op: 'apply',
          manager: 'apply-two',
          apiVersion: 'v2',
          object: `
						list:
						- name: a
						  value: 0
					`,
        },
      ],
      object: `
				list:
				- name: a
				  value: 0
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': {
          set: _NS(_P('list', _KBF('name', 'a')), _P('list', _KBF('name', 'a'), 'name'), _P('list', _KBF('name', 'a'), 'value')),
          apiVersion: 'v1',
          applied: false,
        },
        'apply-two': {
          set: _NS(_P('list', _KBF('name', 'a')), _P('list', _KBF('name', 'a'), 'name'), _P('list', _KBF('name', 'a'), 'value')),
          apiVersion: 'v2',
          applied: false,
        },
      },
    },
    change_value_yes_conflict: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: 'v1',
          object: `
						list:
						- name: a
						  value: 0
					`,
        },
        {
          op: 'apply',
          manager: 'apply-two',
          apiVersion: 'v2',
          object: `
						list:
						- name: a
						  value: 1
					`,
          conflicts: [{ manager: 'apply-one', path: _P('list', _KBF('name', 'a'), 'value') }],
        },
      ],
      object: `
				list:
				- name: a
				  value: 0
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': {
          set: _NS(_P('list', _KBF('name', 'a')), _P('list', _KBF('name', 'a'), 'name'), _P('list', _KBF('name', 'a'), 'value')),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    remove_one_keep_one: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: 'v1',
          object: `
						list:
						- name: a
						- name: b
						- name: c
					`,
        },
        {
          op: 'apply',
          manager: 'apply-two',
          apiVersion: 'v2',
          object: `
						list:
						- name: c
						- name: d
					`,
        },
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: 'v3',
          object: `
						list:
						- name: a
					`,
        },
      ],
      object: `
				list:
				- name: a
				- name: c
				- name: d
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': { set: _NS(_P('list', _KBF('name', 'a')), _P('list', _KBF('name', 'a'), 'name')), apiVersion: 'v3', applied: false },
        'apply-two': {
          set: _NS(
            _P('list', _KBF('name', 'c')),
            _P('list', _KBF('name', 'd')),
            _P('list', _KBF('name', 'c'), 'name'),
            _P('list', _KBF('name', 'd'), 'name'),
          ),
          apiVersion: 'v2',
          applied: false,
        },
      },
    },
  },
};

export const testMultipleAppliersFieldUnsetting = (v1: string, v2: string, v3: string): Table => ({
  parser: structMultiversionParser,
  converter: 'renamingConverter',
  cases: {
    unset_scalar_sole_owner: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: v1,
          object: sprintf(
            `
						struct:
						  name: a
						  scalarField_%s: a
					`,
            v1,
          ),
        },
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: v2,
          object: `
						struct:
						  name: a
					`,
        },
      ],
      object: `
				struct:
				  name: a
			`,
      apiVersion: v3,
      managed: { 'apply-one': { set: _NS(_P('struct', 'name')), apiVersion: v2, applied: false } },
    },
    unset_scalar_shared_with_applier: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: v1,
          object: sprintf(
            `
						struct:
						  name: a
						  scalarField_%s: a
					`,
            v1,
          ),
        },
        {
          op: 'apply',
          manager: 'apply-two',
          apiVersion: v2,
          object: sprintf(
            `
						struct:
						  scalarField_%s: a
					`,
            v2,
          ),
        },
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: v3,
          object: `
						struct:
						  name: a
					`,
        },
      ],
      object: sprintf(
        `
				struct:
				  name: a
				  scalarField_%s: a
			`,
        v3,
      ),
      apiVersion: v3,
      managed: {
        'apply-one': { set: _NS(_P('struct', 'name')), apiVersion: v3, applied: true },
        'apply-two': { set: _NS(_P('struct', sprintf('scalarField_%s', v2))), apiVersion: v2, applied: false },
      },
    },
    unset_scalar_shared_with_updater: {
      ops: [
        {
          op: 'update',
          manager: 'updater',
          apiVersion: v1,
          object: sprintf(
            `
						struct:
						  name: a
						  scalarField_%s: a
					`,
            v1,
          ),
        },
        {
          op: 'apply',
          manager: 'applier',
          apiVersion: v2,
          object: sprintf(
            `
						struct:
						  name: a
						  scalarField_%s: a
					`,
            v2,
          ),
        },
        {
          op: 'apply',
          manager: 'applier',
          apiVersion: v3,
          object: `
						struct:
						  name: a
					`,
        },
      ],
      object: sprintf(
        `
				struct:
				  name: a
				  scalarField_%s: a
			`,
        v3,
      ),
      apiVersion: v3,
      managed: {
        updater: {
          set: _NS(_P('struct'), _P('struct', 'name'), _P('struct', sprintf('scalarField_%s', v1))),
          apiVersion: v1,
          applied: false,
        },
        applier: { set: _NS(_P('struct', 'name')), apiVersion: v3, applied: true },
      },
    },
    updater_claims_field: {
      ops: [
        {
          op: 'apply',
          manager: 'applier',
          apiVersion: v1,
          object: sprintf(
            `
						struct:
						  name: a
						  scalarField_%s: a
					`,
            v1,
          ),
        },
        {
          op: 'update',
          manager: 'updater',
          apiVersion: v2,
          object: sprintf(
            `
						struct:
						  name: a
						  scalarField_%s: b
					`,
            v2,
          ),
        },
      ],
      object: sprintf(
        `
				struct:
				  name: a
				  scalarField_%s: b
			`,
        v3,
      ),
      apiVersion: v3,
      managed: {
        updater: { set: _NS(_P('struct', sprintf('scalarField_%s', v2))), apiVersion: v2, applied: false },
        applier: { set: _NS(_P('struct', 'name')), apiVersion: v1, applied: true },
      },
    },
    unset_complex_sole_owner: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: v1,
          object: sprintf(
            `
						struct:
						  name: a
						  complexField_%s:
						    name: b
					`,
            v1,
          ),
        },
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: v2,
          object: `
						struct:
						  name: a
					`,
        },
      ],
      object: `
				struct:
				  name: a
			`,
      apiVersion: v3,
      managed: { 'apply-one': { set: _NS(_P('struct', 'name')), apiVersion: v2, applied: false } },
    },
    unset_complex_shared_with_applier: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: v1,
          object: sprintf(
            `
						struct:
						  name: a
						  complexField_%s:
						    name: b
					`,
            v1,
          ),
        },
        {
          op: 'apply',
          manager: 'apply-two',
          apiVersion: v2,
          object: sprintf(
            `
						struct:
						  complexField_%s:
						    name: b
					`,
            v2,
          ),
        },
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: v3,
          object: `
						struct:
						  name: a
					`,
        },
      ],
      object: sprintf(
        `
				struct:
				  name: a
				  complexField_%s:
				    name: b
			`,
        v3,
      ),
      apiVersion: v3,
      managed: {
        'apply-one': { set: _NS(_P('struct', 'name')), apiVersion: v3, applied: false },
        'apply-two': { set: _NS(_P('struct', sprintf('complexField_%s', v2), 'name')), apiVersion: v2, applied: false },
      },
    },
  },
});

export const testMultipleAppliersNestedType: Table = {
  parser: nestedTypeParser,
  cases: {
    remove_one_keep_one_with_two_sub_items: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						listOfLists:
						- name: a
						- name: b
						  value:
						  - c
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						listOfLists:
						- name: b
						  value:
						  - d
					`,
          apiVersion: 'v2',
        },
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						listOfLists:
						- name: a
					`,
          apiVersion: 'v3',
        },
      ],
      object: `
				listOfLists:
				- name: a
				- name: b
				  value:
				  - d
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': {
          set: _NS(_P('listOfLists', _KBF('name', 'a')), _P('listOfLists', _KBF('name', 'a'), 'name')),
          apiVersion: 'v3',
          applied: false,
        },
        'apply-two': {
          set: _NS(
            _P('listOfLists', _KBF('name', 'b')),
            _P('listOfLists', _KBF('name', 'b'), 'name'),
            _P('listOfLists', _KBF('name', 'b'), 'value', _V('d')),
          ),
          apiVersion: 'v2',
          applied: false,
        },
      },
    },
    remove_one_keep_one_with_dangling_subitem: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						listOfLists:
						- name: a
						- name: b
						  value:
						  - c
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						listOfLists:
						- name: b
						  value:
						  - d
					`,
          apiVersion: 'v2',
        },
        {
          op: 'update',
          manager: 'controller',
          object: `
						listOfLists:
						- name: a
						- name: b
						  value:
						  - c
						  - d
						  - e
					`,
          apiVersion: 'v2',
        },
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						listOfLists:
						- name: a
					`,
          apiVersion: 'v3',
        },
      ],
      object: `
				listOfLists:
				- name: a
				- name: b
				  value:
				  - d
				  - e
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': {
          set: _NS(_P('listOfLists', _KBF('name', 'a')), _P('listOfLists', _KBF('name', 'a'), 'name')),
          apiVersion: 'v3',
          applied: false,
        },
        'apply-two': {
          set: _NS(
            _P('listOfLists', _KBF('name', 'b')),
            _P('listOfLists', _KBF('name', 'b'), 'name'),
            _P('listOfLists', _KBF('name', 'b'), 'value', _V('d')),
          ),
          apiVersion: 'v2',
          applied: false,
        },
        controller: { set: _NS(_P('listOfLists', _KBF('name', 'b'), 'value', _V('e'))), apiVersion: 'v2', applied: false },
      },
    },
    remove_one_with_dangling_subitem_keep_one: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						listOfLists:
						- name: a
						- name: b
						  value:
						  - c
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						listOfLists:
						- name: a
						  value:
						  - b
					`,
          apiVersion: 'v2',
        },
        {
          op: 'update',
          manager: 'controller',
          object: `
						listOfLists:
						- name: a
						  value:
						  - b
						- name: b
						  value:
						  - c
						  - d
					`,
          apiVersion: 'v2',
        },
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						listOfLists:
						- name: a
					`,
          apiVersion: 'v3',
        },
      ],
      object: `
				listOfLists:
				- name: a
				  value:
				  - b
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': {
          set: _NS(_P('listOfLists', _KBF('name', 'a')), _P('listOfLists', _KBF('name', 'a'), 'name')),
          apiVersion: 'v3',
          applied: false,
        },
        'apply-two': {
          set: _NS(
            _P('listOfLists', _KBF('name', 'a')),
            _P('listOfLists', _KBF('name', 'a'), 'name'),
            _P('listOfLists', _KBF('name', 'a'), 'value', _V('b')),
          ),
          apiVersion: 'v2',
          applied: false,
        },
      },
    },
    remove_one_with_managed_subitem_keep_one: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						listOfLists:
						- name: a
						- name: b
						  value:
						  - c
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						listOfLists:
						- name: a
						  value:
						  - b
					`,
          apiVersion: 'v2',
        },
        {
          op: 'update',
          manager: 'controller',
          object: `
						listOfLists:
						- name: a
						  value:
						  - b
						- name: b
						  value:
						  - c
						  - d
					`,
          apiVersion: 'v2',
        },
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						listOfLists:
						- name: a
					`,
          apiVersion: 'v3',
        },
      ],
      object: `
				listOfLists:
				- name: a
				  value:
				  - b
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': {
          set: _NS(_P('listOfLists', _KBF('name', 'a')), _P('listOfLists', _KBF('name', 'a'), 'name')),
          apiVersion: 'v3',
          applied: false,
        },
        'apply-two': {
          set: _NS(
            _P('listOfLists', _KBF('name', 'a')),
            _P('listOfLists', _KBF('name', 'a'), 'name'),
            _P('listOfLists', _KBF('name', 'a'), 'value', _V('b')),
          ),
          apiVersion: 'v2',
          applied: false,
        },
      },
    },
    remove_one_keep_one_with_sub_item: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						listOfLists:
						- name: a
						- name: b
						  value:
						  - c
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						listOfLists:
						- name: b
						  value:
						  - d
					`,
          apiVersion: 'v2',
        },
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						listOfLists:
						- name: a
					`,
          apiVersion: 'v3',
        },
      ],
      object: `
				listOfLists:
				- name: a
				- name: b
				  value:
				  - d
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': {
          set: _NS(_P('listOfLists', _KBF('name', 'a')), _P('listOfLists', _KBF('name', 'a'), 'name')),
          apiVersion: 'v3',
          applied: false,
        },
        'apply-two': {
          set: _NS(
            _P('listOfLists', _KBF('name', 'b')),
            _P('listOfLists', _KBF('name', 'b'), 'name'),
            _P('listOfLists', _KBF('name', 'b'), 'value', _V('d')),
          ),
          apiVersion: 'v2',
          applied: false,
        },
      },
    },
    multiple_appliers_recursive_map: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						mapOfMapsRecursive:
						  a:
						    b:
						  c:
						    d:
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						mapOfMapsRecursive:
						  a:
						  c:
						    d:
					`,
          apiVersion: 'v2',
        },
        {
          op: 'update',
          manager: 'controller-one',
          object: `
						mapOfMapsRecursive:
						  a:
						    b:
						      c:
						  c:
						    d:
						      e:
					`,
          apiVersion: 'v3',
        },
        {
          op: 'update',
          manager: 'controller-two',
          object: `
						mapOfMapsRecursive:
						  a:
						    b:
						      c:
						        d:
						  c:
						    d:
						      e:
						        f:
					`,
          apiVersion: 'v2',
        },
        {
          op: 'update',
          manager: 'controller-one',
          object: `
						mapOfMapsRecursive:
						  a:
						    b:
						      c:
						        d:
						          e:
						  c:
						    d:
						      e:
						        f:
						          g:
					`,
          apiVersion: 'v3',
        },
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						mapOfMapsRecursive:
					`,
          apiVersion: 'v4',
        },
      ],
      object: `
				mapOfMapsRecursive:
				  a:
				  c:
				    d:
				      e:
				        f:
				          g:
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': { set: _NS(_P('mapOfMapsRecursive')), apiVersion: 'v4', applied: false },
        'apply-two': {
          set: _NS(_P('mapOfMapsRecursive', 'a'), _P('mapOfMapsRecursive', 'c'), _P('mapOfMapsRecursive', 'c', 'd')),
          apiVersion: 'v2',
          applied: false,
        },
        'controller-one': {
          set: _NS(_P('mapOfMapsRecursive', 'c', 'd', 'e'), _P('mapOfMapsRecursive', 'c', 'd', 'e', 'f', 'g')),
          apiVersion: 'v3',
          applied: false,
        },
        'controller-two': { set: _NS(_P('mapOfMapsRecursive', 'c', 'd', 'e', 'f')), apiVersion: 'v2', applied: false },
      },
    },
  },
};

export const testMultipleAppliersDeducedType: Table = {
  parser: deducedParser,
  cases: {
    multiple_appliers_recursive_map_deduced: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						a:
						  b:
						c:
						  d:
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						a:
						c:
						  d:
					`,
          apiVersion: 'v2',
        },
        {
          op: 'update',
          manager: 'controller-one',
          object: `
						a:
						  b:
						    c:
						c:
						  d:
						    e:
					`,
          apiVersion: 'v3',
        },
        {
          op: 'update',
          manager: 'controller-two',
          object: `
						a:
						  b:
						    c:
						      d:
						c:
						  d:
						    e:
						      f:
					`,
          apiVersion: 'v2',
        },
        {
          op: 'update',
          manager: 'controller-one',
          object: `
						a:
						  b:
						    c:
						      d:
						        e:
						c:
						  d:
						    e:
						      f:
						        g:
					`,
          apiVersion: 'v3',
        },
        { op: 'apply', manager: 'apply-one', object: ``, apiVersion: 'v4' },
      ],
      object: `
				a:
				c:
				  d:
				    e:
				      f:
				        g:
			`,
      apiVersion: 'v1',
      managed: {
        'apply-two': { set: _NS(_P('a'), _P('c'), _P('c', 'd')), apiVersion: 'v2', applied: false },
        'controller-one': { set: _NS(_P('c', 'd', 'e'), _P('c', 'd', 'e', 'f', 'g')), apiVersion: 'v3', applied: false },
        'controller-two': { set: _NS(_P('c', 'd', 'e', 'f')), apiVersion: 'v2', applied: false },
      },
    },
  },
};

export const testMultipleAppliersRealConversion: Table = {
  parser: nestedTypeParser,
  converter: 'repeatingConverter',
  cases: {
    multiple_appliers_recursive_map_real_conversion: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						mapOfMapsRecursive:
						  a:
						    b:
						  c:
						    d:
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						mapOfMapsRecursive:
						  aa:
						  cc:
						    dd:
					`,
          apiVersion: 'v2',
        },
        {
          op: 'update',
          manager: 'controller',
          object: `
						mapOfMapsRecursive:
						  aaa:
						    bbb:
						      ccc:
						        ddd:
						  ccc:
						    ddd:
						      eee:
						        fff:
					`,
          apiVersion: 'v3',
        },
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						mapOfMapsRecursive:
					`,
          apiVersion: 'v4',
        },
      ],
      object: `
				mapOfMapsRecursive:
				  aaaa:
				  cccc:
				    dddd:
				      eeee:
				        ffff:
			`,
      apiVersion: 'v4',
      managed: {
        'apply-one': { set: _NS(_P('mapOfMapsRecursive')), apiVersion: 'v4', applied: false },
        'apply-two': {
          set: _NS(_P('mapOfMapsRecursive', 'aa'), _P('mapOfMapsRecursive', 'cc'), _P('mapOfMapsRecursive', 'cc', 'dd')),
          apiVersion: 'v2',
          applied: false,
        },
        controller: {
          set: _NS(_P('mapOfMapsRecursive', 'ccc', 'ddd', 'eee'), _P('mapOfMapsRecursive', 'ccc', 'ddd', 'eee', 'fff')),
          apiVersion: 'v3',
          applied: false,
        },
      },
    },
    appliers_remove_from_controller_real_conversion: {
      ops: [
        {
          op: 'apply',
          manager: 'apply',
          object: `
						mapOfMapsRecursive:
						  aaa:
						    bbb:
					`,
          apiVersion: 'v3',
        },
        {
          op: 'update',
          manager: 'controller',
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
          manager: 'apply',
          object: `
						mapOfMapsRecursive:
						  aa:
						    bb:
						  cc:
						    dd:
					`,
          apiVersion: 'v2',
        },
        {
          op: 'apply',
          manager: 'apply',
          object: `
						mapOfMapsRecursive:
						  aaa:
						  ccc:
					`,
          apiVersion: 'v3',
        },
      ],
      object: `
				mapOfMapsRecursive:
				  aaa:
				  ccc:
			`,
      apiVersion: 'v3',
      managed: { apply: { set: _NS(_P('mapOfMapsRecursive', 'aaa'), _P('mapOfMapsRecursive', 'ccc')), apiVersion: 'v3', applied: false } },
    },
    applier_updater_shared_ownership_real_conversion: {
      ops: [
        {
          op: 'update',
          manager: 'updater',
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
          manager: 'apply',
          object: `
						mapOfMapsRecursive:
						  aa:
						    bb:
						  cc:
						    dd:
					`,
          apiVersion: 'v2',
        },
        {
          op: 'apply',
          manager: 'apply',
          object: `
						mapOfMapsRecursive:
						  aaa:
						  ccc:
					`,
          apiVersion: 'v3',
        },
      ],
      object: `
				mapOfMapsRecursive:
				  aaa:
				    bbb:
				      ccc:
				  ccc:
			`,
      apiVersion: 'v3',
      managed: {
        updater: {
          set: _NS(
            _P('mapOfMapsRecursive'),
            _P('mapOfMapsRecursive', 'a'),
            _P('mapOfMapsRecursive', 'a', 'b'),
            _P('mapOfMapsRecursive', 'a', 'b', 'c'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
        apply: { set: _NS(_P('mapOfMapsRecursive', 'aaa'), _P('mapOfMapsRecursive', 'ccc')), apiVersion: 'v3', applied: false },
      },
    },
  },
};

export const testMultipleAppliersFieldRenameConversions = (v1: string, v2: string, v3: string): Table => ({
  parser: structMultiversionParser,
  converter: 'renamingConverter',
  cases: {
    updater_claims_field: {
      ops: [
        {
          op: 'apply',
          manager: 'applier',
          apiVersion: v1,
          object: sprintf(
            `
						struct:
						  name: a
						  scalarField_%s: a
					`,
            v1,
          ),
        },
        {
          op: 'update',
          manager: 'updater',
          apiVersion: v2,
          object: sprintf(
            `
						struct:
						  name: a
						  scalarField_%s: b
					`,
            v2,
          ),
        },
      ],
      object: sprintf(
        `
				struct:
				  name: a
				  scalarField_%s: b
			`,
        v3,
      ),
      apiVersion: v3,
      managed: {
        updater: { set: _NS(_P('struct', sprintf('scalarField_%s', v2))), apiVersion: v2, applied: false },
        applier: { set: _NS(_P('struct', 'name')), apiVersion: v1, applied: true },
      },
    },
  },
});

export const testMultipleApplierAtomicMaps: Table = {
  parser: atomicMapParser,
  cases: {
    force: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: 'v1',
          object: `
						atomicMap:
						  field1: a
					`,
        },
        {
          op: 'apply',
          manager: 'apply-two',
          apiVersion: 'v1',
          object: `
						atomicMap:
						  field2: b
					`,
          conflicts: [{ manager: 'apply-one', path: _P('atomicMap') }],
        },
        {
          op: 'forceApply',
          manager: 'apply-two',
          apiVersion: 'v1',
          object: `
						atomicMap:
						  field2: b
					`,
        },
      ],
      object: `
				atomicMap:
				  field2: b
			`,
      apiVersion: 'v1',
      managed: { 'apply-two': { set: _NS(_P('atomicMap')), apiVersion: 'v1', applied: false } },
    },
  },
};

export const testMultipleAppliersReliantFieldsConversions: Table = {
  parser: multiversionWithReliantFieldsParser,
  converter: 'reliantFieldsConverter',
  cases: {
    multiple_versions_with_reliant_fields: {
      ops: [
        {
          op: 'apply',
          manager: 'v2_applier',
          apiVersion: 'v2',
          object: `
						required_field_bar: a
					`,
        },
        {
          op: 'apply',
          manager: 'v1_applier',
          apiVersion: 'v1',
          object: `
						common_field: b
					`,
        },
        {
          op: 'apply',
          manager: 'v2_applier',
          apiVersion: 'v2',
          object: `
						required_field_bar: b
					`,
        },
      ],
      object: `
				required_field_bar: b
				common_field: b
			`,
      apiVersion: 'v2',
      managed: {
        v2_applier: { set: _NS(_P('required_field_bar')), apiVersion: 'v2', applied: true },
        v1_applier: { set: _NS(_P('common_field')), apiVersion: 'v1', applied: true },
      },
    },
  },
};
