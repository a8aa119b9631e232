// Ported as data from structured-merge-diff merge/field_level_overrides_test.go (Apache-2.0): the table-driven
// cases for the Updater, run by ../merge.test.ts through test-support/state.ts.
import { _NS, _P, _V, type ParserSpec, type Table } from '../test-support/state.ts';

export const overrideStructTypeParser: ParserSpec = {
  schema: `
        types:
        - name: type
          map:
            fields:
              - name: associativeListReference
                type:
                  namedType: associativeList
                  elementRelationship: atomic
              - name: separableInlineList
                type:
                  list:
                    elementType:
                      scalar: numeric
                    elementRelationship: atomic
                  elementRelationship: associative
              - name: separableMapReference
                type:
                  namedType: atomicMap
                  elementRelationship: separable
              - name: atomicMapReference
                type:
                  namedType: unspecifiedMap
                  elementRelationship: atomic

        - name: associativeList
          list:
            elementType:
              namedType: unspecifiedMap
              elementRelationship: atomic
            elementRelationship: associative
            keys:
            - name
        - name: unspecifiedMap
          map:
            fields:
            - name: name
              type:
                scalar: string
            - name: value
              type:
                scalar: numeric
        - name: atomicMap
          map:
            elementRelationship: atomic
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

export const testFieldLevelOverrides: Table = {
  parser: overrideStructTypeParser,
  cases: {
    test_override_atomic_map_with_separable: {
      ops: [
        {
          op: 'apply',
          manager: 'apply_one',
          object: `
                        separableMapReference:
                          name: a
                    `,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply_two',
          object: `
                        separableMapReference:
                          value: 2
                    `,
          apiVersion: 'v1',
        },
      ],
      object: `
                separableMapReference:
                  name: a
                  value: 2
            `,
      apiVersion: 'v1',
      managed: {
        apply_one: { set: _NS(_P('separableMapReference', 'name')), apiVersion: 'v1', applied: false },
        apply_two: { set: _NS(_P('separableMapReference', 'value')), apiVersion: 'v1', applied: false },
      },
    },
    test_override_unspecified_map_with_atomic: {
      ops: [
        {
          op: 'apply',
          manager: 'apply_one',
          object: `
                        atomicMapReference:
                          name: a
                    `,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply_two',
          object: `
                        atomicMapReference:
                          value: 2
                    `,
          apiVersion: 'v1',
          conflicts: [{ manager: 'apply_one', path: _P('atomicMapReference') }],
        },
        {
          op: 'apply',
          manager: 'apply_one',
          object: `
                        atomicMapReference:
                          name: b
                          value: 2
                    `,
          apiVersion: 'v1',
        },
      ],
      object: `
                atomicMapReference:
                  name: b
                  value: 2
            `,
      apiVersion: 'v1',
      managed: { apply_one: { set: _NS(_P('atomicMapReference')), apiVersion: 'v1', applied: false } },
    },
    test_override_associative_list_with_atomic: {
      ops: [
        {
          op: 'apply',
          manager: 'apply_one',
          object: `
                        associativeListReference:
                          - name: a
                            value: 1
                    `,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply_two',
          object: `
                        associativeListReference:
                        - name: b
                          value: 2
                    `,
          apiVersion: 'v1',
          conflicts: [{ manager: 'apply_one', path: _P('associativeListReference') }],
        },
      ],
      object: `
                associativeListReference:
                  - name: a
                    value: 1
            `,
      apiVersion: 'v1',
      managed: { apply_one: { set: _NS(_P('associativeListReference')), apiVersion: 'v1', applied: false } },
    },
    test_override_inline_atomic_list_with_associative: {
      ops: [
        {
          op: 'apply',
          manager: 'apply_one',
          object: `
                        separableInlineList:
                        - 1
                    `,
          apiVersion: 'v1',
        },
        {
          op: 'apply',
          manager: 'apply_two',
          object: `
                        separableInlineList:
                        - 2
                    `,
          apiVersion: 'v1',
        },
      ],
      object: `
                separableInlineList:
                - 1
                - 2
            `,
      apiVersion: 'v1',
      managed: {
        apply_one: { set: _NS(_P('separableInlineList', _V(1))), apiVersion: 'v1', applied: true },
        apply_two: { set: _NS(_P('separableInlineList', _V(2))), apiVersion: 'v1', applied: true },
      },
    },
  },
};
