// End to end with the field-set model: the FieldsV1 kube-apiserver records for an apply configuration (kube's
// server-side apply documentation shows these), from an OpenAPI schema through fromOpenAPI and toFieldSet — before
// the field manager strips apiVersion, kind and metadata.name, which nobody owns.
import { describe, expect, it } from 'vitest';
import { fieldSetToFieldsV1 } from '../fieldpath/fields-v1.ts';
import { compare } from './compare.ts';
import { fromOpenAPI, type OpenAPISchemaObject } from './from-openapi.ts';
import { toFieldSet } from './to-field-set.ts';

const str: OpenAPISchemaObject = { type: 'string' };
const strMap: OpenAPISchemaObject = { type: 'object', additionalProperties: str };
const metadata: OpenAPISchemaObject = { type: 'object', properties: { name: str, namespace: str, labels: strMap, annotations: strMap } };
const configMap = fromOpenAPI({ type: 'object', properties: { apiVersion: str, kind: str, metadata, data: strMap } });
const deployment = fromOpenAPI({
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    metadata,
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        selector: { type: 'object', properties: { matchLabels: strMap }, 'x-kubernetes-map-type': 'atomic' },
        template: {
          type: 'object',
          properties: {
            metadata,
            spec: {
              type: 'object',
              properties: {
                containers: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      name: str,
                      image: str,
                      ports: {
                        type: 'array',
                        items: {
                          type: 'object',
                          properties: { containerPort: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
                        },
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
                      },
                    },
                  },
                  'x-kubernetes-list-type': 'map',
                  'x-kubernetes-list-map-keys': ['name'],
                },
              },
            },
          },
        },
      },
    },
  },
});

describe('FieldsV1 of typed values, as kube-apiserver records them', () => {
  it('an applied ConfigMap: its leaves only (struct fields are not members)', () => {
    const config = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'test-cm', labels: { 'test-label': 'test' } },
      data: { key: 'some value' },
    };
    expect(fieldSetToFieldsV1(toFieldSet(configMap, config))).toEqual({
      'f:apiVersion': {},
      'f:data': { 'f:key': {} },
      'f:kind': {},
      'f:metadata': { 'f:labels': { 'f:test-label': {} }, 'f:name': {} },
    });
  });

  it('an applied Deployment: map-list items by key (a defaulted key field included), atomic selector whole', () => {
    const config = {
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'nginx' } },
        template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }] }] } },
      },
    };
    expect(fieldSetToFieldsV1(toFieldSet(deployment, config))).toEqual({
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"nginx"}': {
                '.': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
              },
            },
          },
        },
      },
    });
  });

  it('an update: what it added, maps and structs included (".")', () => {
    const before = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'test-cm' } };
    const after = { ...before, metadata: { name: 'test-cm', labels: { app: 'a' } }, data: { key: 'v' } };
    const c = compare(configMap, before, after);
    expect(fieldSetToFieldsV1(c.added)).toEqual({
      'f:data': { '.': {}, 'f:key': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    });
    expect(c.modified.isEmpty() && c.removed.isEmpty()).toBe(true);
  });
});
