// Ported as data from structured-merge-diff merge/deduced_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _NS, _P, deducedParser, type Table } from '../test-support/state.ts';

export const testDeduced: Table = {
  parser: deducedParser,
  cases: {
    leaf_apply_twice: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						numeric: 1
						string: "string"
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						numeric: 2
						string: "string"
						bool: false
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				numeric: 2
				string: "string"
				bool: false
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('numeric'), _P('string'), _P('bool')), apiVersion: 'v1', applied: false } },
    },
    leaf_apply_update_apply_no_conflict: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						numeric: 1
						string: "string"
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v1',
          object: `
						numeric: 1
						string: "string"
						bool: true
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						numeric: 2
						string: "string"
					`,
        },
      ],
      object: `
				numeric: 2
				string: "string"
				bool: true
			`,
      apiVersion: 'v1',
      managed: {
        default: { set: _NS(_P('numeric'), _P('string')), apiVersion: 'v1', applied: false },
        controller: { set: _NS(_P('bool')), apiVersion: 'v1', applied: false },
      },
    },
    leaf_apply_update_apply_with_conflict: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						numeric: 1
						string: "string"
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v1',
          object: `
						numeric: 1
						string: "controller string"
						bool: true
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						numeric: 2
						string: "user string"
					`,
          conflicts: [{ manager: 'controller', path: _P('string') }],
        },
        {
          op: 'forceApply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						numeric: 2
						string: "user string"
					`,
        },
      ],
      object: `
				numeric: 2
				string: "user string"
				bool: true
			`,
      apiVersion: 'v1',
      managed: {
        default: { set: _NS(_P('numeric'), _P('string')), apiVersion: 'v1', applied: false },
        controller: { set: _NS(_P('bool')), apiVersion: 'v1', applied: false },
      },
    },
    leaf_apply_twice_remove: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						numeric: 1
						string: "string"
						bool: false
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						string: "new string"
					`,
        },
      ],
      object: `
				string: "new string"
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('string')), apiVersion: 'v1', applied: false } },
    },
    leaf_update_remove_empty_set: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						string: "string"
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v1',
          object: `
						string: "new string"
					`,
        },
      ],
      object: `
				string: "new string"
			`,
      apiVersion: 'v1',
      managed: { controller: { set: _NS(_P('string')), apiVersion: 'v1', applied: false } },
    },
    apply_twice_list_is_atomic: {
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
      managed: { default: { set: _NS(_P('list')), apiVersion: 'v1', applied: false } },
    },
    apply_update_apply_list: {
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
          op: 'forceApply',
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
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('list')), apiVersion: 'v1', applied: false } },
    },
    leaf_apply_remove_empty_set: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						string: "string"
					`,
        },
        { op: 'apply', manager: 'default', apiVersion: 'v1', object: `` },
      ],
      object: ``,
      apiVersion: 'v1',
      managed: {},
    },
    apply_update_apply_nested: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						a: 1
						b:
						  c:
						    d: 2
						    e:
						    - 1
						    - 2
						    - 3
						    f:
						    - name: n
						      value: 1
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v1',
          object: `
						a: 1
						b:
						  c:
						    d: 3
						    e:
						    - 1
						    - 2
						    - 3
						    - 4
						    f:
						    - name: n
						      value: 2
						g: 5
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						a: 2
						b:
						  c:
						    d: 2
						    e:
						    - 3
						    - 2
						    - 1
						    f:
						    - name: n
						      value: 1
					`,
          conflicts: [
            { manager: 'controller', path: _P('b', 'c', 'd') },
            { manager: 'controller', path: _P('b', 'c', 'e') },
            { manager: 'controller', path: _P('b', 'c', 'f') },
          ],
        },
        {
          op: 'forceApply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						a: 2
						b:
						  c:
						    d: 2
						    e:
						    - 3
						    - 2
						    - 1
						    f:
						    - name: n
						      value: 1
					`,
        },
      ],
      object: `
				a: 2
				b:
				  c:
				    d: 2
				    e:
				    - 3
				    - 2
				    - 1
				    f:
				    - name: n
				      value: 1
				g: 5
			`,
      apiVersion: 'v1',
    },
    apply_update_apply_nested_different_version: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						a: 1
						b:
						  c:
						    d: 2
						    e:
						    - 1
						    - 2
						    - 3
						    f:
						    - name: n
						      value: 1
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v2',
          object: `
						a: 1
						b:
						  c:
						    d: 3
						    e:
						    - 1
						    - 2
						    - 3
						    - 4
						    f:
						    - name: n
						      value: 2
						g: 5
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v3',
          object: `
						a: 2
						b:
						  c:
						    d: 2
						    e:
						    - 3
						    - 2
						    - 1
						    f:
						    - name: n
						      value: 1
					`,
          conflicts: [
            { manager: 'controller', path: _P('b', 'c', 'd') },
            { manager: 'controller', path: _P('b', 'c', 'e') },
            { manager: 'controller', path: _P('b', 'c', 'f') },
          ],
        },
        {
          op: 'forceApply',
          manager: 'default',
          apiVersion: 'v3',
          object: `
						a: 2
						b:
						  c:
						    d: 2
						    e:
						    - 3
						    - 2
						    - 1
						    f:
						    - name: n
						      value: 1
					`,
        },
      ],
      object: `
				a: 2
				b:
				  c:
				    d: 2
				    e:
				    - 3
				    - 2
				    - 1
				    f:
				    - name: n
				      value: 1
				g: 5
			`,
      apiVersion: 'v1',
    },
  },
};
