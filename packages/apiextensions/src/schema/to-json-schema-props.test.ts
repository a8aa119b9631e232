import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { newStructural } from './new-structural.ts';
import { toJSONSchemaProps } from './to-json-schema-props.ts';

describe('toJSONSchemaProps (kube ToKubeOpenAPI)', () => {
  const schemas: [string, JSONSchemaProps][] = [
    ['an empty schema', {}],
    [
      'every field a structural schema keeps',
      {
        type: 'object',
        description: 'd',
        title: 't',
        nullable: true,
        required: ['spec'],
        minProperties: 1,
        maxProperties: 9,
        'x-kubernetes-validations': [{ rule: 'has(self.spec)', message: 'spec needed', reason: 'FieldValueRequired', fieldPath: '.spec' }],
        properties: {
          spec: {
            type: 'object',
            default: {},
            'x-kubernetes-map-type': 'atomic',
            properties: {
              n: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true, multipleOf: 0.5 },
              s: { type: 'string', format: 'uuid', pattern: '^a', minLength: 1, maxLength: 36, enum: ['a', 'b'] },
              l: {
                type: 'array',
                minItems: 1,
                maxItems: 3,
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['k'],
                items: { type: 'object', required: ['k'], properties: { k: { type: 'string' } } },
              },
              m: { type: 'object', additionalProperties: { type: 'integer' } },
              closed: { type: 'object', additionalProperties: false },
              port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
              any: { 'x-kubernetes-preserve-unknown-fields': true },
              res: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
        allOf: [{ properties: { spec: { required: ['n'], properties: { s: { not: { enum: ['c'] } } } } } }],
        oneOf: [{ required: ['a'] }, { required: ['b'], items: { minLength: 2 } }],
      },
    ],
  ];
  for (const [name, schema] of schemas) {
    it(`round-trips ${name}`, () => {
      expect(toJSONSchemaProps(newStructural(schema))).toEqual(schema);
      expect(newStructural(toJSONSchemaProps(newStructural(schema)))).toEqual(newStructural(schema));
    });
  }

  it('drops what a structural schema does not keep (externalDocs, example)', () => {
    expect(toJSONSchemaProps(newStructural({ type: 'string', externalDocs: { url: 'https://x' }, example: 'e' }))).toEqual({
      type: 'string',
    });
  });

  it('keeps a property named __proto__ as data', () => {
    const out = toJSONSchemaProps(newStructural(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}')));
    expect(JSON.stringify(out)).toBe('{"properties":{"__proto__":{"type":"string"}},"type":"object"}');
  });
});
