// Ported as data from structured-merge-diff merge/default_keys_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _KBF, _NS, _P, type ParserSpec, type Table } from '../test-support/state.ts';

export const portListParser: ParserSpec = {
  schema: `types:
- name: v1
  map:
    fields:
      - name: containerPorts
        type:
          list:
            elementType:
              map:
                fields:
                - name: port
                  type:
                    scalar: numeric
                - name: protocol
                  default: "TCP"
                  type:
                    scalar: string
                - name: name
                  type:
                    scalar: string
            elementRelationship: associative
            keys:
            - port
            - protocol
`,
  typeByVersion: true,
};

export const bookParser: ParserSpec = {
  schema: `types:
- name: v1
  map:
    fields:
      - name: book
        type:
          list:
            elementType:
              map:
                fields:
                - name: chapter
                  default: 1
                  type:
                    scalar: numeric
                - name: section
                  default: "A"
                  type:
                    scalar: string
                - name: sentences
                  type:
                    list:
                      elementType:
                        map:
                          fields:
                          - name: page
                            default: 2.0
                            type:
                              scalar: numeric
                          - name: line
                            default: 3
                            type:
                              scalar: numeric
                          - name: text
                            type:
                              scalar: string
                      elementRelationship: associative
                      keys:
                      - page
                      - line
            elementRelationship: associative
            keys:
            - chapter
            - section
`,
  typeByVersion: true,
};

export const testDefaultKeysFlat: Table = {
  parser: portListParser,
  cases: {
    apply_missing_defaulted_key_A: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						containerPorts:
						- port: 80
					`,
        },
      ],
      apiVersion: 'v1',
      object: `
				containerPorts:
				- port: 80
			`,
      managed: {
        default: {
          set: _NS(
            _P('containerPorts', _KBF('port', 80, 'protocol', 'TCP')),
            _P('containerPorts', _KBF('port', 80, 'protocol', 'TCP'), 'port'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    apply_missing_defaulted_key_B: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						containerPorts:
						- port: 80
						- port: 80
						  protocol: UDP
					`,
        },
      ],
      apiVersion: 'v1',
      object: `
				containerPorts:
				- port: 80
				- port: 80
				  protocol: UDP
			`,
      managed: {
        default: {
          set: _NS(
            _P('containerPorts', _KBF('port', 80, 'protocol', 'TCP')),
            _P('containerPorts', _KBF('port', 80, 'protocol', 'TCP'), 'port'),
            _P('containerPorts', _KBF('port', 80, 'protocol', 'UDP')),
            _P('containerPorts', _KBF('port', 80, 'protocol', 'UDP'), 'port'),
            _P('containerPorts', _KBF('port', 80, 'protocol', 'UDP'), 'protocol'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    apply_missing_defaulted_key_with_conflict: {
      ops: [
        {
          op: 'apply',
          manager: 'apply-one',
          apiVersion: 'v1',
          object: `
						containerPorts:
						- port: 80
						  protocol: TCP
						  name: foo
					`,
        },
        {
          op: 'apply',
          manager: 'apply-two',
          apiVersion: 'v1',
          object: `
						containerPorts:
						- port: 80
						  name: bar
					`,
          conflicts: [{ manager: 'apply-one', path: _P('containerPorts', _KBF('port', 80, 'protocol', 'TCP'), 'name') }],
        },
      ],
      apiVersion: 'v1',
      object: `
				containerPorts:
				- port: 80
				  protocol: TCP
				  name: foo
			`,
      managed: {
        'apply-one': {
          set: _NS(
            _P('containerPorts', _KBF('port', 80, 'protocol', 'TCP')),
            _P('containerPorts', _KBF('port', 80, 'protocol', 'TCP'), 'port'),
            _P('containerPorts', _KBF('port', 80, 'protocol', 'TCP'), 'protocol'),
            _P('containerPorts', _KBF('port', 80, 'protocol', 'TCP'), 'name'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    apply_missing_undefaulted_defaulted_key: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						containerPorts:
						- protocol: TCP
						  name: A
					`,
        },
      ],
      apiVersion: 'v1',
      object: `
				containerPorts:
				- protocol: TCP
				  name: A
			`,
      managed: {
        default: {
          set: _NS(
            _P('containerPorts', _KBF('protocol', 'TCP')),
            _P('containerPorts', _KBF('protocol', 'TCP'), 'name'),
            _P('containerPorts', _KBF('protocol', 'TCP'), 'protocol'),
          ),
          apiVersion: 'v1',
          applied: true,
        },
      },
    },
  },
};

export const testDefaultKeysFlatErrors: Table = {
  parser: portListParser,
  expectError: true,
  cases: {
    apply_missing_defaulted_key_ambiguous_A: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						containerPorts:
						- port: 80
						- port: 80
					`,
        },
      ],
    },
    apply_missing_defaulted_key_ambiguous_B: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						containerPorts:
						- port: 80
						- port: 80
						  protocol: TCP
					`,
        },
      ],
    },
  },
};

export const testDefaultKeysNested: Table = {
  parser: bookParser,
  cases: {
    apply_missing_every_key_nested: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						book:
						- sentences:
						  - text: blah
					`,
        },
      ],
      apiVersion: 'v1',
      object: `
				book:
				- sentences:
				  - text: blah
			`,
      managed: {
        default: {
          set: _NS(
            _P('book', _KBF('chapter', 1, 'section', 'A')),
            _P('book', _KBF('chapter', 1, 'section', 'A'), 'sentences', _KBF('page', 2, 'line', 3)),
            _P('book', _KBF('chapter', 1, 'section', 'A'), 'sentences', _KBF('page', 2, 'line', 3), 'text'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
    apply_integer_key_with_float_default: {
      ops: [
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						book:
						- sentences:
						  - text: blah
					`,
        },
        {
          op: 'apply',
          manager: 'default',
          apiVersion: 'v1',
          object: `
						book:
						- sentences:
						  - text: blah
						    page: 2
					`,
        },
      ],
      apiVersion: 'v1',
      object: `
				book:
				- sentences:
				  - text: blah
				    page: 2
			`,
      managed: {
        default: {
          set: _NS(
            _P('book', _KBF('chapter', 1, 'section', 'A')),
            _P('book', _KBF('chapter', 1, 'section', 'A'), 'sentences', _KBF('page', 2, 'line', 3)),
            _P('book', _KBF('chapter', 1, 'section', 'A'), 'sentences', _KBF('page', 2, 'line', 3), 'text'),
            _P('book', _KBF('chapter', 1, 'section', 'A'), 'sentences', _KBF('page', 2, 'line', 3), 'page'),
          ),
          apiVersion: 'v1',
          applied: false,
        },
      },
    },
  },
};
