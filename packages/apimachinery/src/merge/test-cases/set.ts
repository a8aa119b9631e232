// Ported as data from structured-merge-diff merge/set_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _NS, _P, _V, type ParserSpec, type Table } from '../test-support/state.ts';

export const setFieldsParser: ParserSpec = {
  schema: `types:
- name: sets
  map:
    fields:
    - name: list
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative`,
  typeName: 'sets',
};

export const testUpdateSet: Table = {
  parser: setFieldsParser,
  cases: {
    apply_twice: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- c
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
      ],
      object: `
				list:
				- a
				- b
				- c
				- d
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(_P('list', _V('a')), _P('list', _V('b')), _P('list', _V('c')), _P('list', _V('d'))),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    apply_update_apply_no_overlap: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- c
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- aprime
						- c
						- cprime
					`,
        },
      ],
      object: `
				list:
				- a
				- b
				- aprime
				- c
				- d
				- cprime
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(_P('list', _V('a')), _P('list', _V('aprime')), _P('list', _V('c')), _P('list', _V('cprime'))),
          apiVersion: 'v1',
          applied: false,
        },
        controller: { set: _NS(_P('list', _V('b')), _P('list', _V('d'))), apiVersion: 'v1', applied: false },
      },
    },
    apply_update_apply_no_overlap_and_different_version: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- c
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v2',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- aprime
						- c
						- cprime
					`,
        },
      ],
      object: `
				list:
				- a
				- b
				- aprime
				- c
				- d
				- cprime
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(_P('list', _V('a')), _P('list', _V('aprime')), _P('list', _V('c')), _P('list', _V('cprime'))),
          apiVersion: 'v1',
          applied: false,
        },
        controller: { set: _NS(_P('list', _V('b')), _P('list', _V('d'))), apiVersion: 'v2', applied: false },
      },
    },
    apply_update_apply_with_overlap: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- c
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- b
						- c
					`,
        },
      ],
      object: `
				list:
				- a
				- b
				- c
				- d
			`,
      apiVersion: 'v1',
      managed: {
        default: { set: _NS(_P('list', _V('a')), _P('list', _V('b')), _P('list', _V('c'))), apiVersion: 'v1', applied: false },
        controller: { set: _NS(_P('list', _V('b')), _P('list', _V('d'))), apiVersion: 'v1', applied: false },
      },
    },
    apply_update_apply_with_overlap_and_different_version: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- c
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v2',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- b
						- c
					`,
        },
      ],
      object: `
				list:
				- a
				- b
				- c
				- d
			`,
      apiVersion: 'v1',
      managed: {
        default: { set: _NS(_P('list', _V('a')), _P('list', _V('b')), _P('list', _V('c'))), apiVersion: 'v1', applied: false },
        controller: { set: _NS(_P('list', _V('b')), _P('list', _V('d'))), apiVersion: 'v2', applied: false },
      },
    },
    apply_twice_reorder: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- d
						- c
						- b
					`,
        },
      ],
      object: `
				list:
				- a
				- d
				- c
				- b
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(_P('list', _V('a')), _P('list', _V('b')), _P('list', _V('c')), _P('list', _V('d'))),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    apply_update_apply_reorder: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- d
						- c
						- b
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
      ],
      object: `
				list:
				- a
				- b
				- c
				- d
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(_P('list', _V('a')), _P('list', _V('b')), _P('list', _V('c')), _P('list', _V('d'))),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    apply_update_apply_reorder_across_versions: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- d
						- c
						- b
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v2',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
      ],
      object: `
				list:
				- a
				- b
				- c
				- d
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(_P('list', _V('a')), _P('list', _V('b')), _P('list', _V('c')), _P('list', _V('d'))),
          apiVersion: 'v2',
          applied: false,
        },
      },
    },
    apply_twice_remove: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- c
					`,
        },
      ],
      object: `
				list:
				- a
				- c
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('list', _V('a')), _P('list', _V('c'))), apiVersion: 'v1', applied: false } },
    },
    apply_twice_remove_across_versions: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						list:
						- a
						- b
						- c
						- d
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v2',
          object: `
						list:
						- a
						- c
						- e
					`,
        },
      ],
      object: `
				list:
				- a
				- c
				- e
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('list', _V('a')), _P('list', _V('c')), _P('list', _V('e'))), apiVersion: 'v2', applied: false } },
    },
  },
};
