// Ported as data from structured-merge-diff merge/key_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _KBF, _NS, _P, type ParserSpec, type Table } from '../test-support/state.ts';

export const associativeListParser: ParserSpec = {
  schema: `types:
- name: type
  map:
    fields:
      - name: list
        type:
          namedType: associativeList
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
    - name: value
      type:
        scalar: numeric
`,
  typeName: 'type',
};

export const testUpdateAssociativeLists: Table = {
  parser: associativeListParser,
  cases: {
    removing_obsolete_applied_structs: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          object: `
						list:
						- name: a
						  value: 1
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'default',
          object: `
						list:
						- name: b
						  value: 2
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- name: b
				  value: 2
			`,
      apiVersion: 'v1',
      managed: {
        default: {
          set: _NS(_P('list', _KBF('name', 'b')), _P('list', _KBF('name', 'b'), 'name'), _P('list', _KBF('name', 'b'), 'value')),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
  },
};
