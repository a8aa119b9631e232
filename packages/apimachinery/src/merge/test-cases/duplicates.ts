// Ported as data from structured-merge-diff merge/duplicates_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _KBF, _NS, _P, _V, type ParserSpec, type Table } from '../test-support/state.ts';

export const duplicatesParser: ParserSpec = {
  schema: `types:
- name: type
  map:
    fields:
      - name: list
        type:
          namedType: associativeList
      - name: unrelated
        type:
          scalar: numeric
      - name: set
        type:
          namedType: set
- name: associativeList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - name
- name: myElement
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: value1
      type:
        scalar: numeric
    - name: value2
      type:
        scalar: numeric
- name: set
  list:
    elementType:
      scalar: numeric
    elementRelationship: associative
`,
  typeName: 'type',
};

export const testDuplicates: Table = {
  parser: duplicatesParser,
  cases: {
    'sets/ownership/duplicates': {
      ops: [
        {
          op: 'update',
          manager: 'updater-one',
          object: `
						set: [1, 1, 3, 4]
					`,
          apiVersion: 'v1',
        },
      ],
      managed: {
        'updater-one': { set: _NS(_P('set'), _P('set', _V(1)), _P('set', _V(3)), _P('set', _V(4))), apiVersion: 'v1', applied: false },
      },
    },
    'sets/ownership/add_duplicate': {
      ops: [
        {
          op: 'update',
          manager: 'updater-one',
          object: `
						set: [1, 3, 4]
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'updater-two',
          object: `
						set: [1, 1, 3, 4]
					`,
          apiVersion: 'v1',
        },
      ],
      managed: {
        'updater-one': { set: _NS(_P('set'), _P('set', _V(3)), _P('set', _V(4))), apiVersion: 'v1', applied: false },
        'updater-two': { set: _NS(_P('set', _V(1))), apiVersion: 'v1', applied: false },
      },
    },
    'sets/ownership/remove_duplicate': {
      ops: [
        {
          op: 'update',
          manager: 'updater-one',
          object: `
						set: [1, 1, 3, 4]
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'updater-two',
          object: `
						set: [1, 3, 4]
					`,
          apiVersion: 'v1',
        },
      ],
      managed: {
        'updater-one': { set: _NS(_P('set'), _P('set', _V(3)), _P('set', _V(4))), apiVersion: 'v1', applied: false },
        'updater-two': { set: _NS(_P('set', _V(1))), apiVersion: 'v1', applied: false },
      },
    },
    'sets/merging/remove_duplicate': {
      ops: [
        {
          op: 'update',
          manager: 'updater',
          object: `
						set: [1, 1, 3, 4]
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'applier',
          object: `
						set: [1]
					`,
          apiVersion: 'v1',
          conflicts: [{ manager: 'updater', path: _P('set', _V(1)) }],
        },
        {
          op: 'forceApply',
          manager: 'applier',
          object: `
						set: [1]
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				set: [1, 3, 4]
			`,
      apiVersion: 'v1',
      managed: {
        updater: { set: _NS(_P('set'), _P('set', _V(3)), _P('set', _V(4))), apiVersion: 'v1', applied: false },
        applier: { set: _NS(_P('set', _V(1))), apiVersion: 'v1', applied: true },
      },
    },
    'sets/merging/ignore_duplicate': {
      ops: [
        {
          op: 'update',
          manager: 'updater',
          object: `
						set: [1, 1, 3, 4]
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'applier',
          object: `
						set: [5]
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				set: [1, 1, 3, 4, 5]
			`,
      apiVersion: 'v1',
      managed: {
        updater: { set: _NS(_P('set'), _P('set', _V(1)), _P('set', _V(3)), _P('set', _V(4))), apiVersion: 'v1', applied: false },
        applier: { set: _NS(_P('set', _V(5))), apiVersion: 'v1', applied: true },
      },
    },
    'list/ownership/duplicated_items': {
      ops: [
        {
          op: 'update',
          manager: 'updater',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 2
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
      ],
      managed: {
        updater: {
          set: _NS(
            _P('list'),
            _P('list', _KBF('name', 'a')),
            _P('list', _KBF('name', 'b')),
            _P('list', _KBF('name', 'b'), 'name'),
            _P('list', _KBF('name', 'b'), 'value1'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    'list/ownership/change_duplicated_items': {
      ops: [
        {
          op: 'update',
          manager: 'updater-one',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 2
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'updater-two',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 3
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
      ],
      managed: {
        'updater-one': {
          set: _NS(
            _P('list'),
            _P('list', _KBF('name', 'b')),
            _P('list', _KBF('name', 'b'), 'name'),
            _P('list', _KBF('name', 'b'), 'value1'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
        'updater-two': { set: _NS(_P('list', _KBF('name', 'a'))), apiVersion: 'v1', applied: false },
      },
    },
    'list/ownership/change_fields_duplicated_items': {
      ops: [
        {
          op: 'update',
          manager: 'updater-one',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 2
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'updater-two',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 2
						  value2: 3 # New field
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
      ],
      managed: {
        'updater-one': {
          set: _NS(
            _P('list'),
            _P('list', _KBF('name', 'b')),
            _P('list', _KBF('name', 'b'), 'name'),
            _P('list', _KBF('name', 'b'), 'value1'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
        'updater-two': { set: _NS(_P('list', _KBF('name', 'a'))), apiVersion: 'v1', applied: false },
      },
    },
    'list/ownership/add_duplicated_items_different_field': {
      ops: [
        {
          op: 'update',
          manager: 'updater-one',
          object: `
						list:
						- name: a
						  value1: 1
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'updater-two',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value2: 3 # New field
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
      ],
      managed: {
        'updater-one': {
          set: _NS(
            _P('list'),
            _P('list', _KBF('name', 'b')),
            _P('list', _KBF('name', 'b'), 'name'),
            _P('list', _KBF('name', 'b'), 'value1'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
        'updater-two': { set: _NS(_P('list', _KBF('name', 'a'))), apiVersion: 'v1', applied: false },
      },
    },
    'list/ownership/add_unrelated_to_list_with_duplicates': {
      ops: [
        {
          op: 'update',
          manager: 'updater-one',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 2
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'updater-two',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 2
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
      ],
      managed: {
        'updater-one': { set: _NS(_P('list'), _P('list', _KBF('name', 'a'))), apiVersion: 'v1', applied: false },
        'updater-two': {
          set: _NS(_P('list', _KBF('name', 'b')), _P('list', _KBF('name', 'b'), 'name'), _P('list', _KBF('name', 'b'), 'value1')),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    'list/merge/unrelated_with_duplicated_items': {
      ops: [
        {
          op: 'update',
          manager: 'updater',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 2
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
        {
          op: 'forceApply',
          manager: 'applier',
          object: `
						unrelated: 5
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- name: a
				  value1: 1
				- name: a
				  value1: 2
				- name: b
				  value1: 3
				unrelated: 5
			`,
      apiVersion: 'v1',
      managed: {
        updater: {
          set: _NS(
            _P('list'),
            _P('list', _KBF('name', 'a')),
            _P('list', _KBF('name', 'b')),
            _P('list', _KBF('name', 'b'), 'name'),
            _P('list', _KBF('name', 'b'), 'value1'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
        applier: { set: _NS(_P('unrelated')), apiVersion: 'v1', applied: true },
      },
    },
    'list/merge/change_duplicated_item': {
      ops: [
        {
          op: 'update',
          manager: 'updater',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 2
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'applier',
          object: `
						list:
						- name: a
						  value1: 3
					`,
          apiVersion: 'v1',
          conflicts: [{ manager: 'updater', path: _P('list', _KBF('name', 'a')) }],
        },
        {
          op: 'forceApply',
          manager: 'applier',
          object: `
						list:
						- name: a
						  value1: 3
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- name: a
				  value1: 3
				- name: b
				  value1: 3
			`,
      apiVersion: 'v1',
      managed: {
        updater: {
          set: _NS(
            _P('list'),
            _P('list', _KBF('name', 'b')),
            _P('list', _KBF('name', 'b'), 'name'),
            _P('list', _KBF('name', 'b'), 'value1'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
        applier: {
          set: _NS(_P('list', _KBF('name', 'a')), _P('list', _KBF('name', 'a'), 'name'), _P('list', _KBF('name', 'a'), 'value1')),
          apiVersion: 'v1',
          applied: true,
        },
      },
    },
    'list/merge/unchanged_duplicated_item': {
      ops: [
        {
          op: 'update',
          manager: 'updater',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 2
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'applier',
          object: `
						list:
						- name: a
						  value1: 2
					`,
          apiVersion: 'v1',
          conflicts: [{ manager: 'updater', path: _P('list', _KBF('name', 'a')) }],
        },
        {
          op: 'forceApply',
          manager: 'applier',
          object: `
						list:
						- name: a
						  value1: 3
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- name: a
				  value1: 3
				- name: b
				  value1: 3
			`,
      apiVersion: 'v1',
      managed: {
        updater: {
          set: _NS(
            _P('list'),
            _P('list', _KBF('name', 'b')),
            _P('list', _KBF('name', 'b'), 'name'),
            _P('list', _KBF('name', 'b'), 'value1'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
        applier: {
          set: _NS(_P('list', _KBF('name', 'a')), _P('list', _KBF('name', 'a'), 'name'), _P('list', _KBF('name', 'a'), 'value1')),
          apiVersion: 'v1',
          applied: true,
        },
      },
    },
    'list/merge/change_non_duplicated_item': {
      ops: [
        {
          op: 'update',
          manager: 'updater',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 2
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
        {
          op: 'forceApply',
          manager: 'applier',
          object: `
						list:
						- name: b
						  value1: 4
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- name: a
				  value1: 1
				- name: a
				  value1: 2
				- name: b
				  value1: 4
			`,
      apiVersion: 'v1',
      managed: {
        updater: {
          set: _NS(_P('list'), _P('list', _KBF('name', 'a')), _P('list', _KBF('name', 'b')), _P('list', _KBF('name', 'b'), 'name')),
          apiVersion: 'v1',
          applied: false,
        },
        applier: {
          set: _NS(_P('list', _KBF('name', 'b')), _P('list', _KBF('name', 'b'), 'name'), _P('list', _KBF('name', 'b'), 'value1')),
          apiVersion: 'v1',
          applied: true,
        },
      },
    },
    'list/merge/apply_update_duplicates_apply_without': {
      ops: [
        {
          op: 'apply',
          manager: 'applier',
          object: `
						list:
						- name: a
						  value1: 1
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
        {
          op: 'update',
          manager: 'updater',
          object: `
						list:
						- name: a
						  value1: 1
						- name: a
						  value1: 2
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'applier',
          object: `
						list:
						- name: b
						  value1: 3
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- name: a
				  value1: 1
				- name: a
				  value1: 2
				- name: b
				  value1: 3
			`,
      apiVersion: 'v1',
      managed: {
        applier: {
          set: _NS(_P('list', _KBF('name', 'b')), _P('list', _KBF('name', 'b'), 'name'), _P('list', _KBF('name', 'b'), 'value1')),
          apiVersion: 'v1',
          applied: true,
        },
        updater: { set: _NS(_P('list', _KBF('name', 'a'))), apiVersion: 'v1', applied: false },
      },
    },
  },
};
