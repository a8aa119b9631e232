import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from './define-resource.ts';
import { intOrString, listMap, preserveUnknownFields } from './kube-extensions.ts';
import { findUnknownFields, unknownFieldMessage } from './unknown-fields.ts';

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [
    {
      name: 'v1',
      schema: z.object({
        spec: z.object({
          replicas: z.int().optional(),
          containers: listMap(z.array(z.object({ name: z.string(), port: intOrString().optional() })), ['name']).optional(),
          labels: z.record(z.string(), z.object({ v: z.string() })).optional(),
          raw: z.unknown().optional(),
          loose: z.looseObject({ a: z.string().optional() }).optional(),
          kept: preserveUnknownFields(z.object({ a: z.string().optional() })).optional(),
          either: z.union([z.string(), z.object({ x: z.string() })]).optional(),
          both: z.intersection(z.object({ a: z.string().optional() }), z.object({ b: z.string().optional() })).optional(),
        }),
      }),
    },
  ],
});

const find = (obj: object) =>
  findUnknownFields(Widget, 'v1', { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w' }, ...obj });

describe('findUnknownFields', () => {
  it('finds nothing in a conforming object', () => {
    expect(find({ spec: { replicas: 1, containers: [{ name: 'a', port: 'http' }], raw: { any: [1] }, either: 'x' } })).toEqual([]);
  });

  it('names top-level, nested, list and map paths', () => {
    expect(
      find({ extra: 1, spec: { foo: 1, containers: [{ name: 'a' }, { name: 'b', bar: 2 }], labels: { k: { v: 'x', w: 'y' } } } }),
    ).toEqual(['extra', 'spec.foo', 'spec.containers[1].bar', 'spec.labels[k].w']);
  });

  it('checks metadata fields against ObjectMeta', () => {
    expect(findUnknownFields(Widget, 'v1', { metadata: { name: 'w', labels: {}, nmae: 'x' }, spec: {} })).toEqual(['metadata.nmae']);
  });

  it('accepts anything under unknown, loose objects and preserve-unknown-fields', () => {
    expect(find({ spec: { raw: { a: { b: 1 } }, loose: { a: 'x', b: 1 }, kept: { z: 1 } } })).toEqual([]);
  });

  it('follows the union branch that fits the value', () => {
    expect(find({ spec: { either: { x: 'a', y: 'b' } } })).toEqual(['spec.either.y']);
  });

  it('knows the fields of both sides of an intersection', () => {
    expect(find({ spec: { both: { a: 'x', b: 'y', c: 'z' } } })).toEqual(['spec.both.c']);
  });

  it('words a finding as kube-apiserver does', () => {
    expect(unknownFieldMessage('spec.foo')).toBe('unknown field "spec.foo"');
    // strconv.Quote, not JSON: control characters as \x01, non-printables such as U+00A0 as \u00a0.
    expect(unknownFieldMessage('spec.a"\u0001\u00a0')).toBe('unknown field "spec.a\\"\\x01\\u00a0"');
  });
});
