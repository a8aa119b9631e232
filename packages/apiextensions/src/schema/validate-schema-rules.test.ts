import { fieldErrorMessage } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { validateSchemaRules } from './validate-schema-rules.ts';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const check = (schema: JSONSchemaProps): string[] => validateSchemaRules(schema, P).map(fieldErrorMessage);
const root = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({ type: 'object', properties });
const item = (properties: Record<string, JSONSchemaProps>, rest: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...rest,
});

const cases: [string, JSONSchemaProps, string[]][] = [
  [
    'a map list keyed by scalars, a set of scalars, an atomic map',
    root({
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
        items: item({ port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } }, { required: ['port'] }),
      },
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      sel: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
    }),
    [],
  ],
  [
    'x-kubernetes-preserve-unknown-fields: false',
    root({ a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } }),
    [`${P}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`],
  ],
  [
    'x-kubernetes-list-type on a non-array',
    root({
      a: { type: 'string', 'x-kubernetes-list-type': 'set' },
      b: { 'x-kubernetes-list-type': 'atomic', 'x-kubernetes-preserve-unknown-fields': true },
    }),
    [
      `${P}.properties[a].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`,
      `${P}.properties[b].type: Required value: must be array if x-kubernetes-list-type is specified`,
    ],
  ],
  [
    'an unknown x-kubernetes-list-type',
    root({ a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' } }),
    [`${P}.properties[a].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`],
  ],
  [
    'x-kubernetes-map-type on a non-object, and an unknown one',
    root({ a: { type: 'string', 'x-kubernetes-map-type': 'atomic' }, b: { type: 'object', 'x-kubernetes-map-type': 'fine' } }),
    [
      `${P}.properties[a].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`,
      `${P}.properties[b].x-kubernetes-map-type: Unsupported value: "fine": supported values: "atomic", "granular"`,
    ],
  ],
  [
    'x-kubernetes-list-map-keys without list-type map',
    root({
      a: { type: 'array', items: item({ k: { type: 'string' } }), 'x-kubernetes-list-map-keys': ['k'] },
      b: { type: 'array', items: item({ k: { type: 'string' } }), 'x-kubernetes-list-type': 'set', 'x-kubernetes-list-map-keys': ['k'] },
    }),
    [
      `${P}.properties[a].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
      `${P}.properties[b].items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set`,
      `${P}.properties[b].x-kubernetes-list-type: Invalid value: "set": must be map if x-kubernetes-list-map-keys is non-empty`,
    ],
  ],
  [
    'list-type map without keys, without items, or with non-object items',
    root({
      a: { type: 'array', items: item({ k: { type: 'string' } }), 'x-kubernetes-list-type': 'map' },
      b: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] },
      c: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] },
    }),
    [
      `${P}.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${P}.properties[b].items: Required value: must have a schema if x-kubernetes-list-type is map`,
      `${P}.properties[c].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
    ],
  ],
  [
    'list-map-keys naming a missing, a non-scalar or the same key twice',
    root({
      a: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['k', 'missing', 'nested', 'k'],
        items: item({ k: { type: 'string' }, nested: { type: 'object' } }, { required: ['k', 'nested'] }),
      },
    }),
    [
      `${P}.properties[a].x-kubernetes-list-map-keys: Invalid value: ["k","missing","nested","k"]: entries must all be names of item properties`,
      `${P}.properties[a].items.properties[nested].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      `${P}.properties[a].x-kubernetes-list-map-keys: Invalid value: ["k","missing","nested","k"]: must not contain duplicate entries`,
    ],
  ],
  [
    'map list keys neither required nor defaulted, nullable keys, nullable items',
    root({
      a: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['k', 'n'],
        items: item({ k: { type: 'string' }, n: { type: 'string', nullable: true } }, { required: ['n'], nullable: true }),
      },
      s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', nullable: true } },
    }),
    [
      `${P}.properties[a].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is map`,
      `${P}.properties[a].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${P}.properties[a].items.properties[n].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
      `${P}.properties[s].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set`,
    ],
  ],
  [
    'types and fields a CRD schema may not use',
    root({
      a: { type: 'null' },
      b: { type: 'date' },
      c: {
        type: 'object',
        id: 'x',
        $ref: '#/definitions/d',
        additionalItems: false,
        patternProperties: { '^x': { type: 'string' } },
        definitions: { d: { type: 'date' } },
        dependencies: { x: ['y'] },
      },
      d: { type: 'array', items: [{ type: 'string' }] },
      metadata: { type: 'object', properties: { e: { type: 'object', 'x-kubernetes-embedded-resource': true } } },
    }),
    [
      `${P}.properties[a].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${P}.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      `${P}.properties[b].type: Unsupported value: "date": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${P}.properties[c].id: Forbidden: id is not supported`,
      `${P}.properties[c].additionalItems: Forbidden: additionalItems is not supported`,
      `${P}.properties[c].patternProperties: Forbidden: patternProperties is not supported`,
      `${P}.properties[c].definitions: Forbidden: definitions is not supported`,
      `${P}.properties[c].dependencies: Forbidden: dependencies is not supported`,
      `${P}.properties[c].$ref: Forbidden: $ref is not supported`,
      `${P}.properties[c].definitions[d].type: Unsupported value: "date": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${P}.properties[d].items: Forbidden: items must be a schema object and not an array`,
      `${P}.properties[metadata].properties[e].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta`,
    ],
  ],
  [
    'set items that are not atomic',
    root({
      a: {
        type: 'array',
        'x-kubernetes-list-type': 'set',
        items: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      },
      b: { type: 'array', 'x-kubernetes-list-type': 'set', items: item({ x: { type: 'string' } }, { 'x-kubernetes-map-type': 'atomic' }) },
    }),
    [
      `${P}.properties[a].items.x-kubernetes-list-type: Invalid value: "set": must be atomic as item of a list with x-kubernetes-list-type=set`,
    ],
  ],
  [
    'uniqueItems',
    root({ a: { type: 'array', items: { type: 'string' }, uniqueItems: true } }),
    [`${P}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`],
  ],
  [
    'additionalProperties beside properties',
    root({
      a: item({ x: { type: 'string' } }, { additionalProperties: { type: 'string' } }),
      b: item({ x: { type: 'string' } }, { additionalProperties: true }),
    }),
    [`${P}.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
  ],
  [
    'defaults in the root metadata, apiVersion and kind',
    root({
      metadata: { type: 'object', default: {}, properties: { name: { type: 'string', default: 'n' } } },
      apiVersion: { type: 'string', default: 'v1' },
      kind: { type: 'string', default: 'K' },
      spec: { type: 'object', default: {} },
    }),
    [
      `${P}.properties[metadata].default: Forbidden: must not be set in top-level metadata`,
      `${P}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`,
      `${P}.properties[apiVersion].default: Forbidden: must not be set in top-level apiVersion`,
      `${P}.properties[kind].default: Forbidden: must not be set in top-level kind`,
    ],
  ],
  [
    'defaults in a map of an embedded resource metadata',
    root({
      e: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: {
          metadata: {
            type: 'object',
            default: {},
            properties: { labels: { type: 'object', additionalProperties: { type: 'string', default: 'x' } } },
          },
        },
      },
    }),
    [
      `${P}.properties[e].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata`,
    ],
  ],
  [
    'rules in junctors and items are walked',
    {
      type: 'object',
      allOf: [{ properties: { a: { uniqueItems: true } } }],
      properties: { l: { type: 'array', items: { type: 'array', items: { type: 'string' }, uniqueItems: true } } },
    },
    [
      `${P}.properties[l].items.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      `${P}.allOf[0].properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    ],
  ],
  [
    'x-kubernetes-validations rules of a bad shape',
    root({
      a: {
        type: 'string',
        'x-kubernetes-validations': [
          { rule: '  ' },
          { rule: 'self.size() > 1', message: ' ' },
          { rule: 'self.size() > 1', message: 'one\ntwo' },
          { rule: 'self.size() > 1 &&\nself.size() < 5' },
          { rule: 'self != ""', messageExpression: '  ', reason: 'FieldValueNotFound', fieldPath: ' ' },
          { rule: 'self != ""', fieldPath: '.a\n.b' },
        ],
      },
    }),
    [
      `${P}.properties[a].x-kubernetes-validations[0].rule: Required value: rule is not specified`,
      `${P}.properties[a].x-kubernetes-validations[1].message: Invalid value: " ": message must be non-empty if specified`,
      `${P}.properties[a].x-kubernetes-validations[2].message: Invalid value: "one\\ntwo": message must not contain line breaks`,
      `${P}.properties[a].x-kubernetes-validations[3].message: Required value: message must be specified if rule contains line breaks`,
      `${P}.properties[a].x-kubernetes-validations[4].messageExpression: Required value: messageExpression must be non-empty if specified`,
      `${P}.properties[a].x-kubernetes-validations[4].reason: Unsupported value: "FieldValueNotFound": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `${P}.properties[a].x-kubernetes-validations[4].fieldPath: Invalid value: " ": fieldPath must be non-empty if specified`,
      `${P}.properties[a].x-kubernetes-validations[5].fieldPath: Invalid value: ".a\\n.b": fieldPath must not contain line breaks`,
    ],
  ],
];

describe('validateSchemaRules (kube ValidateCustomResourceDefinitionOpenAPISchema)', () => {
  for (const [name, schema, expected] of cases) {
    it(name, () => expect(check(schema)).toEqual(expected));
  }

  it('a nested schema (not a CRD root) may set defaults in its metadata', () => {
    expect(validateSchemaRules(root({ metadata: { type: 'object', default: {} } }), P, false)).toEqual([]);
  });
});
