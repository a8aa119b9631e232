// Ported as data from structured-merge-diff merge/leaf_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _NS, _P, type ParserSpec, type Table } from '../test-support/state.ts';

export const leafFieldsParser: ParserSpec = {
  schema: `types:
- name: leafFields
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
        scalar: boolean`,
  typeName: 'leafFields',
};

export const testUpdateLeaf: Table = {
  parser: leafFieldsParser,
  cases: {
    apply_twice: {
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
    apply_twice_different_versions: {
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
          apiVersion: 'v2',
        },
      ],
      object: `
				numeric: 2
				string: "string"
				bool: false
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('numeric'), _P('string'), _P('bool')), apiVersion: 'v2', applied: false } },
    },
    apply_update_apply_no_conflict: {
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
    apply_update_apply_no_conflict_different_version: {
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
          apiVersion: 'v2',
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
        controller: { set: _NS(_P('bool')), apiVersion: 'v2', applied: false },
      },
    },
    apply_update_apply_with_conflict: {
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
    apply_update_apply_with_conflict_across_version: {
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
          apiVersion: 'v2',
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
        controller: { set: _NS(_P('bool')), apiVersion: 'v2', applied: false },
      },
    },
    apply_twice_remove: {
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
    update_apply_omits: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						numeric: 2
					`,
        },
        {
          op: 'update',
          manager: 'controller',
          apiVersion: 'v1',
          object: `
						numeric: 1
					`,
        },
        { op: 'apply', manager: 'default', apiVersion: 'v1', object: `` },
      ],
      object: `
						numeric: 1
			`,
      apiVersion: 'v1',
      managed: { controller: { set: _NS(_P('numeric')), apiVersion: 'v1', applied: false } },
    },
    apply_twice_remove_different_version: {
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
          apiVersion: 'v2',
          object: `
						string: "new string"
					`,
        },
      ],
      object: `
				string: "new string"
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('string')), apiVersion: 'v2', applied: false } },
    },
    update_remove_empty_set: {
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
    apply_remove_empty_set: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						string: "string"
					`,
        },
        { op: 'apply', manager: 'default', apiVersion: 'v1', object: '' },
      ],
      object: `
			`,
      apiVersion: 'v1',
      managed: {},
    },
  },
};
