import { describe, expect, it } from 'vitest';
import type { FieldSet } from '../fieldpath/set.ts';
import { ensureNamedFieldsAreMembers } from './ensure-named-fields.ts';
import { KBF, NS, P, typeOf, y } from './test-support/smd.ts';
import { toFieldSet } from './to-field-set.ts';

// SMD fieldpath/set_test.go TestEnsureNamedFieldsAreMembers, as data.
const nestedSchema = `types:
- name: type
  map:
    elementType:
      namedType: type
    fields:
      - name: keyAStr
        type:
          scalar: string
      - name: keyBInt
        type:
          scalar: numeric
      - name: named
        type:
          namedType: type
      - name: list
        type:
          list:
            elementRelationship: associative
            keys: ["keyAStr", "keyBInt"]
            elementType:
              namedType: type
      - name: a
        type:
          namedType: type
      - name: value
        type:
          scalar: numeric
`;

const associativeListSchema = `types:
- name: type
  map:
    fields:
      - name: values
        type:
          list:
            elementRelationship: associative
            keys: ["keyAStr", "keyBInt"]
            elementType:
              map:
                fields:
                  - name: keyAStr
                    type:
                      scalar: string
                  - name: keyBInt
                    type:
                      scalar: numeric
                  - name: value
                    type:
                      scalar: numeric
`;

// No keyBInt yet.
const oldAssociativeListSchema = `types:
- name: type
  map:
    fields:
      - name: values
        type:
          list:
            elementRelationship: associative
            keys: ["keyAStr"]
            elementType:
              map:
                fields:
                  - name: keyAStr
                    type:
                      scalar: string
                  - name: value
                    type:
                      scalar: numeric
`;

const item = KBF('keyAStr', 'a', 'keyBInt', 1);
const cases: { schema: string; newSchema?: string; value: string; before: FieldSet; after: FieldSet }[] = [
  {
    schema: nestedSchema,
    value: '{"named": {"named": {"value": 0}}}',
    before: NS(P('named', 'named', 'value')),
    after: NS(P('named', 'named', 'value'), P('named', 'named'), P('named')),
  },
  {
    schema: nestedSchema,
    value: '{"named": {"a": {"named": {"value": 42}}}, "a": {"named": {"value": 1}}}',
    before: NS(P('named', 'a', 'named', 'value'), P('a', 'named', 'value')),
    after: NS(
      P('named', 'a', 'named', 'value'),
      P('named', 'a', 'named'),
      P('named', 'a'),
      P('named'),
      P('a', 'named', 'value'),
      P('a', 'named'),
      P('a'),
    ),
  },
  {
    schema: nestedSchema,
    value: '{"named": {"list": [{"keyAStr": "a", "keyBInt": 1, "named": {"value": 0}}]}}',
    before: NS(
      P('named', 'list', item, 'keyAStr'),
      P('named', 'list', item, 'keyBInt'),
      P('named', 'list', item, 'named', 'value'),
      P('named', 'list', item),
    ),
    after: NS(
      P('named', 'list', item, 'keyAStr'),
      P('named', 'list', item, 'keyBInt'),
      P('named', 'list', item, 'named', 'value'),
      P('named', 'list', item, 'named'),
      P('named', 'list', item),
      P('named', 'list'),
      P('named'),
    ),
  },
  {
    // A set recorded under the old schema (missing key field) read with the new one.
    schema: oldAssociativeListSchema,
    newSchema: associativeListSchema,
    value: '{"values": [{"keyAStr": "a", "value": 0}]}',
    before: NS(P('values', KBF('keyAStr', 'a'), 'keyAStr'), P('values', KBF('keyAStr', 'a'), 'value'), P('values', KBF('keyAStr', 'a'))),
    after: NS(
      P('values', KBF('keyAStr', 'a'), 'keyAStr'),
      P('values', KBF('keyAStr', 'a'), 'value'),
      P('values', KBF('keyAStr', 'a')),
      P('values'),
    ),
  },
  {
    // A value missing a key field, with the recent schema: the key is not added.
    schema: associativeListSchema,
    value: '{"values": [{"keyAStr": "a", "value": 1}]}',
    before: NS(P('values', KBF('keyAStr', 'a'), 'keyAStr'), P('values', KBF('keyAStr', 'a'), 'value'), P('values', KBF('keyAStr', 'a'))),
    after: NS(
      P('values', KBF('keyAStr', 'a'), 'keyAStr'),
      P('values', KBF('keyAStr', 'a'), 'value'),
      P('values', KBF('keyAStr', 'a')),
      P('values'),
    ),
  },
];

describe('ensureNamedFieldsAreMembers (SMD set_test)', () => {
  cases.forEach((c, i) => {
    it(`case ${i}: ${c.value}`, () => {
      const set = toFieldSet(typeOf(c.schema, 'type'), y(c.value));
      expect(set.equals(c.before), `before\n${set}`).toBe(true);
      const got = ensureNamedFieldsAreMembers(typeOf(c.newSchema ?? c.schema, 'type'), set);
      expect(got.equals(c.after), `after\n${got}`).toBe(true);
    });
  });
});
