import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { newStructural } from './new-structural.ts';
import { prune, unknownFieldMessage } from './pruning.ts';

const obj = { type: 'object' } as const;

// The object with unknown fields at every level, as kube's x-kubernetes-embedded-resource cases use it.
const embeddedInput = () => ({
  apiVersion: 'foo/v1',
  kind: 'Foo',
  metadata: { name: 'instance', unspecified: 'bar' },
  unspecified: 'bar',
  pruned: {
    apiVersion: 'foo/v1',
    kind: 'Foo',
    unspecified: 'bar',
    metadata: { name: 'instance', unspecified: 'bar' },
    spec: { unspecified: 'bar' },
  },
  preserving: {
    apiVersion: 'foo/v1',
    kind: 'Foo',
    unspecified: 'bar',
    metadata: { name: 'instance', unspecified: 'bar' },
    spec: { unspecified: 'bar' },
  },
  nested: {
    apiVersion: 'foo/v1',
    kind: 'Foo',
    unspecified: 'bar',
    metadata: { name: 'instance', unspecified: 'bar' },
    spec: {
      unspecified: 'bar',
      embedded: {
        apiVersion: 'foo/v1',
        kind: 'Foo',
        unspecified: 'bar',
        metadata: { name: 'instance', unspecified: 'bar' },
        spec: { unspecified: 'bar' },
      },
    },
  },
});

const embeddedSchema: JSONSchemaProps = {
  ...obj,
  properties: {
    pruned: { ...obj, 'x-kubernetes-embedded-resource': true, properties: { spec: obj } },
    preserving: { ...obj, 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    nested: {
      ...obj,
      'x-kubernetes-embedded-resource': true,
      properties: {
        spec: { ...obj, properties: { embedded: { ...obj, 'x-kubernetes-embedded-resource': true, properties: { spec: obj } } } },
      },
    },
  },
};

const embeddedExpected = {
  pruned: { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: 'instance', unspecified: 'bar' }, spec: {} },
  preserving: embeddedInput().preserving,
  nested: {
    apiVersion: 'foo/v1',
    kind: 'Foo',
    metadata: { name: 'instance', unspecified: 'bar' },
    spec: { embedded: { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: 'instance', unspecified: 'bar' }, spec: {} } },
  },
};

const embeddedPruned = [
  'nested.spec.embedded.spec.unspecified',
  'nested.spec.embedded.unspecified',
  'nested.spec.unspecified',
  'nested.unspecified',
  'pruned.spec.unspecified',
  'pruned.unspecified',
  'unspecified',
];

