import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from './define-resource.ts';
import { atomicList, intOrString, listMap, listSet, preserveUnknownFields } from './kube-extensions.ts';
import { labelSelectorSchema, OBJECT_META_OPENAPI } from './metav1.ts';
import { toOpenAPISchema } from './openapi.ts';

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [
    {
      name: 'v1',
      schema: z
        .object({
          spec: z.object({
            replicas: z.int32().min(0).default(1).describe('Desired number of replicas.'),
            selector: labelSelectorSchema,
            ports: listMap(z.array(z.object({ name: z.string(), port: intOrString() })), ['name']).optional(),
            tags: listSet(z.array(z.string())).optional(),
            args: atomicList(z.array(z.string())).optional(),
            config: z.record(z.string(), z.unknown()).optional(),
            raw: z.unknown().optional(),
            template: preserveUnknownFields(z.object({ image: z.string() })).optional(),
            mode: z.enum(['Fast', 'Safe']).optional(),
            ratio: z.number().nullable().optional(),
          }),
          status: z.object({ replicas: z.int().optional() }).optional(),
        })
        .describe('A Widget.'),
    },
  ],
  printerColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
});

const schema = toOpenAPISchema(Widget, 'v1');
const spec = schema.properties?.spec;

describe('toOpenAPISchema', () => {
  it('publishes apiVersion, kind, ObjectMeta and the group-version-kind at the top', () => {
    expect(schema.type).toBe('object');
    expect(schema.description).toBe('A Widget.');
    expect(schema.$schema).toBeUndefined();
    expect(Object.keys(schema.properties ?? {})).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(schema.properties?.apiVersion?.type).toBe('string');
    expect(schema.properties?.kind?.type).toBe('string');
    expect(schema.properties?.metadata).toEqual(OBJECT_META_OPENAPI);
    expect(schema.required).toEqual(['spec']);
    expect(schema['x-kubernetes-group-version-kind']).toEqual([{ group: 'example.kapi.dev', version: 'v1', kind: 'Widget' }]);
  });

  it('writes integers as Kubernetes does, without the bounds zod implies', () => {
    expect(spec?.properties?.replicas).toEqual({
      type: 'integer',
      format: 'int32',
      minimum: 0,
      default: 1,
      description: 'Desired number of replicas.',
    });
    expect(schema.properties?.status?.properties?.replicas).toEqual({ type: 'integer' });
    expect(spec?.required).toEqual(['selector']);
  });

  it('writes metav1.LabelSelector as an atomic map with an atomic list of requirements', () => {
    const selector = spec?.properties?.selector;
    expect(selector?.['x-kubernetes-map-type']).toBe('atomic');
    expect(selector?.properties?.matchLabels).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(selector?.properties?.matchExpressions?.['x-kubernetes-list-type']).toBe('atomic');
    expect(selector?.properties?.matchExpressions?.items?.properties?.operator).toEqual({
      type: 'string',
      enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'],
    });
  });

  it('writes list types, map keys and patch strategies', () => {
    expect(spec?.properties?.ports).toMatchObject({
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'name',
      items: { type: 'object', required: ['name', 'port'] },
    });
    expect(spec?.properties?.tags).toEqual({
      type: 'array',
      items: { type: 'string' },
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    });
    expect(spec?.properties?.args?.['x-kubernetes-list-type']).toBe('atomic');
  });

  it('marks int-or-string', () => {
    expect(spec?.properties?.ports?.items?.properties?.port).toEqual({
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      'x-kubernetes-int-or-string': true,
    });
  });

  it('preserves unknown fields where the schema accepts anything', () => {
    expect(spec?.properties?.config).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(spec?.properties?.raw).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(spec?.properties?.template).toEqual({
      type: 'object',
      properties: { image: { type: 'string' } },
      required: ['image'],
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it('keeps enums, nullable and never writes additionalProperties beside properties', () => {
    expect(spec?.properties?.mode).toEqual({ type: 'string', enum: ['Fast', 'Safe'] });
    expect(spec?.properties?.ratio).toEqual({ type: 'number', nullable: true });
    const walk = (s: unknown): void => {
      if (typeof s !== 'object' || s === null) return;
      const o = s as Record<string, unknown>;
      expect(o.properties !== undefined && o.additionalProperties !== undefined).toBe(false);
      expect(o.additionalProperties).not.toBe(false);
      expect(o.propertyNames).toBeUndefined();
      for (const v of Object.values(o)) walk(v);
    };
    walk(schema);
  });

  it('is computed once and handed out as a copy', () => {
    const a = toOpenAPISchema(Widget, 'v1');
    a.type = 'array';
    expect(toOpenAPISchema(Widget, 'v1').type).toBe('object');
  });

  it('throws for a version the kind does not have', () => {
    expect(() => toOpenAPISchema(Widget, 'v2')).toThrow('Widget.example.kapi.dev has no version "v2"');
  });
});
