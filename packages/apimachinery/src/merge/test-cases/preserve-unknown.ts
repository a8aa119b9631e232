// Ported as data from structured-merge-diff merge/preserve_unknown_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _NS, _P, type ParserSpec, type Table } from '../test-support/state.ts';

export const preserveUnknownParser: ParserSpec = {
  schema: `types:
- name: type
  map:
    fields:
      - name: num
        type:
          scalar: numeric
    elementType:
      scalar: string
`,
  typeName: 'type',
};

export const testPreserveUnknownFields: Table = {
  parser: preserveUnknownParser,
  cases: {
    preserve_unknown_fields: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						num: 5
						unknown: value
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						num: 6
						unknown: new
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				num: 6
				unknown: new
			`,
      apiVersion: 'v1',
      managed: { default: { set: _NS(_P('num'), _P('unknown')), apiVersion: 'v1', applied: false } },
    },
  },
};
