import { fieldErrorMessage } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from './define-resource.ts';
import { invalidError } from './invalid-error.ts';
import { listMap, listSet } from './kube-extensions.ts';
import { goSharpV, validateListSetsAndMaps } from './list-type.ts';
import { validateObject } from './validate-object.ts';

const port = z.object({ port: z.int(), protocol: z.string().default('TCP'), name: z.string().optional() });
const schema = z.object({
  spec: z
    .object({
      ports: listMap(z.array(port), ['port']).optional(),
      endpoints: listMap(z.array(port), ['port', 'protocol']).optional(),
      tags: listSet(z.array(z.string())).optional(),
      numbers: listSet(z.array(z.int())).optional(),
      plain: z.array(z.string()).optional(),
      groups: z.record(z.string(), z.object({ members: listSet(z.array(z.string())) })).optional(),
      nested: z.array(z.object({ ports: listMap(z.array(port), ['port']) })).optional(),
      anything: listSet(z.array(z.unknown())).optional(),
    })
    .optional(),
});

const messages = (spec: unknown) => validateListSetsAndMaps(schema, { spec }).map(fieldErrorMessage);

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1', schema }],
});

describe('goSharpV', () => {
  it('prints JSON values as Go prints interface{} values with %#v', () => {
    expect(goSharpV({ port: 80, name: 'a', ok: true, none: null })).toBe(
      'map[string]interface {}{"name":"a", "none":interface {}(nil), "ok":true, "port":80}',
    );
    expect(goSharpV(['a', 1.5, { b: [] }])).toBe('[]interface {}{"a", 1.5, map[string]interface {}{"b":[]interface {}{}}}');
    expect(goSharpV({})).toBe('map[string]interface {}{}');
  });
});

describe('validateListSetsAndMaps', () => {
  it('accepts unique keys and items', () => {
    expect(messages({ ports: [{ port: 80 }, { port: 443 }], tags: ['a', 'b'], plain: ['x', 'x'] })).toEqual([]);
  });

  it('reports a repeated map key at the second item, with the key as kube prints it', () => {
    expect(messages({ ports: [{ port: 80 }, { port: 443, name: 'x' }, { port: 80, name: 'y' }] })).toEqual([
      'spec.ports[2]: Duplicate value: map[string]interface {}{"port":80}',
    ]);
  });

  it('reports each repeated value once, at its second appearance', () => {
    expect(messages({ ports: [{ port: 80 }, { port: 80 }, { port: 80 }, { port: 1 }, { port: 1 }] })).toEqual([
      'spec.ports[1]: Duplicate value: map[string]interface {}{"port":80}',
      'spec.ports[4]: Duplicate value: map[string]interface {}{"port":1}',
    ]);
  });

  it('compares every key of a multi-key map list', () => {
    const endpoints = [
      { port: 80, protocol: 'TCP' },
      { port: 80, protocol: 'UDP' },
      { port: 80, protocol: 'TCP', name: 'again' },
    ];
    expect(messages({ endpoints })).toEqual(['spec.endpoints[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}']);
  });

  it('treats a missing key as a value of its own', () => {
    expect(messages({ ports: [{ name: 'a' }, { name: 'b' }] })).toEqual(['spec.ports[1]: Duplicate value: map[string]interface {}{}']);
    expect(messages({ ports: [{ name: 'a' }, { port: null }] })).toEqual([]);
  });

  it('reports repeated set items with the value as kube prints it', () => {
    expect(messages({ tags: ['a', 'b', 'a'], numbers: [1, 2, 2] })).toEqual([
      'spec.tags[2]: Duplicate value: "a"',
      'spec.numbers[2]: Duplicate value: 2',
    ]);
    expect(messages({ anything: [{ b: 1, a: [1] }, { a: [1], b: 1 }, '1', 1, null, null] })).toEqual([
      'spec.anything[1]: Duplicate value: map[string]interface {}{"a":[]interface {}{1}, "b":1}',
      'spec.anything[5]: Duplicate value: "null"',
    ]);
  });

  it('looks into maps and nested lists', () => {
    expect(
      messages({ groups: { admins: { members: ['x', 'x'] } }, nested: [{ ports: [] }, { ports: [{ port: 1 }, { port: 1 }] }] }),
    ).toEqual([
      'spec.groups[admins].members[1]: Duplicate value: "x"',
      'spec.nested[1].ports[1]: Duplicate value: map[string]interface {}{"port":1}',
    ]);
  });
});

