import { ConfigMap, Namespace, Scheme } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { definitionName, groupCamel } from './names.ts';
import { Widget } from './test-support/widget.ts';
import { groupVersionDocument, type OpenAPIV3Document } from './v3-document.ts';

type Op = {
  operationId: string;
  parameters?: { name: string; in: string; schema: { type: string } }[];
  requestBody?: { content: Record<string, { schema: { $ref: string } }>; required?: boolean };
  responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }>;
  'x-kubernetes-action': string;
  'x-kubernetes-group-version-kind': { group: string; version: string; kind: string };
};
const op = (doc: OpenAPIV3Document, path: string, method: string): Op => (doc.paths[path] as Record<string, Op>)[method] as Op;
const paramNames = (o: Op): string[] => (o.parameters ?? []).map((p) => p.name);

function refsIn(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) refsIn(x, out);
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref') out.add(x as string);
      else refsIn(x, out);
    }
  return out;
}

describe('definition names', () => {
  it('follows kube: core built-ins under io.k8s.api.core, other groups reversed, kube groups by Go package', () => {
    expect(definitionName('', 'v1', 'ConfigMap')).toBe('io.k8s.api.core.v1.ConfigMap');
    expect(definitionName('example.kapi.dev', 'v1', 'Widget')).toBe('dev.kapi.example.v1.Widget');
    expect(definitionName('apps', 'v1', 'Deployment')).toBe('io.k8s.api.apps.v1.Deployment');
    expect(definitionName('rbac.authorization.k8s.io', 'v1', 'Role')).toBe('io.k8s.api.rbac.v1.Role');
    expect(definitionName('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition')).toBe(
      'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    );
    expect(groupCamel('example.kapi.dev')).toBe('exampleKapiDev');
    expect(groupCamel('')).toBe('core');
  });
});

describe('groupVersionDocument (a defined kind)', () => {
  const doc = groupVersionDocument([Widget], 'v1');
  const ns = '/apis/example.kapi.dev/v1/namespaces/{namespace}/widgets';

  it('is OpenAPI 3.0.0 with the CRD builder paths, and no watch paths', () => {
    expect(doc.openapi).toBe('3.0.0');
    expect(doc.info.title).toBe('Kubernetes');
    expect(Object.keys(doc.paths)).toEqual([
      ns,
      `${ns}/{name}`,
      `${ns}/{name}/scale`,
      `${ns}/{name}/status`,
      '/apis/example.kapi.dev/v1/widgets',
    ]);
    expect(Object.keys(doc.paths[ns] ?? {})).toEqual(['get', 'post', 'delete', 'parameters']);
    expect(Object.keys(doc.paths[`${ns}/{name}`] ?? {})).toEqual(['get', 'put', 'delete', 'patch', 'parameters']);
    expect(Object.keys(doc.paths[`${ns}/{name}/status`] ?? {})).toEqual(['get', 'put', 'patch', 'parameters']);
  });

  it('puts name, namespace and pretty on the path, kube query parameters on each operation', () => {
    const item = doc.paths[`${ns}/{name}`] as { parameters: { name: string; in: string; required?: boolean }[] };
    expect(item.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['path:name', 'path:namespace', 'query:pretty']);
    expect(paramNames(op(doc, ns, 'get'))).toEqual([
      'allowWatchBookmarks',
      'continue',
      'fieldSelector',
      'labelSelector',
      'limit',
      'resourceVersion',
      'resourceVersionMatch',
      'sendInitialEvents',
      'timeoutSeconds',
      'watch',
    ]);
    expect(paramNames(op(doc, ns, 'post'))).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    expect(paramNames(op(doc, `${ns}/{name}`, 'put'))).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    expect(paramNames(op(doc, `${ns}/{name}`, 'patch'))).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    expect(paramNames(op(doc, `${ns}/{name}`, 'delete'))).toEqual([
      'dryRun',
      'gracePeriodSeconds',
      'orphanDependents',
      'propagationPolicy',
    ]);
    expect(paramNames(op(doc, ns, 'delete'))).toEqual(
      expect.arrayContaining(['labelSelector', 'fieldSelector', 'gracePeriodSeconds', 'propagationPolicy', 'dryRun']),
    );
    const limit = op(doc, ns, 'get').parameters?.find((p) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', schema: { type: 'integer', uniqueItems: true } });
  });

  it('has what kubectl QueryParamVerifierV3 looks for: a PATCH with the GVK and a fieldValidation query parameter', () => {
    const patch = op(doc, `${ns}/{name}`, 'patch');
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'example.kapi.dev', version: 'v1', kind: 'Widget' });
    expect(patch['x-kubernetes-action']).toBe('patch');
    expect(patch.parameters?.find((p) => p.name === 'fieldValidation')?.in).toBe('query');
    expect(Object.keys(patch.requestBody?.content ?? {})).toEqual([
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
    expect(patch.requestBody?.content['application/merge-patch+json']?.schema.$ref).toBe(
      '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
    );
  });

  it('names operations, actions and bodies as kube does', () => {
    expect(op(doc, ns, 'get').operationId).toBe('listExampleKapiDevV1NamespacedWidget');
    expect(op(doc, '/apis/example.kapi.dev/v1/widgets', 'get').operationId).toBe('listExampleKapiDevV1WidgetForAllNamespaces');
    expect(op(doc, `${ns}/{name}/status`, 'patch').operationId).toBe('patchExampleKapiDevV1NamespacedWidgetStatus');
    expect(op(doc, ns, 'delete')['x-kubernetes-action']).toBe('deletecollection');
    expect(op(doc, ns, 'get').responses['200']?.content?.['application/json']?.schema.$ref).toBe(
      '#/components/schemas/dev.kapi.example.v1.WidgetList',
    );
    expect(op(doc, ns, 'post').requestBody?.content['application/json']?.schema.$ref).toBe(
      '#/components/schemas/dev.kapi.example.v1.Widget',
    );
    expect(Object.keys(op(doc, ns, 'post').responses)).toEqual(['200', '201', '202', '401']);
    expect(op(doc, `${ns}/{name}`, 'delete').responses['200']?.content?.['application/json']?.schema.$ref).toBe(
      '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status',
    );
  });

  it('serves scale as autoscaling/v1 Scale', () => {
    const get = op(doc, `${ns}/{name}/scale`, 'get');
    expect(get['x-kubernetes-group-version-kind']).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect(get.responses['200']?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/io.k8s.api.autoscaling.v1.Scale');
    expect(doc.components.schemas['io.k8s.api.autoscaling.v1.Scale']?.['x-kubernetes-group-version-kind']).toEqual([
      { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    ]);
  });

  it('publishes the kind and list schemas with their GVK, metadata as a reference to ObjectMeta', () => {
    const widget = doc.components.schemas['dev.kapi.example.v1.Widget'];
    expect(widget?.['x-kubernetes-group-version-kind']).toEqual([{ group: 'example.kapi.dev', version: 'v1', kind: 'Widget' }]);
    expect(widget?.description).toBe('A Widget is a thing kapi serves in its tests.');
    expect(widget?.properties?.metadata).toMatchObject({
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
    });
    expect(widget?.properties?.spec?.properties?.replicas).toMatchObject({ type: 'integer', format: 'int32', default: 1 });
    expect(widget?.properties?.spec?.properties?.selector?.['x-kubernetes-map-type']).toBe('atomic');
    const list = doc.components.schemas['dev.kapi.example.v1.WidgetList'];
    expect(list?.['x-kubernetes-group-version-kind']).toEqual([{ group: 'example.kapi.dev', version: 'v1', kind: 'WidgetList' }]);
    expect(list?.properties?.items?.items).toEqual({ $ref: '#/components/schemas/dev.kapi.example.v1.Widget' });
    expect(list?.required).toEqual(['items']);
  });

  it('holds every definition it refers to, and only those', () => {
    const refs = [...refsIn(doc)].map((r) => r.replace('#/components/schemas/', ''));
    for (const r of refs) expect(doc.components.schemas[r], r).toBeDefined();
    expect(new Set(Object.keys(doc.components.schemas))).toEqual(
      new Set([...refs, 'dev.kapi.example.v1.Widget', 'dev.kapi.example.v1.WidgetList']),
    );
    expect(doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent']).toBeUndefined();
  });
});

describe('groupVersionDocument (core built-ins)', () => {
  const scheme = new Scheme().add(Namespace, ConfigMap);
  const doc = groupVersionDocument(
    scheme.definitionsIn('v1').map((d) => d.definition),
    'v1',
  );

  it('uses io.k8s.api.core.v1 names and the deprecated watch paths kube still publishes for built-ins', () => {
    expect(doc.components.schemas['io.k8s.api.core.v1.ConfigMap']?.['x-kubernetes-group-version-kind']).toEqual([
      { group: '', version: 'v1', kind: 'ConfigMap' },
    ]);
    expect(doc.components.schemas['io.k8s.api.core.v1.NamespaceList']).toBeDefined();
    expect(op(doc, '/api/v1/namespaces/{namespace}/configmaps/{name}', 'patch').operationId).toBe('patchCoreV1NamespacedConfigMap');
    const watch = op(doc, '/api/v1/watch/namespaces/{namespace}/configmaps', 'get');
    expect(watch['x-kubernetes-action']).toBe('watchlist');
    expect(watch.responses['200']?.content?.['application/json;stream=watch']?.schema.$ref).toBe(
      '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
    );
    expect(doc.components.schemas['io.k8s.apimachinery.pkg.runtime.RawExtension']).toBeDefined();
    expect(Object.keys(doc.paths)).toContain('/api/v1/watch/namespaces/{name}');
  });

  it('has the cluster-scoped Namespace with status and finalize', () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/namespaces',
        '/api/v1/namespaces/{name}',
        '/api/v1/namespaces/{name}/status',
        '/api/v1/namespaces/{name}/finalize',
      ]),
    );
    expect(Object.keys(doc.paths['/api/v1/namespaces/{name}/finalize'] ?? {})).toEqual(['put', 'parameters']);
    expect(op(doc, '/api/v1/namespaces', 'get').operationId).toBe('listCoreV1Namespace');
    expect(op(doc, '/api/v1/namespaces/{name}', 'delete').operationId).toBe('deleteCoreV1Namespace');
  });
});
