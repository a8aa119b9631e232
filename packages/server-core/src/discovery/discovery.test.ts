import { createHash } from 'node:crypto';
import { defineResource, Scheme } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions, discoveryETag, RESOURCE_VERBS } from './documents.ts';
import { storageVersionHash } from './storage-version-hash.ts';
import { compareKubeAwareVersions, sortVersionsByPriority } from './version-priority.ts';

const spec = z.object({ spec: z.object({ replicas: z.int() }), status: z.object({ replicas: z.int() }).optional() });

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  shortNames: ['wd'],
  categories: ['all'],
  namespaced: true,
  schema: spec,
  versions: [{ name: 'v1beta1' }, { name: 'v1', storage: true }, { name: 'v0', served: false }],
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
});
const Gadget = defineResource({
  group: 'alpha.kapi.dev',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: false,
  schema: spec,
  versions: [{ name: 'v1alpha1' }],
});
const ConfigMap = defineResource({
  group: '',
  kind: 'ConfigMap',
  plural: 'configmaps',
  shortNames: ['cm'],
  namespaced: true,
  versions: [{ name: 'v1', schema: z.object({ data: z.record(z.string(), z.string()).optional() }) }],
});

const scheme = new Scheme().add(Widget, ConfigMap, Gadget);
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUB_VERBS = ['get', 'patch', 'update'];

/** Computed here independently of storage-version-hash.ts. */
const expectedHash = (gvk: string) => Buffer.from(createHash('sha256').update(gvk).digest().subarray(0, 8)).toString('base64');

describe('version priority', () => {
  it('orders as kube does', () => {
    // helpers_test.go's ordering.
    const sorted = [
      'v1alpha1',
      'foo10',
      'v1',
      'v10beta3',
      'v11alpha2',
      'v1beta2',
      'v2',
      'foo1',
      'v10',
      'v11beta2',
      'v3beta1',
      'v12alpha1',
      'v1beta1',
    ];
    expect(sortVersionsByPriority(sorted)).toEqual([
      'v10',
      'v2',
      'v1',
      'v11beta2',
      'v10beta3',
      'v3beta1',
      'v1beta2',
      'v1beta1',
      'v12alpha1',
      'v11alpha2',
      'v1alpha1',
      'foo1',
      'foo10',
    ]);
    expect(compareKubeAwareVersions('v1', 'v1')).toBe(0);
    expect(compareKubeAwareVersions('v1', 'v1beta1')).toBeGreaterThan(0);
    expect(compareKubeAwareVersions('v1gamma1', 'v1alpha1')).toBeLessThan(0);
  });
});

describe('storageVersionHash', () => {
  it('is base64 of the first 8 bytes of sha256(group/version/kind)', () => {
    const h = storageVersionHash('example.kapi.dev', 'v1', 'Widget');
    expect(h).toBe(expectedHash('example.kapi.dev/v1/Widget'));
    expect(h).toHaveLength(12);
    expect(storageVersionHash('', 'v1', 'ConfigMap')).toBe(expectedHash('/v1/ConfigMap'));
  });
});