// kube's pruning/algorithm_test.go TestPrune, case by case.
const cases: { name: string; input: unknown; schema?: JSONSchemaProps; isResourceRoot?: boolean; expected: unknown; pruned?: string[] }[] =
  [
    { name: 'empty', input: null, expected: null },
    { name: 'scalar', input: 4, schema: {}, expected: 4 },
    { name: 'scalar array', input: [1, 2], schema: { items: {} }, expected: [1, 2] },
    {
      name: 'object array',
      input: [{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }],
      schema: { items: { properties: { a: {}, c: {} } } },
      expected: [{ a: 1 }, {}, { a: 1, c: 3 }],
      pruned: ['[1].b', '[2].b'],
    },
    {
      name: 'object array with nil schema',
      input: [{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }],
      expected: [{}, {}, {}],
      pruned: ['[0].a', '[1].b', '[2].a', '[2].b', '[2].c'],
    },
    {
      name: 'object array object',
      input: { array: [{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }], unspecified: { a: 1 }, specified: { a: 1, b: 2, c: 3 } },
      schema: { properties: { array: { items: { properties: { a: {}, c: {} } } }, specified: { properties: { a: {}, c: {} } } } },
      expected: { array: [{ a: 1 }, {}, { a: 1, c: 3 }], specified: { a: 1, c: 3 } },
      pruned: ['array[1].b', 'array[2].b', 'specified.b', 'unspecified'],
    },
    {
      name: 'nested x-kubernetes-preserve-unknown-fields',
      input: {
        unspecified: 'bar',
        alpha: 'abc',
        beta: 42.0,
        unspecifiedObject: { unspecified: 'bar' },
        pruning: {
          unspecified: 'bar',
          unspecifiedObject: { unspecified: 'bar' },
          pruning: { unspecified: 'bar' },
          apiVersion: 'unknown',
          preserving: { unspecified: 'bar' },
        },
        preserving: {
          unspecified: 'bar',
          unspecifiedObject: { unspecified: 'bar' },
          pruning: { unspecified: 'bar' },
          preserving: { unspecified: 'bar' },
        },
        preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: {
          foo: { specified: { unspecified: 'bar' }, unspecified: 'bar' },
        },
        preservingAdditionalPropertiesKeyPruneValues: { foo: { specified: { unspecified: 'bar' }, unspecified: 'bar' } },
      },
      schema: {
        ...obj,
        'x-kubernetes-preserve-unknown-fields': true,
        properties: {
          alpha: { type: 'string' },
          beta: { type: 'number' },
          pruning: { ...obj, properties: { preserving: { ...obj, 'x-kubernetes-preserve-unknown-fields': true }, pruning: obj } },
          preserving: {
            ...obj,
            'x-kubernetes-preserve-unknown-fields': true,
            properties: { preserving: { ...obj, 'x-kubernetes-preserve-unknown-fields': true }, pruning: obj },
          },
          // This x-kubernetes-preserve-unknown-fields is not inherited by the schema inside additionalProperties.
          preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: {
            ...obj,
            'x-kubernetes-preserve-unknown-fields': true,
            additionalProperties: { ...obj, properties: { specified: obj } },
          },
          preservingAdditionalPropertiesKeyPruneValues: { ...obj, additionalProperties: { ...obj, properties: { specified: obj } } },
        },
      },
      expected: {
        unspecified: 'bar',
        alpha: 'abc',
        beta: 42.0,
        unspecifiedObject: { unspecified: 'bar' },
        pruning: { pruning: {}, preserving: { unspecified: 'bar' } },
        preserving: { unspecified: 'bar', unspecifiedObject: { unspecified: 'bar' }, pruning: {}, preserving: { unspecified: 'bar' } },
        preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: { foo: { specified: {} } },
        preservingAdditionalPropertiesKeyPruneValues: { foo: { specified: {} } },
      },
      pruned: [
        'preserving.pruning.unspecified',
        'preservingAdditionalPropertiesKeyPruneValues.foo.specified.unspecified',
        'preservingAdditionalPropertiesKeyPruneValues.foo.unspecified',
        'preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.specified.unspecified',
        'preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.unspecified',
        'pruning.apiVersion',
        'pruning.pruning.unspecified',
        'pruning.unspecified',
        'pruning.unspecifiedObject',
      ],
    },
    {
      name: 'additionalProperties with schema',
      input: { a: 1, b: 1, c: { a: 1, b: 2, c: { a: 1 } } },
      schema: { properties: { a: {}, c: { additionalProperties: { type: 'integer' } } } },
      expected: { a: 1, c: { a: 1, b: 2, c: {} } },
      pruned: ['b', 'c.c.a'],
    },
    {
      name: 'additionalProperties with bool',
      input: { a: 1, b: 1, c: { a: 1, b: 2, c: { a: 1, apiVersion: 'unknown' } } },
      schema: { properties: { a: {}, c: { additionalProperties: false } } },
      expected: { a: 1, c: { a: 1, b: 2, c: {} } },
      pruned: ['b', 'c.c.a', 'c.c.apiVersion'],
    },
    {
      // Not a resource root: the top-level apiVersion, kind and metadata go, without being reported.
      name: 'x-kubernetes-embedded-resource',
      input: embeddedInput(),
      schema: embeddedSchema,
      expected: embeddedExpected,
      pruned: embeddedPruned,
    },
    {
      name: 'x-kubernetes-embedded-resource, with root=true',
      input: embeddedInput(),
      schema: embeddedSchema,
      isResourceRoot: true,
      expected: { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: 'instance', unspecified: 'bar' }, ...embeddedExpected },
      pruned: embeddedPruned,
    },
  ];

describe('prune (kube pruning/algorithm_test.go)', () => {
  for (const c of cases) {
    it(c.name, () => {
      const schema = c.schema === undefined ? undefined : newStructural(c.schema);
      const value = structuredClone(c.input);
      const pruned = prune(value, schema, { isResourceRoot: c.isResourceRoot });
      expect(value).toEqual(c.expected);
      expect(pruned).toEqual(c.pruned ?? []);
    });
  }

  it('keeps a property called __proto__ as data and prunes an unknown one without touching the prototype', () => {
    const value = JSON.parse('{"spec":{"__proto__":{"x":1},"constructor":2}}');
    const pruned = prune(value, newStructural({ ...obj, properties: { spec: { ...obj, properties: { ['__proto__']: obj } } } }), {
      isResourceRoot: true,
    });
    expect(pruned).toEqual(['spec.__proto__.x', 'spec.constructor']);
    expect(Object.getPrototypeOf(value.spec)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"spec":{"__proto__":{}}}');
  });

  it('an item schema under x-kubernetes-preserve-unknown-fields keeps preserving, and prunes below its own properties', () => {
    const schema = newStructural({
      ...obj,
      properties: { list: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { ...obj, properties: { known: obj } } } },
    });
    const value = { list: [{ extra: 1, known: { deep: 2 } }] };
    expect(prune(value, schema, { isResourceRoot: true })).toEqual(['list[0].known.deep']);
    expect(value).toEqual({ list: [{ extra: 1, known: {} }] });
  });

  it('words each pruned path as kube words an unknown field', () => {
    expect(unknownFieldMessage('spec.foo')).toBe('unknown field "spec.foo"');
    expect(unknownFieldMessage('spec.a"b')).toBe('unknown field "spec.a"b"');
  });
});

describe('prune on data nested as deep as the decoder allows', () => {
  it('walks 10,000 levels below a schema-less value without running out of stack', () => {
    let deep: unknown = { a: 1 };
    for (let i = 0; i < 10000; i++) deep = [deep];
    const schema = newStructural({
      type: 'object',
      properties: {
        open: { type: 'object', additionalProperties: true },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    });
    const value = { open: { x: deep }, free: { y: deep } };
    const pruned = prune(value, schema, { isResourceRoot: true });
    expect(pruned).toEqual([`open.x${'[0]'.repeat(10000)}.a`]);
  });
});
