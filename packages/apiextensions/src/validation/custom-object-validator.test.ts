import { fieldErrorMessage } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { compileCustomObjectValidator, validateCustomObject } from './custom-object-validator.ts';

const messages = (schema: JSONSchemaProps, obj: unknown, basePath?: string) =>
  validateCustomObject(schema, obj, basePath === undefined ? {} : { basePath }).map(fieldErrorMessage);

/** kube's tests compare the sets of messages (Go's map order is random). */
const sorted = (xs: string[]) => [...xs].sort();

const field = (f: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { field: f } });

// TestValidateCustomResource (apiextensions-apiserver pkg/apiserver/validation/validation_test.go), CEL cases left out.
describe('kube TestValidateCustomResource', () => {
  const table: { name: string; schema: JSONSchemaProps; objects: unknown[]; failing: [unknown, string[]][] }[] = [
    {
      name: '!nullable',
      schema: field({ type: 'object', nullable: false }),
      objects: [{}, { field: {} }],
      failing: [
        [{ field: 'foo' }, ['field: Invalid value: "string": field in body must be of type object: "string"']],
        [{ field: 42 }, ['field: Invalid value: "integer": field in body must be of type object: "integer"']],
        [{ field: true }, ['field: Invalid value: "boolean": field in body must be of type object: "boolean"']],
        [{ field: 1.2 }, ['field: Invalid value: "number": field in body must be of type object: "number"']],
        [{ field: [] }, ['field: Invalid value: "array": field in body must be of type object: "array"']],
        [{ field: null }, ['field: Invalid value: "null": field in body must be of type object: "null"']],
      ],
    },
    {
      name: 'nullable',
      schema: field({ type: 'object', nullable: true }),
      objects: [{}, { field: {} }, { field: null }],
      failing: [
        [{ field: 'foo' }, ['field: Invalid value: "string": field in body must be of type object: "string"']],
        [{ field: 1.2 }, ['field: Invalid value: "number": field in body must be of type object: "number"']],
      ],
    },
    {
      name: 'nullable and no type',
      schema: field({ nullable: true }),
      objects: [{}, { field: {} }, { field: null }, { field: 'foo' }, { field: 42 }, { field: true }, { field: 1.2 }, { field: [] }],
      failing: [],
    },
    {
      name: 'x-kubernetes-int-or-string',
      schema: field({ 'x-kubernetes-int-or-string': true }),
      objects: [{}, { field: 42 }, { field: 'foo' }],
      failing: [
        [{ field: null }, ['field: Invalid value: "null": field in body must be of type integer,string: "null"']],
        [{ field: true }, ['field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"']],
        [{ field: 1.2 }, ['field: Invalid value: "number": field in body must be of type integer,string: "number"']],
        [{ field: {} }, ['field: Invalid value: "object": field in body must be of type integer,string: "object"']],
        [{ field: [] }, ['field: Invalid value: "array": field in body must be of type integer,string: "array"']],
      ],
    },
    {
      name: 'nullable and x-kubernetes-int-or-string',
      schema: field({ nullable: true, 'x-kubernetes-int-or-string': true }),
      objects: [{}, { field: 42 }, { field: 'foo' }, { field: null }],
      failing: [[{ field: true }, ['field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"']]],
    },
    {
      name: 'nullable, x-kubernetes-int-or-string and user-provided anyOf',
      schema: field({ nullable: true, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }),
      objects: [{}, { field: null }, { field: 42 }, { field: 'foo' }],
      failing: [
        [
          { field: true },
          [
            '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
            'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"',
            'field: Invalid value: "boolean": field in body must be of type integer: "boolean"',
          ],
        ],
        [
          { field: [] },
          [
            '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
            'field: Invalid value: "array": field in body must be of type integer,string: "array"',
            'field: Invalid value: "array": field in body must be of type integer: "array"',
          ],
        ],
      ],
    },
    {
      name: 'nullable, x-kubernetes-int-or-string and user-provider allOf',
      schema: field({ nullable: true, 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }] }),
      objects: [{}, { field: null }, { field: 42 }, { field: 'foo' }],
      failing: [
        [
          { field: {} },
          [
            '<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated',
            '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
            'field: Invalid value: "object": field in body must be of type integer,string: "object"',
            'field: Invalid value: "object": field in body must be of type integer: "object"',
          ],
        ],
      ],
    },
    {
      name: 'invalid regex',
      schema: field({ type: 'string', pattern: '+' }),
      objects: [],
      failing: [
        [
          { field: 'foo' },
          [
            'field: Invalid value: "foo": field in body should match \'+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`\'',
          ],
        ],
      ],
    },
    {
      name: 'required field',
      schema: {
        type: 'object',
        required: ['field'],
        properties: { field: { type: 'object', required: ['nested'], properties: { nested: {} } } },
      },
      objects: [],
      failing: [
        [{ test: 'a' }, ['field: Required value']],
        [{ field: {} }, ['field.nested: Required value']],
      ],
    },
    {
      name: 'enum',
      schema: field({
        type: 'object',
        required: ['nestedint', 'nestedstring'],
        properties: { nestedint: { type: 'integer', enum: [1, 2] }, nestedstring: { type: 'string', enum: ['a', 'b'] } },
      }),
      objects: [],
      failing: [
        [{ field: {} }, ['field.nestedint: Required value', 'field.nestedstring: Required value']],
        [
          { field: { nestedint: 'x', nestedstring: true } },
          [
            'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
            'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
            'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
            'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
          ],
        ],
      ],
    },
    {
      name: 'maxProperties',
      schema: { type: 'object', properties: { fieldX: { type: 'object', maxProperties: 2 } } },
      objects: [],
      failing: [[{ fieldX: { a: true, b: true, c: true } }, ['fieldX: Too many: 3: must have at most 2 items']]],
    },
    {
      name: 'maxItems',
      schema: { type: 'object', properties: { fieldX: { type: 'array', maxItems: 2 } } },
      objects: [],
      failing: [[{ fieldX: ['a', 'b', 'c'] }, ['fieldX: Too many: 3: must have at most 2 items']]],
    },
    {
      name: 'maxLength',
      schema: { type: 'object', properties: { fieldX: { type: 'string', maxLength: 2 } } },
      objects: [],
      failing: [[{ fieldX: 'abc' }, ['fieldX: Too long: may not be more than 2 bytes']]],
    },
  ];
  for (const tt of table) {
    it(tt.name, () => {
      const v = compileCustomObjectValidator(tt.schema);
      for (const obj of tt.objects) expect(v.validate(obj).map(fieldErrorMessage), JSON.stringify(obj)).toEqual([]);
      for (const [obj, want] of tt.failing)
        expect(sorted(v.validate(obj).map(fieldErrorMessage)), JSON.stringify(obj)).toEqual(sorted(want));
    });
  }
});

