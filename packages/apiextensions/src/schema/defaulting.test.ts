import { describe, expect, it } from 'vitest';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaulting.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { newStructural } from './new-structural.ts';

const run = (fn: typeof applyDefaults, json: string, schema: JSONSchemaProps | undefined): unknown => {
  const value = JSON.parse(json);
  fn(value, schema === undefined ? undefined : newStructural(schema));
  return value;
};

// kube's defaulting/algorithm_test.go TestDefault.
const defaultCases: [string, string, JSONSchemaProps | undefined, string][] = [
  ['empty', 'null', undefined, 'null'],
  ['scalar', '4', { default: 'foo' }, '4'],
  ['scalar array', '[1,2]', { items: { default: 'foo' } }, '[1,2]'],
  [
    'object array',
    '[{"a":1},{"b":1},{"c":1}]',
    { items: { properties: { a: { default: 'A' }, b: { default: 'B' }, c: { default: 'C' } } } },
    '[{"a":1,"b":"B","c":"C"},{"a":"A","b":1,"c":"C"},{"a":"A","b":"B","c":1}]',
  ],
  [
    'object array object',
    '{"array":[{"a":1},{"b":2}],"object":{"a":1},"additionalProperties":{"x":{"a":1},"y":{"b":2}}}',
    {
      properties: {
        array: { items: { properties: { a: { default: 'A' }, b: { default: 'B' } } } },
        object: { properties: { a: { default: 'N' }, b: { default: 'O' } } },
        additionalProperties: { additionalProperties: { properties: { a: { default: 'alpha' }, b: { default: 'beta' } } } },
        foo: { default: 'bar' },
      },
    },
    '{"array":[{"a":1,"b":"B"},{"a":"A","b":2}],"object":{"a":1,"b":"O"},"additionalProperties":{"x":{"a":1,"b":"beta"},"y":{"a":"alpha","b":2}},"foo":"bar"}',
  ],
  [
    'empty and null',
    '[{},{"a":1},{"a":0},{"a":0.0},{"a":""},{"a":null},{"a":[]},{"a":{}}]',
    { items: { properties: { a: { default: 'A' } } } },
    '[{"a":"A"},{"a":1},{"a":0},{"a":0.0},{"a":""},{"a":"A"},{"a":[]},{"a":{}}]',
  ],
  ['null in nullable list', '[null]', { nullable: true, items: { properties: { a: { default: 'A' } } } }, '[null]'],
  ['null in non-nullable list', '[null]', { items: { default: 'A' } }, '["A"]'],
  ['null in nullable object', '{"a": null}', { properties: { a: { nullable: true, default: 'A' } } }, '{"a": null}'],
  ['null in non-nullable object', '{"a": null}', { properties: { a: { default: 'A' } } }, '{"a": "A"}'],
  [
    'null in nullable object with additionalProperties',
    '{"a": null}',
    { additionalProperties: { nullable: true, default: 'A' } },
    '{"a": null}',
  ],
  ['null in non-nullable object with additionalProperties', '{"a": null}', { additionalProperties: { default: 'A' } }, '{"a": "A"}'],
  ['null unknown field', '{"a": null}', { additionalProperties: true }, '{"a": null}'],
];

describe('applyDefaults (kube defaulting/algorithm_test.go)', () => {
  for (const [name, json, schema, expected] of defaultCases) {
    it(name, () => expect(run(applyDefaults, json, schema)).toEqual(JSON.parse(expected)));
  }

  it('gives every defaulted field its own deep copy of the default', () => {
    const schema = newStructural({ items: { properties: { a: { default: { list: [1] } } } } });
    const value = [{}, {}] as { a: { list: number[] } }[];
    applyDefaults(value, schema);
    value[0]?.a.list.push(2);
    expect(value[1]?.a.list).toEqual([1]);
    expect(schema.items?.properties?.get('a')?.default).toEqual({ list: [1] });
  });

  it('defaults inside a default it has just set', () => {
    const value = {};
    applyDefaults(value, newStructural({ properties: { spec: { default: {}, properties: { replicas: { default: 1 } } } } }));
    expect(value).toEqual({ spec: { replicas: 1 } });
  });

  it('a default of JSON null is no default', () => {
    expect(run(applyDefaults, '{}', { properties: { a: { default: null } } })).toEqual({});
  });

  it('sets a property named __proto__ as data', () => {
    const value = {} as Record<string, unknown>;
    applyDefaults(value, newStructural({ properties: JSON.parse('{"__proto__":{"default":{"polluted":true}}}') }));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"polluted":true}}');
  });
});

// kube's defaulting/prunenulls_test.go TestPruneNonNullableNullsWithoutDefaults.
const nullCases: [string, string, JSONSchemaProps | undefined, string][] = [
  ['empty', 'null', undefined, 'null'],
  ['scalar', '4', { default: 'foo' }, '4'],
  ['scalar array', '[1,null]', undefined, '[1,null]'],
  [
    'object array',
    '[{"a":null},{"b":null},{"c":null},{"d":null},{"e":null}]',
    { items: { properties: { a: { default: 'A' }, b: { nullable: true }, c: { default: 'C', nullable: true }, d: {} } } },
    '[{"a":null},{"b":null},{"c":null},{},{"e":null}]',
  ],
];

describe('pruneNonNullableNullsWithoutDefaults (kube defaulting/prunenulls_test.go)', () => {
  for (const [name, json, schema, expected] of nullCases) {
    it(name, () => expect(run(pruneNonNullableNullsWithoutDefaults, json, schema)).toEqual(JSON.parse(expected)));
  }

  it('drops a non-nullable null map value without default, keeps items of a list', () => {
    expect(
      run(pruneNonNullableNullsWithoutDefaults, '{"m":{"x":null},"l":[null]}', {
        properties: { m: { additionalProperties: { type: 'string' } }, l: { items: { type: 'string' } } },
      }),
    ).toEqual({
      m: {},
      l: [null],
    });
  });

  it('then applyDefaults: a null with a default becomes the default, as kube runs the two', () => {
    const schema = newStructural({ properties: { a: { default: 'A' }, b: {} } });
    const value = { a: null, b: null };
    pruneNonNullableNullsWithoutDefaults(value, schema);
    applyDefaults(value, schema);
    expect(value).toEqual({ a: 'A' });
  });
});

describe('defaulting on data nested as deep as the decoder allows', () => {
  it('walks 10,000 levels without running out of stack', () => {
    let deep: unknown = { a: null };
    for (let i = 0; i < 10000; i++) deep = [deep];
    const schema = newStructural({ type: 'object', properties: { open: { type: 'object', additionalProperties: true, default: {} } } });
    const value = { open: { x: deep } };
    pruneNonNullableNullsWithoutDefaults(value, schema);
    applyDefaults(value, schema);
    let inner: unknown = value.open.x;
    for (let i = 0; i < 10000; i++) inner = (inner as unknown[])[0];
    expect(inner).toEqual({ a: null });
  });
});
