import { fieldErrorMessage } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { newStructural } from './new-structural.ts';
import { validateStructural } from './validate-structural.ts';

const P = 'spec.validation.openAPIV3Schema';
const check = (schema: JSONSchemaProps): string[] => validateStructural(P, newStructural(schema)).map(fieldErrorMessage);
const obj = (properties?: Record<string, JSONSchemaProps>, rest: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...rest,
});

const cases: [string, JSONSchemaProps, string[]][] = [
  [
    'a complete schema',
    obj({ spec: obj({ replicas: { type: 'integer', minimum: 0 }, tags: { type: 'array', items: { type: 'string' } } }) }),
    [],
  ],
  ['no type at the root', { properties: { spec: obj() } }, [`${P}.type: Required value: must not be empty at the root`]],
  ['no type for a field', obj({ spec: {} }), [`${P}.properties[spec].type: Required value: must not be empty for specified object fields`]],
  [
    'no type for items',
    obj({ list: { type: 'array', items: {} } }),
    [`${P}.properties[list].items.type: Required value: must not be empty for specified array items`],
  ],
  ['an array without items', obj({ list: { type: 'array' } }), [`${P}.properties[list].items: Required value: must be specified`]],
  ['a root of another type', { type: 'string' }, [`${P}.type: Invalid value: "string": must be object at the root`]],
  [
    'additionalProperties at the root',
    obj(undefined, { additionalProperties: { type: 'string' } }),
    [`${P}.additionalProperties: Forbidden: must not be used at the root`],
  ],
  ['additionalProperties further in', obj({ labels: obj(undefined, { additionalProperties: { type: 'string' } }) }), []],
  ['no type with x-kubernetes-preserve-unknown-fields', obj({ any: { 'x-kubernetes-preserve-unknown-fields': true } }), []],
  ['no type with x-kubernetes-int-or-string', obj({ port: { 'x-kubernetes-int-or-string': true } }), []],
  [
    'int-or-string spelled out with anyOf',
    obj({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }),
    [],
  ],
  [
    'int-or-string spelled out with allOf',
    obj({ port: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^a' }] } }),
    [],
  ],
  [
    'the int-or-string anyOf in the other order is not the pattern',
    obj({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'string' }, { type: 'integer' }] } }),
    [
      `${P}.properties[port].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[port].anyOf[1].type: Forbidden: must be empty to be structural`,
    ],
  ],
  [
    'the int-or-string anyOf with anything more is not the pattern',
    obj({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string' }] } }),
    [
      `${P}.properties[port].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[port].anyOf[1].type: Forbidden: must be empty to be structural`,
    ],
  ],
  [
    'the int-or-string anyOf with an empty properties is not the pattern (Go keeps the empty map)',
    obj({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer', properties: {} }, { type: 'string' }] } }),
    [
      `${P}.properties[port].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[port].anyOf[1].type: Forbidden: must be empty to be structural`,
    ],
  ],
  [
    'the int-or-string allOf only as the first entry',
    obj({ port: { 'x-kubernetes-int-or-string': true, allOf: [{ pattern: '^a' }, { anyOf: [{ type: 'integer' }, { type: 'string' }] }] } }),
    [
      `${P}.properties[port].allOf[1].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[port].allOf[1].anyOf[1].type: Forbidden: must be empty to be structural`,
    ],
  ],
  [
    'every generic field and extension under a junctor',
    obj({
      a: {
        type: 'object',
        properties: { b: { type: 'string' } },
        not: {
          type: 'string',
          default: 'x',
          title: 't',
          description: 'd',
          nullable: true,
          externalDocs: { url: 'https://example.com' },
          additionalProperties: true,
          'x-kubernetes-preserve-unknown-fields': true,
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-int-or-string': true,
          'x-kubernetes-list-map-keys': ['k'],
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-map-type': 'atomic',
          'x-kubernetes-validations': [{ rule: 'true' }],
        },
      },
    }),
    [
      `${P}.properties[a].not.additionalProperties: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].not.default: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].not.description: Forbidden: must be empty to be structural`,
      `${P}.properties[a].not.externalDocs: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].not.nullable: Forbidden: must be false to be structural`,
      `${P}.properties[a].not.title: Forbidden: must be empty to be structural`,
      `${P}.properties[a].not.type: Forbidden: must be empty to be structural`,
      `${P}.properties[a].not.x-kubernetes-embedded-resource: Forbidden: must be false to be structural`,
      `${P}.properties[a].not.x-kubernetes-int-or-string: Forbidden: must be false to be structural`,
      `${P}.properties[a].not.x-kubernetes-list-map-keys: Forbidden: must be empty to be structural`,
      `${P}.properties[a].not.x-kubernetes-list-type: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].not.x-kubernetes-map-type: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].not.x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`,
      `${P}.properties[a].not.x-kubernetes-validations: Forbidden: must be empty to be structural`,
    ],
  ],
  [
    'value validations on fields the schema specifies',
    obj({
      a: obj(
        { b: { type: 'string' }, c: { type: 'array', items: { type: 'string' } } },
        { oneOf: [{ required: ['b'] }, { properties: { b: { pattern: '^x' }, c: { items: { minLength: 1 } } } }] },
      ),
    }),
    [],
  ],
  [
    'value validations on fields the schema does not specify',
    obj(
      { b: { type: 'string' } },
      { anyOf: [{ properties: { c: { pattern: '^x' } } }, { properties: { b: { items: { minLength: 1 } } } }] },
    ),
    [
      `${P}.properties[b].items: Required value: because it is defined in ${P}.anyOf[1].properties[b].items`,
      `${P}.properties[c]: Required value: because it is defined in ${P}.anyOf[0].properties[c]`,
    ],
  ],
  [
    // kube's validateStructuralCompleteness starts from the root's value validations only, so a junctor further in
    // naming a field its level does not specify passes (ValidateStructural's own behaviour, kept).
    'completeness is checked from the root only, as kube',
    obj({ a: obj({ b: { type: 'string' } }, { anyOf: [{ properties: { c: { pattern: '^x' } } }] }) }),
    [],
  ],
  [
    'nested junctors are checked and completed against the same level',
    obj({ a: { type: 'string', allOf: [{ not: { anyOf: [{ type: 'string' }] } }] } }),
    [`${P}.properties[a].allOf[0].not.anyOf[0].type: Forbidden: must be empty to be structural`],
  ],
  [
    'x-kubernetes-embedded-resource without a type',
    obj({ e: { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    [`${P}.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true`],
  ],
  [
    'x-kubernetes-embedded-resource of another type',
    obj({ e: { type: 'string', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    [`${P}.properties[e].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`],
  ],
  [
    'x-kubernetes-embedded-resource without properties nor preserve-unknown-fields',
    obj({ e: { type: 'object', 'x-kubernetes-embedded-resource': true } }),
    [
      `${P}.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
    ],
  ],
  [
    'x-kubernetes-embedded-resource with additionalProperties',
    obj({
      e: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
        additionalProperties: { type: 'string' },
      },
    }),
    [`${P}.properties[e].additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set`],
  ],
  [
    'x-kubernetes-embedded-resource whose kind, apiVersion and metadata are mistyped',
    obj({
      e: obj(
        { kind: { type: 'integer' }, apiVersion: { type: 'boolean' }, metadata: { type: 'string' } },
        { 'x-kubernetes-embedded-resource': true },
      ),
    }),
    [
      `${P}.properties[e].properties[apiVersion].type: Invalid value: "boolean": must be string`,
      `${P}.properties[e].properties[kind].type: Invalid value: "integer": must be string`,
      `${P}.properties[e].properties[metadata].type: Invalid value: "string": must be object`,
    ],
  ],
  [
    'an embedded resource may restrict its metadata further',
    obj({
      e: obj(
        { metadata: obj({ labels: obj(undefined, { additionalProperties: { type: 'string' } }) }) },
        { 'x-kubernetes-embedded-resource': true },
      ),
    }),
    [],
  ],
  [
    'int-or-string with preserve-unknown-fields or embedded-resource',
    obj({
      a: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true },
      b: {
        type: 'object',
        'x-kubernetes-int-or-string': true,
        'x-kubernetes-embedded-resource': true,
        properties: { x: { type: 'string' } },
      },
    }),
    [
      `${P}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      `${P}.properties[b].x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    ],
  ],
  [
    'root metadata with name and generateName',
    obj({ metadata: obj({ name: { type: 'string', maxLength: 10 }, generateName: { type: 'string' } }) }),
    [],
  ],
  ['root metadata with only its type', obj({ metadata: obj() }), []],
  ['root kind and apiVersion strings', obj({ kind: { type: 'string' }, apiVersion: { type: 'string' } }), []],
  [
    'root metadata restricting labels',
    obj({ metadata: obj({ name: { type: 'string' }, labels: obj(undefined, { additionalProperties: { type: 'string' } }) }) }),
    [
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ],
  ],
  [
    'root metadata with a value validation',
    obj({ metadata: obj(undefined, { required: ['name'] }) }),
    [
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ],
  ],
  [
    'root metadata with a description',
    obj({ metadata: obj(undefined, { description: 'the metadata' }) }),
    [
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ],
  ],
  [
    // Go keeps an empty required list, which is not the zero ValueValidation kube compares with.
    'root metadata with an empty required list',
    obj({ metadata: obj(undefined, { required: [] }) }),
    [
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ],
  ],
  [
    'root metadata of another type',
    obj({ metadata: { type: 'string' } }),
    [`${P}.properties[metadata].type: Invalid value: "string": must be object`],
  ],
  [
    'root kind of another type',
    obj({ kind: { type: 'integer' } }),
    [`${P}.properties[kind].type: Invalid value: "integer": must be string`],
  ],
  ['metadata further in is an ordinary field', obj({ spec: obj({ metadata: { type: 'string' }, kind: { type: 'integer' } }) }), []],
  [
    'metadata in a nested context',
    obj({ metadata: obj(), spec: obj() }, { anyOf: [{ properties: { metadata: { required: ['name'] } } }] }),
    [`${P}.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`],
  ],
  ['a pattern that compiles', obj({ s: { type: 'string', pattern: '^[a-z]+(-[a-z]+)*$' } }), []],
  [
    'several errors come sorted by their message',
    obj({ z: {}, a: {}, m: { type: 'array' } }),
    [
      `${P}.properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[m].items: Required value: must be specified`,
      `${P}.properties[z].type: Required value: must not be empty for specified object fields`,
    ],
  ],
];

describe('validateStructural (kube schema/validation.go, complete.go)', () => {
  for (const [name, schema, expected] of cases) {
    it(name, () => expect(check(schema)).toEqual(expected));
  }

  it("a pattern Go's regexp does not compile is refused in Go's words", () => {
    const patterns = {
      s: { type: 'string', pattern: '(' },
      t: { type: 'string', pattern: '^(?=a)' },
      u: { type: 'string', pattern: '[[:word:]]+\\d' },
    };
    expect(check(obj(patterns))).toEqual([
      `${P}.properties[s].pattern: Invalid value: "(": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): \`(\``,
      `${P}.properties[t].pattern: Invalid value: "^(?=a)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``,
    ]);
  });

  it('errors are FieldErrors a Store turns into a 422', () => {
    const [e] = validateStructural('spec.versions[0].schema.openAPIV3Schema', newStructural(obj({ spec: {} })));
    expect(e).toEqual({
      type: 'FieldValueRequired',
      field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].type',
      detail: 'must not be empty for specified object fields',
    });
  });
});

describe('newStructural (kube convert.go)', () => {
  const refused: [string, JSONSchemaProps, string][] = [
    ['id', { id: 'x' }, "OpenAPIV3Schema 'id' is not supported"],
    ['$schema', { $schema: 'x' }, "OpenAPIV3Schema 'schema' is not supported"],
    ['$ref', { $ref: '#/x' }, "OpenAPIV3Schema '$ref' is not supported"],
    ['patternProperties', { patternProperties: { '^a': {} } }, "OpenAPIV3Schema 'patternProperties' is not supported"],
    ['dependencies', { dependencies: { a: ['b'] } }, "OpenAPIV3Schema 'dependencies' is not supported"],
    ['additionalItems', { additionalItems: false }, "OpenAPIV3Schema 'additionalItems' is not supported"],
    ['definitions', { definitions: { a: {} } }, "OpenAPIV3Schema 'definitions' is not supported"],
    ['items as an array', { type: 'array', items: [{}] }, "OpenAPIV3Schema 'items' must be a schema, but is an array"],
    [
      'preserve-unknown-fields false',
      { 'x-kubernetes-preserve-unknown-fields': false },
      "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined",
    ],
    ['a refused field under anyOf', { anyOf: [{ $ref: '#/x' }] }, "OpenAPIV3Schema '$ref' is not supported"],
    ['a refused field in a property', { properties: { a: { definitions: { b: {} } } } }, "OpenAPIV3Schema 'definitions' is not supported"],
  ];
  for (const [name, schema, message] of refused) {
    it(`refuses ${name}`, () => expect(() => newStructural(schema)).toThrow(message));
  }

  it('splits a schema into its shape and its value validations', () => {
    const s = newStructural({
      type: 'object',
      description: 'd',
      properties: { a: { type: 'string', enum: ['x'], default: 'x' } },
      required: ['a'],
      externalDocs: { url: 'https://example.com' },
      example: { a: 'x' },
      'x-kubernetes-validations': [{ rule: 'self.a == "x"' }],
    });
    expect(s.type).toBe('object');
    expect(s.description).toBe('d');
    expect(s.valueValidation).toEqual({ required: ['a'] });
    expect(s.xValidations).toEqual([{ rule: 'self.a == "x"' }]);
    expect(s.properties?.get('a')).toEqual({ type: 'string', default: 'x', valueValidation: { enum: ['x'] } });
    expect(Object.keys(s)).not.toContain('externalDocs');
    expect(Object.keys(s)).not.toContain('example');
  });

  it('keeps a numeric bound of 0 (a pointer in Go) and drops false and empty strings (Go zero values)', () => {
    const s = newStructural({ type: 'integer', minimum: 0, exclusiveMinimum: false, pattern: '', format: '' });
    expect(s.valueValidation).toEqual({ minimum: 0 });
  });

  it('additionalProperties: false and true are kept as bool, a schema as structural', () => {
    expect(newStructural({ additionalProperties: false }).additionalProperties).toEqual({ bool: false });
    expect(newStructural({ additionalProperties: { type: 'string' } }).additionalProperties).toEqual({
      bool: true,
      structural: { type: 'string', valueValidation: {} },
    });
  });
});