const spec = (properties: Record<string, JSONSchemaProps>, required?: string[]): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, ...(required ? { required } : {}) } },
});

describe('value validations with kube-apiserver messages', () => {
  it('types, enum, required and bounds as kubectl shows them', () => {
    const s = spec(
      {
        replicas: { type: 'integer' },
        color: { type: 'string', enum: ['red', 'blue'] },
        name: { type: 'string' },
        size: { type: 'integer', maximum: 10 },
      },
      ['name'],
    );
    expect(messages(s, { spec: { replicas: 'string', color: 'pink', size: 11 } })).toEqual([
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      'spec.color: Unsupported value: "pink": supported values: "red", "blue"',
      'spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10',
      'spec.name: Required value',
    ]);
    expect(messages(s, { spec: { replicas: 3, color: 'red', name: 'x', size: 10 } })).toEqual([]);
  });

  it('numeric bounds: exclusive, minimum, multipleOf; integer data compares with the bound truncated, floats print as Go does', () => {
    const s = spec({
      a: { type: 'integer', minimum: 1, exclusiveMinimum: true },
      b: { type: 'number', maximum: 1000000, exclusiveMaximum: true },
      c: { type: 'integer', multipleOf: 3 },
      d: { type: 'number', multipleOf: 0.5 },
      e: { type: 'number', maximum: 1.5 },
    });
    expect(messages(s, { spec: { a: 1, b: 1000000.5, c: 7, d: 0.75, e: 2.5 } })).toEqual([
      'spec.a: Invalid value: 1: spec.a in body should be greater than 1',
      'spec.b: Invalid value: 1000000.5: spec.b in body should be less than 1e+06',
      'spec.c: Invalid value: 7: spec.c in body should be a multiple of 3',
      'spec.d: Invalid value: 0.75: spec.d in body should be a multiple of 0.5',
      'spec.e: Invalid value: 2.5: spec.e in body should be less than or equal to 1.5',
    ]);
    expect(messages(s, { spec: { a: 2, b: 999999, c: 9, d: 1.5, e: 1.5 } })).toEqual([]);
  });

  it('a fraction in an integer field also fails the int64 range check (kube-openapi numberValidator)', () => {
    expect(messages(spec({ n: { type: 'integer' } }), { spec: { n: 1.5 } })).toEqual([
      'spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"',
      '<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.n',
    ]);
    expect(messages(spec({ n: { type: 'integer', format: 'int32' } }), { spec: { n: 2 ** 31 } })).toEqual([
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.n',
    ]);
    expect(messages(spec({ n: { type: 'integer', format: 'int32' } }), { spec: { n: 2 ** 31 - 1 } })).toEqual([]);
  });

  it('string lengths count code points; pattern is RE2 and unanchored', () => {
    const s = spec({
      a: { type: 'string', minLength: 2 },
      b: { type: 'string', maxLength: 1 },
      c: { type: 'string', pattern: '^[a-z]+$' },
    });
    expect(messages(s, { spec: { a: '😀', b: 'é', c: 'abc' } })).toEqual([
      'spec.a: Invalid value: "😀": spec.a in body should be at least 2 chars long',
    ]);
    expect(messages(s, { spec: { a: 'ab', b: 'ab', c: 'ab1' } })).toEqual([
      'spec.b: Too long: may not be more than 1 byte',
      'spec.c: Invalid value: "ab1": spec.c in body should match \'^[a-z]+$\'',
    ]);
  });

  it('arrays: items with indexes, minItems, uniqueItems', () => {
    const s = spec({ l: { type: 'array', minItems: 3, uniqueItems: true, items: { type: 'string', enum: ['a', 'b'] } } });
    expect(messages(s, { spec: { l: ['a', 'c'] } })).toEqual([
      'spec.l[1]: Unsupported value: "c": supported values: "a", "b"',
      'spec.l: Invalid value: 2: spec.l in body should have at least 3 items',
    ]);
    expect(messages(s, { spec: { l: ['a', 'b', 'a'] } })).toEqual([
      `spec.l: Invalid value: "": spec.l in body shouldn't contain duplicates`,
    ]);
  });

  it('objects: minProperties, additionalProperties false and as a schema (paths keep the dot, not [key])', () => {
    const s = spec({
      closed: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      m: { type: 'object', minProperties: 2, additionalProperties: { type: 'integer' } },
    });
    expect(messages(s, { spec: { closed: { a: 'x', b: 1 }, m: { x: 'y' } } })).toEqual([
      'spec.closed: Invalid value: "b": spec.closed.b in body is a forbidden property',
      'spec.m: Invalid value: 1: spec.m in body should have at least 2 properties',
      'spec.m.x: Invalid value: "string": spec.m.x in body must be of type integer: "string"',
    ]);
  });

  it('oneOf, anyOf and not report on <nil> (or basePath) with kube-openapi words', () => {
    const s = spec({
      one: { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] },
      not: { type: 'string', not: { enum: ['x'] } },
    });
    expect(messages(s, { spec: { one: { a: 1, b: 2 }, not: 'x' } })).toEqual([
      '<nil>: Invalid value: "": "spec.one" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      '<nil>: Invalid value: "": "spec.not" must not validate the schema (not)',
    ]);
    expect(messages(s, { spec: { one: {} } }, 'obj')).toEqual([
      'obj: Invalid value: "": "spec.one" must validate one and only one schema (oneOf). Found none valid',
      'obj.spec.one.a: Required value',
    ]);
  });

  it('nullable lets null through only where set; enum never matches null', () => {
    const s = spec({ a: { type: 'string', nullable: true }, b: { type: 'string' }, c: { type: 'string', nullable: true, enum: ['x'] } });
    expect(messages(s, { spec: { a: null, b: null, c: null } })).toEqual([
      'spec.b: Invalid value: "null": spec.b in body must be of type string: "null"',
      'spec.c: Unsupported value: "null": supported values: "x"',
    ]);
  });

  it('enum compares after Go conversion: 1.5 matches integer enum 1, non-string values are JSON', () => {
    const s = spec({ n: { enum: [1, { a: 1 }] } });
    expect(messages(s, { spec: { n: 1.5 } })).toEqual([]);
    expect(messages(s, { spec: { n: 2 } })).toEqual(['spec.n: Unsupported value: 2: supported values: "1", "{\\"a\\":1}"']);
  });

  it('formats kube checks (date, date-time, uuid, ipv4, …) and ones it drops', () => {
    const s = spec({
      d: { type: 'string', format: 'date' },
      t: { type: 'string', format: 'date-time' },
      u: { type: 'string', format: 'uuid' },
      ip: { type: 'string', format: 'ipv4' },
      unknown: { type: 'string', format: 'not-a-format' },
      q: { type: 'string', format: 'quantity' },
    });
    expect(messages(s, { spec: { d: '2024-02-30', t: '2024-01-01 10:00:00', u: 'nope', ip: '1.2.3', unknown: '?', q: '??' } })).toEqual([
      'spec.d: Invalid value: "2024-02-30": spec.d in body must be of type date: "2024-02-30"',
      'spec.t: Invalid value: "2024-01-01 10:00:00": spec.t in body must be of type date-time: "2024-01-01 10:00:00"',
      'spec.u: Invalid value: "nope": spec.u in body must be of type uuid: "nope"',
      'spec.ip: Invalid value: "1.2.3": spec.ip in body must be of type ipv4: "1.2.3"',
    ]);
    expect(
      messages(s, { spec: { d: '2024-02-29', t: '2024-01-01T10:00:00Z', u: '123e4567-e89b-12d3-a456-426614174000', ip: '10.0.0.1' } }),
    ).toEqual([]);
  });

  it('x-kubernetes-list-type set and map: Duplicate value at the later index', () => {
    const s = spec({
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name', 'protocol'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, protocol: { type: 'string' } } },
      },
    });
    expect(
      messages(s, {
        spec: {
          tags: ['a', 'b', 'a', 'a'],
          ports: [{ name: 'http' }, { name: 'http', protocol: 'TCP' }, { name: 'http' }],
        },
      }),
    ).toEqual(['spec.tags[2]: Duplicate value: "a"', 'spec.ports[2]: Duplicate value: map[string]interface {}{"name":"http"}']);
  });

  it('x-kubernetes-embedded-resource: apiVersion and kind required, metadata validated as ObjectMeta', () => {
    const s = spec({
      template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    });
    expect(messages(s, { spec: { template: { metadata: { name: 'a%b', labels: { ok: 'fine' } } } } })).toEqual([
      'spec.template.apiVersion: Required value',
      'spec.template.kind: Required value',
      'spec.template.metadata.name: Invalid value: "a%b": may not contain \'%\'',
    ]);
    expect(messages(s, { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: {} } } })).toEqual([]);
  });

  it('a compiled validator is reusable and keeps no state between values', () => {
    const v = compileCustomObjectValidator(spec({ n: { type: 'integer', maximum: 1 } }));
    expect(v.validate({ spec: { n: 2 } })).toHaveLength(1);
    expect(v.validate({ spec: { n: 1 } })).toEqual([]);
    expect(v.validate({ spec: { n: 2 } }).map(fieldErrorMessage)).toEqual([
      'spec.n: Invalid value: 2: spec.n in body should be less than or equal to 1',
    ]);
  });
});

describe('the embedded-resource and list-type walks follow only the schema parts that have such nodes', () => {
  it('finds them under additionalProperties and items, and keeps properties beside additionalProperties', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: {
        plain: { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } },
        byName: {
          type: 'object',
          additionalProperties: {
            type: 'array',
            items: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
        deep: {
          type: 'array',
          items: { type: 'object', properties: { tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } } },
        },
      },
    };
    expect(
      messages(s, { plain: { list: ['a', 'a'] }, byName: { x: [{ kind: 'K' }] }, deep: [{ tags: ['a'] }, { tags: ['b', 'b'] }] }),
    ).toEqual(['byName[x][0].apiVersion: Required value', 'deep[1].tags[1]: Duplicate value: "b"']);
  });
});
