// Ported as data from structured-merge-diff merge/extract_apply_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _NS, _P, _V, type ParserSpec, type Table } from '../test-support/state.ts';

export const extractParser: ParserSpec = {
  schema: `types:
- name: sets
  map:
    fields:
    - name: list
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: atomicList
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: atomic
    - name: map
      type:
        map:
          elementType:
            scalar: string
          elementRelationship: separable
    - name: atomicMap
      type:
        map:
          elementType:
            scalar: string
          elementRelationship: atomic`,
  typeName: 'sets',
};

export const testExtractApply: Table = {
  parser: extractParser,
  cases: {
    apply_one_extract_apply_one_own_both: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						list:
						- a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'extractApply',
          manager: 'default',
          object: `
							list:
							- b
						`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- a
				- b
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('list', _V('a')), _P('list', _V('b'))), apiVersion: 'v1', applied: false } },
    },
    extract_apply_from_beginning: {
      ops: [
        {
          op: 'extractApply',
          manager: 'default',
          object: `
						list:
						- a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'extractApply',
          manager: 'default',
          object: `
							list:
							- b
						`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- a
				- b
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('list', _V('a')), _P('list', _V('b'))), apiVersion: 'v1', applied: false } },
    },
    apply_after_extract_remove_fields: {
      ops: [
        {
          op: 'extractApply',
          manager: 'default',
          object: `
						list:
						- a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						list:
						- b
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- b
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('list', _V('b'))), apiVersion: 'v1', applied: false } },
    },
    apply_one_controller_remove_extract_apply_one: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						list:
						- a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'controller',
          object: `
						list:
						 - b
					`,
          apiVersion: 'v1',
        },
        {
          op: 'extractApply',
          manager: 'default',
          object: `
						list:
						- c
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- b
				- c
			`,
      apiVersion: 'v1',
      managed: {
        default: { set: _NS(_P('list', _V('c'))), apiVersion: 'v1', applied: false },
        controller: { set: _NS(_P('list', _V('b'))), apiVersion: 'v1', applied: false },
      },
    },
    extract_apply_retain_ownership_after_controller_update: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						list:
						- a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'controller',
          object: `
						list:
						 - a
						 - b
					`,
          apiVersion: 'v1',
        },
        {
          op: 'extractApply',
          manager: 'default',
          object: `
						list:
						- c
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- a
				- b
				- c
			`,
      apiVersion: 'v1',
      managed: {
        default: { set: _NS(_P('list', _V('a')), _P('list', _V('c'))), apiVersion: 'v1', applied: false },
        controller: { set: _NS(_P('list', _V('b'))), apiVersion: 'v1', applied: false },
      },
    },
    extract_apply_share_ownership_after_another_apply: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						list:
						- a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						list:
						 - a
						 - b
					`,
          apiVersion: 'v1',
        },
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						list:
						- c
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- a
				- b
				- c
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': { set: _NS(_P('list', _V('a')), _P('list', _V('c'))), apiVersion: 'v1', applied: false },
        'apply-two': { set: _NS(_P('list', _V('a')), _P('list', _V('b'))), apiVersion: 'v1', applied: false },
      },
    },
    apply_two_cant_delete_object_also_owned_by_extract_apply: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          object: `
						list:
						- a
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						list:
						 - a
						 - b
					`,
          apiVersion: 'v1',
        },
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						list:
						- c
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						list:
						 - b
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- a
				- b
				- c
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': { set: _NS(_P('list', _V('a')), _P('list', _V('c'))), apiVersion: 'v1', applied: false },
        'apply-two': { set: _NS(_P('list', _V('b'))), apiVersion: 'v1', applied: false },
      },
    },
    extract_apply_empty_structure_list: {
      ops: [
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						list:
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						list:
						 - a
						 - b
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- a
				- b
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': { set: _NS(_P('list')), apiVersion: 'v1', applied: false },
        'apply-two': { set: _NS(_P('list', _V('a')), _P('list', _V('b'))), apiVersion: 'v1', applied: false },
      },
    },
    extract_apply_empty_structure_remove_list: {
      ops: [
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						list:
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						list:
						 - a
						 - b
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						list:
						 - b
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- b
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': { set: _NS(_P('list')), apiVersion: 'v1', applied: false },
        'apply-two': { set: _NS(_P('list', _V('b'))), apiVersion: 'v1', applied: false },
      },
    },
    extract_apply_empty_structure_add_later_list: {
      ops: [
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						list:
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						list:
						 - a
						 - b
					`,
          apiVersion: 'v1',
        },
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						list:
						- c
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						list:
						 - b
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- b
				- c
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': { set: _NS(_P('list', _V('c'))), apiVersion: 'v1', applied: false },
        'apply-two': { set: _NS(_P('list', _V('b'))), apiVersion: 'v1', applied: false },
      },
    },
    extract_apply_empty_structure_map: {
      ops: [
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						map:
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						map:
						 a: c
						 b: d
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				map:
				  a: c
				  b: d
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': { set: _NS(_P('map')), apiVersion: 'v1', applied: false },
        'apply-two': { set: _NS(_P('map', 'a'), _P('map', 'b')), apiVersion: 'v1', applied: false },
      },
    },
    extract_apply_empty_structure_remove_map: {
      ops: [
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						map:
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						map:
						 a: c
						 b: d
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						map:
						 b: d
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				map:
				  b: d
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': { set: _NS(_P('map')), apiVersion: 'v1', applied: false },
        'apply-two': { set: _NS(_P('map', 'b')), apiVersion: 'v1', applied: false },
      },
    },
    extract_apply_empty_structure_add_later_map: {
      ops: [
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						map:
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						map:
						 a: c
						 b: d
					`,
          apiVersion: 'v1',
        },
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						map:
						  e: f
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply-two',
          object: `
						map:
						 b: d
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				map:
				  b: d
				  e: f
			`,
      apiVersion: 'v1',
      managed: {
        'apply-one': { set: _NS(_P('map', 'e')), apiVersion: 'v1', applied: false },
        'apply-two': { set: _NS(_P('map', 'b')), apiVersion: 'v1', applied: false },
      },
    },
    extract_apply_atomic_list: {
      ops: [
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						atomicList:
						- a
						- b
						- c
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				atomicList:
				- a
				- b
				- c
			`,
      apiVersion: 'v1',
      managed: { 'apply-one': { set: _NS(_P('atomicList')), apiVersion: 'v1', applied: false } },
    },
    extract_apply_atomic_map: {
      ops: [
        {
          op: 'extractApply',
          manager: 'apply-one',
          object: `
						atomicMap:
						 a: c
						 b: d
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				atomicMap:
				 a: c
				 b: d
			`,
      apiVersion: 'v1',
      managed: { 'apply-one': { set: _NS(_P('atomicMap')), apiVersion: 'v1', applied: false } },
    },
  },
};
