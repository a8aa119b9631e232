import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { structuralVersionSchema } from './structural-version-schema.ts';

/**
 * What server-side apply types a custom resource by: a CRD version's VersionSchema.openAPI() keeps every extension of
 * the CRD's structural schema that structured-merge-diff reads (list type and map keys, map type, preserve-unknown,
 * int-or-string, embedded resource), exactly and at every depth, so the field manager's fromOpenAPI sees what kube's
 * type converter sees (kube builds it from the same structural schema, ObjectMeta added at the root).
 */

const item = (props: Record<string, JSONSchemaProps>, required: string[]): JSONSchemaProps => ({
  type: 'object',
  required,
  properties: props,
});

const spec: JSONSchemaProps = {
  type: 'object',
  properties: {
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      items: item({ port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, name: { type: 'string' } }, ['port']),
    },
    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    args: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } },
    plain: { type: 'array', items: { type: 'integer' } },
    selector: {
      type: 'object',
      'x-kubernetes-map-type': 'atomic',
      properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
    },
    labels: { type: 'object', 'x-kubernetes-map-type': 'granular', additionalProperties: { type: 'string' } },
    timeout: { 'x-kubernetes-int-or-string': true },
    config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    template: {
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        spec: { type: 'object', properties: { rules: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } } },
      },
    },
    nested: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: item(
        {
          name: { type: 'string' },
          values: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } },
          env: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['key'],
            items: { ...item({ key: { type: 'string' }, value: { type: 'string' } }, ['key']), 'x-kubernetes-map-type': 'atomic' },
          },
        },
        ['name'],
      ),
    },
  },
};

const openAPIV3Schema: JSONSchemaProps = {
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec },
};

describe("a CRD version's OpenAPI for server-side apply", () => {
  const openAPI = structuralVersionSchema(openAPIV3Schema).openAPI();

  it('keeps list types, map keys, map types, preserve-unknown, int-or-string and embedded resources exactly', () => {
    expect(openAPI.properties?.spec).toEqual(spec);
  });

  it('leaves apiVersion, kind and metadata to the caller, which adds ObjectMeta (as kube adds it for CRDs)', () => {
    expect(Object.keys(openAPI.properties ?? {})).toEqual(['spec']);
  });
});
