// Ported as data from structured-merge-diff merge/ignore_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _NS, _P, deducedParser, type Table } from '../test-support/state.ts';
import { nestedTypeParser } from './nested.ts';

export const testIgnoreFilter: Table = {
  parser: deducedParser,
  cases: {
    update_does_not_own_ignored: {
      apiVersion: 'v1',
      ops: [
        {
          op: 'update',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						numeric: 1
						string: "some string"
					`,
        },
      ],
      object: `
				numeric: 1
				string: "some string"
			`,
      managed: { default: { set: _NS(_P('numeric')), apiVersion: 'v1', applied: false } },
      ignoreFilter: { v1: { exclude: _NS(_P('string')) } },
    },
    update_does_not_own_deep_ignored: {
      apiVersion: 'v1',
      ops: [{ op: 'update', manager: 'default', apiVersion: 'v1', object: `{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}` }],
      object: `{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}`,
      managed: { default: { set: _NS(_P('numeric')), apiVersion: 'v1', applied: false } },
      ignoreFilter: { v1: { exclude: _NS(_P('obj')) } },
    },
    apply_does_not_own_ignored: {
      apiVersion: 'v1',
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						numeric: 1
						string: "some string"
					`,
        },
      ],
      object: `
				numeric: 1
				string: "some string"
			`,
      managed: { default: { set: _NS(_P('numeric')), apiVersion: 'v1', applied: true } },
      ignoreFilter: { v1: { exclude: _NS(_P('string')) } },
    },
    apply_does_not_own_deep_ignored: {
      apiVersion: 'v1',
      ops: [{ op: 'apply', manager: 'default', apiVersion: 'v1', object: `{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}` }],
      object: `{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}`,
      managed: { default: { set: _NS(_P('numeric')), apiVersion: 'v1', applied: true } },
      ignoreFilter: { v1: { exclude: _NS(_P('obj')) } },
    },
  },
};

export const testIgnoredFields: Table = {
  parser: deducedParser,
  cases: {
    update_does_not_own_ignored: {
      apiVersion: 'v1',
      ops: [
        {
          op: 'update',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						numeric: 1
						string: "some string"
					`,
        },
      ],
      object: `
				numeric: 1
				string: "some string"
			`,
      managed: { default: { set: _NS(_P('numeric')), apiVersion: 'v1', applied: false } },
      ignoredFields: { v1: _NS(_P('string')) },
    },
    update_does_not_own_deep_ignored: {
      apiVersion: 'v1',
      ops: [{ op: 'update', manager: 'default', apiVersion: 'v1', object: `{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}` }],
      object: `{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}`,
      managed: { default: { set: _NS(_P('numeric')), apiVersion: 'v1', applied: false } },
      ignoredFields: { v1: _NS(_P('obj')) },
    },
    apply_does_not_own_ignored: {
      apiVersion: 'v1',
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						numeric: 1
						string: "some string"
					`,
        },
      ],
      object: `
				numeric: 1
				string: "some string"
			`,
      managed: { default: { set: _NS(_P('numeric')), apiVersion: 'v1', applied: true } },
      ignoredFields: { v1: _NS(_P('string')) },
    },
    apply_does_not_own_deep_ignored: {
      apiVersion: 'v1',
      ops: [{ op: 'apply', manager: 'default', apiVersion: 'v1', object: `{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}` }],
      object: `{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}`,
      managed: { default: { set: _NS(_P('numeric')), apiVersion: 'v1', applied: true } },
      ignoredFields: { v1: _NS(_P('obj')) },
    },
  },
};

export const testFilteredFieldsUsesVersions: Table = {
  parser: nestedTypeParser,
  converter: 'repeatingConverter',
  cases: {
    does_use_ignored_fields_versions: {
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
			`,
      apiVersion: 'v4',
      managed: {
        'apply-one': { set: _NS(_P('mapOfMapsRecursive')), apiVersion: 'v4', applied: false },
        'apply-two': { set: _NS(_P('mapOfMapsRecursive', 'aa')), apiVersion: 'v2', applied: false },
      },
      ignoreFilter: {
        v1: { exclude: _NS(_P('mapOfMapsRecursive', 'c')) },
        v2: { exclude: _NS(_P('mapOfMapsRecursive', 'cc')) },
        v3: { exclude: _NS(_P('mapOfMapsRecursive', 'ccc')) },
        v4: { exclude: _NS(_P('mapOfMapsRecursive', 'cccc')) },
      },
    },
    update_does_not_steal_ignored: {
      apiVersion: 'v1',
      ops: [
        {
          op: 'update',
          manager: 'update-one',
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
          op: 'update',
          manager: 'update-two',
          object: `
						mapOfMapsRecursive:
						  a:
						    b:
						  c:
						    e:
					`,
          apiVersion: 'v2',
        },
      ],
      object: `
				mapOfMapsRecursive:
				  a:
				    b:
				  c:
				    e:
			`,
      managed: {
        'update-one': {
          set: _NS(
            _P('mapOfMapsRecursive'),
            _P('mapOfMapsRecursive', 'a'),
            _P('mapOfMapsRecursive', 'a', 'b'),
            _P('mapOfMapsRecursive', 'c'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
        'update-two': { set: _NS(_P('mapOfMapsRecursive', 'a'), _P('mapOfMapsRecursive', 'a', 'b')), apiVersion: 'v2', applied: false },
      },
      ignoreFilter: { v2: { exclude: _NS(_P('mapOfMapsRecursive', 'c')) } },
    },
    apply_does_not_steal_ignored: {
      apiVersion: 'v1',
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
						    b:
						  c:
						    e:
					`,
          apiVersion: 'v2',
        },
      ],
      object: `
				mapOfMapsRecursive:
				  a:
				    b:
				  c:
				    d:
			`,
      managed: {
        'apply-one': {
          set: _NS(
            _P('mapOfMapsRecursive', 'a'),
            _P('mapOfMapsRecursive', 'a', 'b'),
            _P('mapOfMapsRecursive', 'c'),
            _P('mapOfMapsRecursive', 'c', 'd'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
        'apply-two': { set: _NS(_P('mapOfMapsRecursive', 'a'), _P('mapOfMapsRecursive', 'a', 'b')), apiVersion: 'v2', applied: false },
      },
      ignoreFilter: { v2: { exclude: _NS(_P('mapOfMapsRecursive', 'c')) } },
    },
  },
};
