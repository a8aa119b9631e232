// Ported as data from structured-merge-diff merge/schema_change_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _KBF, _NS, _P, type ParserSpec, type Table } from '../test-support/state.ts';

export const structParser: ParserSpec = {
  schema: `types:
- name: v1
  map:
    fields:
      - name: struct
        type:
          namedType: struct
- name: struct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string`,
  typeByVersion: true,
};

export const structWithAtomicParser: ParserSpec = {
  schema: `types:
- name: v1
  map:
    fields:
      - name: struct
        type:
          namedType: struct
- name: struct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
    elementRelationship: atomic`,
  typeByVersion: true,
};

export const associativeListParserOld: ParserSpec = {
  schema: `types:
- name: v1
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
  typeByVersion: true,
};

export const associativeListParserNewOptionalKey: ParserSpec = {
  schema: `types:
- name: v1
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
    - id
- name: myElement
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: id
      type:
        scalar: numeric
    - name: value
      type:
        scalar: numeric
`,
  typeByVersion: true,
};

export const associativeListParserNewKeyWithDefault: ParserSpec = {
  schema: `types:
- name: v1
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
    - id
- name: myElement
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: id
      type:
        scalar: numeric
      default: 1
    - name: value
      type:
        scalar: numeric
`,
  typeByVersion: true,
};

export const associativeListParserPromoteKeyBefore: ParserSpec = {
  schema: `types:
- name: v1
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
    - name: id
      type:
        scalar: numeric
    - name: value
      type:
        scalar: numeric
`,
  typeByVersion: true,
};

export const associativeListParserPromoteKeyAfter: ParserSpec = {
  schema: `types:
- name: v1
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
    - id
- name: myElement
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: id
      type:
        scalar: numeric
    - name: value
      type:
        scalar: numeric
`,
  typeByVersion: true,
};

export const testGranularToAtomicSchemaChanges: Table = {
  parser: structParser,
  cases: {
    'to-atomic': {
      ops: [
        {
          op: 'apply',
          manager: 'one',
          object: `
						struct:
						  numeric: 1
					`,
          apiVersion: 'v1',
        },
        { op: 'changeParser', parser: structWithAtomicParser },
        {
          op: 'apply',
          manager: 'two',
          object: `
						struct:
						  string: "string"
					`,
          apiVersion: 'v1',
          conflicts: [{ manager: 'one', path: _P('struct') }],
        },
        {
          op: 'forceApply',
          manager: 'two',
          object: `
						struct:
						  string: "string"
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				struct:
				  string: "string"
			`,
      apiVersion: 'v1',
      managed: { two: { set: _NS(_P('struct')), apiVersion: 'v1', applied: true } },
    },
    'to-atomic-owner-with-no-child-fields': {
      ops: [
        {
          op: 'apply',
          manager: 'one',
          object: `
						struct:
						  numeric: 1
					`,
          apiVersion: 'v1',
        },
        {
          op: 'forceApply',
          manager: 'two',
          object: `
						struct:
						  numeric: 2
					`,
          apiVersion: 'v1',
        },
        { op: 'changeParser', parser: structWithAtomicParser },
        {
          op: 'apply',
          manager: 'three',
          object: `
						struct:
						  string: "string"
					`,
          apiVersion: 'v1',
          conflicts: [{ manager: 'two', path: _P('struct') }],
        },
        {
          op: 'forceApply',
          manager: 'two',
          object: `
						struct:
						  string: "string"
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				struct:
				  string: "string"
			`,
      apiVersion: 'v1',
      managed: { two: { set: _NS(_P('struct')), apiVersion: 'v1', applied: true } },
    },
  },
};

export const testAtomicToGranularSchemaChanges: Table = {
  parser: structWithAtomicParser,
  cases: {
    'to-granular': {
      ops: [
        {
          op: 'apply',
          manager: 'one',
          object: `
						struct:
						  numeric: 1
						  string: "a"
					`,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'two',
          object: `
						struct:
						  string: "b"
					`,
          apiVersion: 'v1',
          conflicts: [{ manager: 'one', path: _P('struct') }],
        },
        { op: 'changeParser', parser: structParser },
        {
          op: 'apply',
          manager: 'two',
          object: `
						struct:
						  string: "b"
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				struct:
				  numeric: 1
				  string: "b"
			`,
      apiVersion: 'v1',
      managed: {
        one: { set: _NS(_P('struct')), apiVersion: 'v1', applied: true },
        two: { set: _NS(_P('struct', 'string')), apiVersion: 'v1', applied: true },
      },
    },
  },
};

export const testAssociativeListSchemaChanges: Table = {
  parser: associativeListParserOld,
  cases: {
    'new required key with default': {
      ops: [
        {
          op: 'apply',
          manager: 'one',
          object: `
						list:
						- name: a
						  value: 1
						- name: b
						  value: 1
						- name: c
						  value: 1
					`,
          apiVersion: 'v1',
        },
        { op: 'changeParser', parser: associativeListParserNewKeyWithDefault },
        {
          op: 'apply',
          manager: 'one',
          object: `
						list:
						- name: a
						  value: 2
						- name: b
						  id: 1
						  value: 2
						- name: c
						  value: 1
						- name: c
						  id: 2
						  value: 2
						- name: c
						  id: 3
						  value: 3
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- name: a
				  value: 2
				- name: b
				  id: 1
				  value: 2
				- name: c
				  value: 1
				- name: c
				  id: 2
				  value: 2
				- name: c
				  id: 3
				  value: 3
			`,
      apiVersion: 'v1',
      managed: {
        one: {
          set: _NS(
            _P('list', _KBF('name', 'a', 'id', 1)),
            _P('list', _KBF('name', 'a', 'id', 1), 'name'),
            _P('list', _KBF('name', 'a', 'id', 1), 'value'),
            _P('list', _KBF('name', 'b', 'id', 1)),
            _P('list', _KBF('name', 'b', 'id', 1), 'name'),
            _P('list', _KBF('name', 'b', 'id', 1), 'id'),
            _P('list', _KBF('name', 'b', 'id', 1), 'value'),
            _P('list', _KBF('name', 'c', 'id', 1)),
            _P('list', _KBF('name', 'c', 'id', 1), 'name'),
            _P('list', _KBF('name', 'c', 'id', 1), 'value'),
            _P('list', _KBF('name', 'c', 'id', 2)),
            _P('list', _KBF('name', 'c', 'id', 2), 'name'),
            _P('list', _KBF('name', 'c', 'id', 2), 'id'),
            _P('list', _KBF('name', 'c', 'id', 2), 'value'),
            _P('list', _KBF('name', 'c', 'id', 3)),
            _P('list', _KBF('name', 'c', 'id', 3), 'name'),
            _P('list', _KBF('name', 'c', 'id', 3), 'id'),
            _P('list', _KBF('name', 'c', 'id', 3), 'value'),
          ),
          apiVersion: 'v1',
          applied: true,
        },
      },
    },
    'new optional key': {
      ops: [
        {
          op: 'apply',
          manager: 'one',
          object: `
						list:
						- name: a
						  value: 1
					`,
          apiVersion: 'v1',
        },
        { op: 'changeParser', parser: associativeListParserNewOptionalKey },
        {
          op: 'apply',
          manager: 'one',
          object: `
						list:
						- name: a
						  value: 2
						- name: a
						  id: 1
						  value: 1
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- name: a
				  value: 2
				- name: a
				  id: 1
				  value: 1
			`,
      apiVersion: 'v1',
      managed: {
        one: {
          set: _NS(
            _P('list', _KBF('name', 'a')),
            _P('list', _KBF('name', 'a'), 'name'),
            _P('list', _KBF('name', 'a'), 'value'),
            _P('list', _KBF('name', 'a', 'id', 1)),
            _P('list', _KBF('name', 'a', 'id', 1), 'name'),
            _P('list', _KBF('name', 'a', 'id', 1), 'id'),
            _P('list', _KBF('name', 'a', 'id', 1), 'value'),
          ),
          apiVersion: 'v1',
          applied: true,
        },
      },
    },
  },
};

export const testPromoteFieldToAssociativeListKey: Table = {
  parser: associativeListParserPromoteKeyBefore,
  cases: {
    'identical item merges': {
      ops: [
        {
          op: 'apply',
          manager: 'one',
          object: `
						list:
						- name: a
						  id: 1
						  value: 1
					`,
          apiVersion: 'v1',
        },
        { op: 'changeParser', parser: associativeListParserPromoteKeyAfter },
        {
          op: 'apply',
          manager: 'one',
          object: `
						list:
						- name: a
						  id: 1
						  value: 2
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- name: a
				  id: 1
				  value: 2
			`,
      apiVersion: 'v1',
      managed: {
        one: {
          set: _NS(
            _P('list', _KBF('name', 'a', 'id', 1)),
            _P('list', _KBF('name', 'a', 'id', 1), 'name'),
            _P('list', _KBF('name', 'a', 'id', 1), 'id'),
            _P('list', _KBF('name', 'a', 'id', 1), 'value'),
          ),
          apiVersion: 'v1',
          applied: true,
        },
      },
    },
    'distinct item added': {
      ops: [
        {
          op: 'apply',
          manager: 'one',
          object: `
						list:
						- name: a
						  id: 1
						  value: 1
					`,
          apiVersion: 'v1',
        },
        { op: 'changeParser', parser: associativeListParserPromoteKeyAfter },
        {
          op: 'apply',
          manager: 'one',
          object: `
						list:
						- name: a
						  id: 1
						  value: 1
						- name: a
						  id: 2
						  value: 2
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- name: a
				  id: 1
				  value: 1
				- name: a
				  id: 2
				  value: 2
			`,
      apiVersion: 'v1',
      managed: {
        one: {
          set: _NS(
            _P('list', _KBF('name', 'a', 'id', 1)),
            _P('list', _KBF('name', 'a', 'id', 1), 'name'),
            _P('list', _KBF('name', 'a', 'id', 1), 'id'),
            _P('list', _KBF('name', 'a', 'id', 1), 'value'),
            _P('list', _KBF('name', 'a', 'id', 2)),
            _P('list', _KBF('name', 'a', 'id', 2), 'name'),
            _P('list', _KBF('name', 'a', 'id', 2), 'id'),
            _P('list', _KBF('name', 'a', 'id', 2), 'value'),
          ),
          apiVersion: 'v1',
          applied: true,
        },
      },
    },
    'item missing new key field is distinct': {
      ops: [
        {
          op: 'apply',
          manager: 'one',
          object: `
						list:
						- name: a
						  value: 1
					`,
          apiVersion: 'v1',
        },
        { op: 'changeParser', parser: associativeListParserPromoteKeyAfter },
        {
          op: 'apply',
          manager: 'one',
          object: `
						list:
						- name: a
						  value: 1
						- name: a
						  id: 2
						  value: 2
					`,
          apiVersion: 'v1',
        },
      ],
      object: `
				list:
				- name: a
				  value: 1
				- name: a
				  id: 2
				  value: 2
			`,
      apiVersion: 'v1',
      managed: {
        one: {
          set: _NS(
            _P('list', _KBF('name', 'a')),
            _P('list', _KBF('name', 'a'), 'name'),
            _P('list', _KBF('name', 'a'), 'value'),
            _P('list', _KBF('name', 'a', 'id', 2)),
            _P('list', _KBF('name', 'a', 'id', 2), 'name'),
            _P('list', _KBF('name', 'a', 'id', 2), 'id'),
            _P('list', _KBF('name', 'a', 'id', 2), 'value'),
          ),
          apiVersion: 'v1',
          applied: true,
        },
      },
    },
  },
};