describe('legacy and group documents', () => {
  it('serves /api', () => {
    expect(apiVersions('10.0.0.1:6443')).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
    });
  });

  it('serves /apis: named groups by name, versions by priority, the highest preferred', () => {
    expect(apiGroupList(scheme)).toEqual({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [
        {
          name: 'alpha.kapi.dev',
          versions: [{ groupVersion: 'alpha.kapi.dev/v1alpha1', version: 'v1alpha1' }],
          preferredVersion: { groupVersion: 'alpha.kapi.dev/v1alpha1', version: 'v1alpha1' },
        },
        {
          name: 'example.kapi.dev',
          versions: [
            { groupVersion: 'example.kapi.dev/v1', version: 'v1' },
            { groupVersion: 'example.kapi.dev/v1beta1', version: 'v1beta1' },
          ],
          preferredVersion: { groupVersion: 'example.kapi.dev/v1', version: 'v1' },
        },
      ],
    });
    // A list of definitions works as well as a Scheme.
    expect(apiGroupList([Widget, ConfigMap, Gadget])).toEqual(apiGroupList(scheme));
  });

  it('serves /apis/<group>', () => {
    expect(apiGroup(scheme, 'example.kapi.dev')).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'example.kapi.dev',
      versions: [
        { groupVersion: 'example.kapi.dev/v1', version: 'v1' },
        { groupVersion: 'example.kapi.dev/v1beta1', version: 'v1beta1' },
      ],
      preferredVersion: { groupVersion: 'example.kapi.dev/v1', version: 'v1' },
    });
    expect(apiGroup(scheme, 'nope.dev')).toBeUndefined();
    expect(apiGroup(scheme, '')).toBeUndefined();
  });

  it('serves /apis/<group>/<version> with subresources', () => {
    const widgetHash = expectedHash('example.kapi.dev/v1/Widget');
    const widgetResources = [
      {
        name: 'widgets',
        singularName: 'widget',
        namespaced: true,
        kind: 'Widget',
        verbs: VERBS,
        shortNames: ['wd'],
        categories: ['all'],
        storageVersionHash: widgetHash,
      },
      { name: 'widgets/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: SUB_VERBS },
      { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: SUB_VERBS },
    ];
    expect(apiResourceList(scheme, 'example.kapi.dev/v1')).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'example.kapi.dev/v1',
      resources: widgetResources,
    });
    // The hash names the storage version whichever version is listed.
    expect(apiResourceList(scheme, 'example.kapi.dev/v1beta1')?.resources).toEqual(widgetResources);
    expect(apiResourceList(scheme, 'example.kapi.dev/v0')).toBeUndefined();
    expect(apiResourceList(scheme, 'example.kapi.dev/v2')).toBeUndefined();
    expect(apiResourceList(scheme, 'a/b/c')).toBeUndefined();
    const gadgets = apiResourceList(scheme, 'alpha.kapi.dev/v1alpha1')?.resources;
    expect(gadgets).toEqual([
      {
        name: 'gadgets',
        singularName: 'gadget',
        namespaced: false,
        kind: 'Gadget',
        verbs: VERBS,
        storageVersionHash: expectedHash('alpha.kapi.dev/v1alpha1/Gadget'),
      },
    ]);
    expect(Object.keys(gadgets?.[0] ?? {})).not.toContain('shortNames');
  });

  it('serves /api/v1 without apiVersion, as kube does', () => {
    expect(apiResourceList(scheme, 'v1')).toEqual({
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [
        {
          name: 'configmaps',
          singularName: 'configmap',
          namespaced: true,
          kind: 'ConfigMap',
          verbs: VERBS,
          shortNames: ['cm'],
          storageVersionHash: expectedHash('/v1/ConfigMap'),
        },
      ],
    });
    expect(RESOURCE_VERBS).toEqual(VERBS);
  });
});

describe('aggregated discovery v2', () => {
  it('lists the named groups for /apis', () => {
    const doc = aggregatedDiscovery(scheme, { legacy: false });
    expect(doc.kind).toBe('APIGroupDiscoveryList');
    expect(doc.apiVersion).toBe('apidiscovery.k8s.io/v2');
    expect(doc.metadata).toEqual({});
    expect(doc.items.map((i) => i.metadata.name)).toEqual(['alpha.kapi.dev', 'example.kapi.dev']);
    const example = doc.items[1];
    expect(example?.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1']);
    expect(example?.versions[1]).toEqual({
      version: 'v1beta1',
      freshness: 'Current',
      resources: [
        {
          resource: 'widgets',
          responseKind: { group: 'example.kapi.dev', version: 'v1beta1', kind: 'Widget' },
          scope: 'Namespaced',
          singularResource: 'widget',
          verbs: VERBS,
          shortNames: ['wd'],
          categories: ['all'],
          subresources: [
            { subresource: 'status', responseKind: { group: 'example.kapi.dev', version: 'v1beta1', kind: 'Widget' }, verbs: SUB_VERBS },
            { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: SUB_VERBS },
          ],
        },
      ],
    });
    expect(doc.items[0]).toEqual({
      metadata: { name: 'alpha.kapi.dev', creationTimestamp: null },
      versions: [
        {
          version: 'v1alpha1',
          freshness: 'Current',
          resources: [
            {
              resource: 'gadgets',
              responseKind: { group: 'alpha.kapi.dev', version: 'v1alpha1', kind: 'Gadget' },
              scope: 'Cluster',
              singularResource: 'gadget',
              verbs: VERBS,
            },
          ],
        },
      ],
    });
  });

  it('lists the core group alone for /api', () => {
    expect(aggregatedDiscovery(scheme, { legacy: true })).toEqual({
      kind: 'APIGroupDiscoveryList',
      apiVersion: 'apidiscovery.k8s.io/v2',
      metadata: {},
      items: [
        {
          metadata: { creationTimestamp: null },
          versions: [
            {
              version: 'v1',
              freshness: 'Current',
              resources: [
                {
                  resource: 'configmaps',
                  responseKind: { group: '', version: 'v1', kind: 'ConfigMap' },
                  scope: 'Namespaced',
                  singularResource: 'configmap',
                  verbs: VERBS,
                  shortNames: ['cm'],
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it('hashes documents for the ETag', () => {
    const doc = aggregatedDiscovery(scheme, { legacy: false });
    const etag = discoveryETag(doc);
    expect(etag).toBe(createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase());
    expect(etag).toMatch(/^[0-9A-F]{128}$/);
    expect(discoveryETag(aggregatedDiscovery(scheme, { legacy: false }))).toBe(etag);
    expect(discoveryETag(aggregatedDiscovery(new Scheme().add(Widget), { legacy: false }))).not.toBe(etag);
  });
});