describe('validateObject with map and set lists', () => {
  const widget = (spec: unknown) => ({
    apiVersion: 'example.kapi.dev/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default' },
    spec,
  });

  it('reports duplicates after the schema errors, on the defaulted object', () => {
    const errs = validateObject(Widget, 'v1', widget({ ports: [{ port: 80 }, { port: 80 }], tags: [1] }));
    expect(errs.map(fieldErrorMessage)).toEqual([
      'spec.tags[0]: Invalid value: "integer": spec.tags[0] in body must be of type string: "integer"',
      'spec.ports[1]: Duplicate value: map[string]interface {}{"port":80}',
    ]);
    // protocol defaults to TCP, which makes the two endpoints the same.
    expect(
      validateObject(Widget, 'v1', widget({ endpoints: [{ port: 80 }, { port: 80, protocol: 'TCP' }] })).map(fieldErrorMessage),
    ).toEqual(['spec.endpoints[1]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}']);
    expect(validateObject(Widget, 'v1', widget({ endpoints: [{ port: 80 }, { port: 80, protocol: 'UDP' }] }))).toEqual([]);
  });

  it('is a 422 with one cause per duplicate', () => {
    const errs = validateObject(Widget, 'v1', widget({ ports: [{ port: 80 }, { port: 80 }] }));
    expect(invalidError(Widget, 'w', errs).status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'Widget.example.kapi.dev "w" is invalid: spec.ports[1]: Duplicate value: map[string]interface {}{"port":80}',
      details: {
        causes: [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: map[string]interface {}{"port":80}', field: 'spec.ports[1]' }],
      },
    });
  });
});

describe('deep items', () => {
  it('a set list of items nested 9,000 levels compares and reports them without running out of stack', () => {
    let item: unknown = 1;
    for (let i = 0; i < 9_000; i++) item = { a: item };
    const errs = validateListSetsAndMaps(schema, { spec: { ports: [], anything: [item, { x: 1 }, item] } });
    expect(errs.map((e) => e.field)).toEqual(['spec.anything[2]']);
    expect(errs[0]?.detail).toBe(`${'map[string]interface {}{"a":'.repeat(9_000)}1${'}'.repeat(9_000)}`);
  });
});

describe('validateListSetsAndMaps on schemas with and without map and set lists', () => {
  it('finds a set list reached only through a recursive (lazy) schema, a union or a record', () => {
    interface Node {
      children?: Node[];
      tags?: string[];
    }
    const node: z.ZodType<Node> = z.lazy(() =>
      z.object({ children: z.array(node).optional(), tags: listSet(z.array(z.string())).optional() }),
    );
    const tree = z.object({ spec: z.object({ root: node }) });
    const dup = { spec: { root: { children: [{ tags: ['a', 'a'] }] } } };
    expect(validateListSetsAndMaps(tree, dup).map(fieldErrorMessage)).toEqual(['spec.root.children[0].tags[1]: Duplicate value: "a"']);
    const union = z.object({ v: z.union([z.string(), z.object({ s: listSet(z.array(z.int())) })]) });
    expect(validateListSetsAndMaps(union, { v: { s: [1, 1] } }).map(fieldErrorMessage)).toEqual(['v.s[1]: Duplicate value: 1']);
    const record = z.object({ m: z.record(z.string(), listSet(z.array(z.string()))) });
    expect(validateListSetsAndMaps(record, { m: { k: ['x', 'x'] } }).map(fieldErrorMessage)).toEqual(['m[k][1]: Duplicate value: "x"']);
  });

  it('reports nothing for a schema without map or set lists, whatever the body holds', () => {
    const plain = z.object({ data: z.record(z.string(), z.string()).optional(), list: z.array(z.string()).optional() });
    expect(validateListSetsAndMaps(plain, { data: { a: 'b' }, list: ['x', 'x'] })).toEqual([]);
  });
});
