import { fieldSetToFieldsV1, fromOpenAPI, type OpenAPISchemaObject } from '@kapi/apimachinery';
import { OBJECT_META_OPENAPI } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { toFieldSet } from '../../apimachinery/src/typed/to-field-set.ts';
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
    const { template, ...rest } = openAPI.properties?.spec?.properties ?? {};
    const { template: original, ...expected } = spec.properties ?? {};
    expect(rest).toEqual(expected);
    // An embedded resource gets kube's TypeMeta and ObjectMeta (the builder's addEmbeddedProperties), both required.
    expect(template).toEqual({
      ...original,
      required: ['kind', 'apiVersion'],
      properties: {
        ...original?.properties,
        apiVersion: { type: 'string', description: expect.stringContaining('apiVersion defines') },
        kind: { type: 'string', description: expect.stringContaining('kind is a string value') },
        metadata: { ...OBJECT_META_OPENAPI, description: expect.stringContaining("Standard object's metadata") },
      },
    });
  });

  it('types a custom resource as kube does: the field set of a value, in the FieldsV1 kube records', () => {
    // As the field manager builds it: the version's OpenAPI under apiVersion, kind and ObjectMeta.
    const typed = fromOpenAPI({
      ...(openAPI as OpenAPISchemaObject),
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: OBJECT_META_OPENAPI as OpenAPISchemaObject,
        ...(openAPI.properties as Record<string, OpenAPISchemaObject>),
      },
    });
    const value = {
      metadata: { finalizers: ['f'], labels: { l: 'v' }, ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'o', uid: 'u1' }] },
      spec: {
        ports: [{ port: 80, protocol: 'TCP', name: 'web' }],
        tags: ['a', 'b'],
        args: ['x'],
        plain: [1],
        selector: { matchLabels: { app: 'w' } },
        labels: { k: 'v' },
        timeout: '5s',
        config: { deep: { x: 1 }, list: [1, 2] },
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { finalizers: ['g'], labels: { a: 'b' } }, spec: { rules: ['r'] } },
        nested: [{ name: 'n', values: [1], env: [{ key: 'K', value: 'V' }] }],
      },
    };
    expect(fieldSetToFieldsV1(toFieldSet(typed, value))).toEqual({
      'f:metadata': {
        'f:finalizers': { 'v:"f"': {} },
        'f:labels': { 'f:l': {} },
        'f:ownerReferences': { 'k:{"uid":"u1"}': {} },
      },
      'f:spec': {
        'f:args': {},
        // Keys of a map that are not named fields are members even with children (SMD's visitMapItems).
        'f:config': { 'f:deep': { '.': {}, 'f:x': {} }, 'f:list': {} },
        'f:labels': { 'f:k': {} },
        'f:nested': {
          'k:{"name":"n"}': { '.': {}, 'f:env': { 'k:{"key":"K"}': {} }, 'f:name': {}, 'f:values': { 'v:1': {} } },
        },
        'f:plain': {},
        'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } },
        'f:selector': {},
        'f:tags': { 'v:"a"': {}, 'v:"b"': {} },
        'f:template': {
          'f:apiVersion': {},
          'f:kind': {},
          'f:metadata': { 'f:finalizers': { 'v:"g"': {} }, 'f:labels': { 'f:a': {} } },
          // Under preserve-unknown-fields the declared properties keep their types.
          'f:spec': { 'f:rules': { 'v:"r"': {} } },
        },
        'f:timeout': {},
      },
    });
  });

  it('leaves apiVersion, kind and metadata to the caller, which adds ObjectMeta (as kube adds it for CRDs)', () => {
    expect(Object.keys(openAPI.properties ?? {})).toEqual(['spec']);
  });
});
