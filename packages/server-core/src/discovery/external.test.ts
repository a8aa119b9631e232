import { ConfigMap, defineResource, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Listening, listen } from '../filters/serve.ts';
import { GenericAPIServer } from '../server/generic-api-server.ts';
import type { ExternalDiscovery, ExternalGroupVersion, GroupVersionPriority } from './external.ts';

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1beta1' }, { name: 'v1', storage: true }],
  schema: z.object({ spec: z.object({ size: z.int() }) }),
});

/** What kube-aggregator's discovery manager gives: remote group-versions and APIService priorities, changed by the test. */
class TestExternal implements ExternalDiscovery {
  gen = 0;
  gvs: ExternalGroupVersion[] = [];
  priorities = new Map<string, GroupVersionPriority>();
  generation(): number {
    return this.gen;
  }
  groupVersions(): readonly ExternalGroupVersion[] {
    return this.gvs;
  }
  priority(group: string, version: string): GroupVersionPriority | undefined {
    return this.priorities.get(`${group}/${version}`);
  }
}

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const flunders = {
  resource: 'flunders',
  responseKind: { group: 'wardle.example.com', version: 'v1alpha1', kind: 'Flunder' },
  scope: 'Namespaced' as const,
  singularResource: 'flunder',
  verbs: ['create', 'delete', 'get', 'list', 'watch'],
};

let server: GenericAPIServer;
let http: Listening;
const external = new TestExternal();
beforeAll(async () => {
  server = new GenericAPIServer({
    storage: new MemoryStorage(),
    resources: [Namespace, ConfigMap, Widget],
    providers: [{ name: 'aggregator', discovery: external }],
  });
  await server.start();
  http = await listen(server.handler);
});
afterAll(async () => {
  await http.close();
  await server.shutdown();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;
const get = async (path: string, accept = 'application/json'): Promise<{ status: number; etag: string | null; body: Json }> => {
  const res = await fetch(http.url + path, { headers: { Accept: accept } });
  return { status: res.status, etag: res.headers.get('etag'), body: await res.json() };
};

describe('external discovery (kube-aggregator’s remote group-versions and APIService priorities)', () => {
  it('lists remote group-versions in /apis, /apis/<group> and aggregated discovery, in priority order, rebuilt on a new generation', async () => {
    const before = await get('/apis');
    const names = (body: { groups: { name: string }[] }) => body.groups.map((g) => g.name);
    expect(names(before.body)).toEqual(['authentication.k8s.io', 'authorization.k8s.io', 'example.kapi.dev']);

    external.gvs = [{ group: 'wardle.example.com', version: 'v1alpha1', resources: [flunders], freshness: 'Current' }];
    // Same generation: the cached documents are still served.
    expect((await get('/apis')).etag).toBe(before.etag);
    external.priorities.set('wardle.example.com/v1alpha1', { groupPriorityMinimum: 2000, versionPriority: 15 });
    external.priorities.set('example.kapi.dev/v1', { groupPriorityMinimum: 1000, versionPriority: 10 });
    // kube: the higher versionPriority is preferred, whatever the version's name.
    external.priorities.set('example.kapi.dev/v1beta1', { groupPriorityMinimum: 1000, versionPriority: 20 });
    external.gen++;

    const after = await get('/apis');
    expect(after.etag).not.toBe(before.etag);
    // Groups without priorities (no APIService) come last, by name.
    expect(names(after.body)).toEqual(['wardle.example.com', 'example.kapi.dev', 'authentication.k8s.io', 'authorization.k8s.io']);
    expect(after.body.groups.slice(0, 2)).toEqual([
      {
        name: 'wardle.example.com',
        versions: [{ groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' }],
        preferredVersion: { groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' },
      },
      {
        name: 'example.kapi.dev',
        versions: [
          { groupVersion: 'example.kapi.dev/v1beta1', version: 'v1beta1' },
          { groupVersion: 'example.kapi.dev/v1', version: 'v1' },
        ],
        preferredVersion: { groupVersion: 'example.kapi.dev/v1beta1', version: 'v1beta1' },
      },
    ]);
    expect((await get('/apis/wardle.example.com')).body).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'wardle.example.com',
      versions: [{ groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' }],
      preferredVersion: { groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' },
    });

    const aggregated = await get('/apis', AGGREGATED);
    expect(aggregated.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(names(after.body));
    expect(aggregated.body.items[0]).toEqual({
      metadata: { name: 'wardle.example.com', creationTimestamp: null },
      versions: [{ version: 'v1alpha1', resources: [flunders], freshness: 'Current' }],
    });
    expect(aggregated.body.items[1].versions.map((v: { version: string }) => v.version)).toEqual(['v1beta1', 'v1']);
  });

  it('a remote that could not be fetched is listed Stale with what was last fetched', async () => {
    external.gvs = [{ group: 'wardle.example.com', version: 'v1alpha1', resources: [], freshness: 'Stale' }];
    external.gen++;
    const aggregated = await get('/apis', 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    expect(aggregated.body.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    expect(aggregated.body.items[0]).toEqual({
      metadata: { name: 'wardle.example.com', creationTimestamp: null },
      versions: [{ version: 'v1alpha1', resources: [], freshness: 'Stale' }],
    });
    // Gone: no longer listed.
    external.gvs = [];
    external.gen++;
    expect((await get('/apis/wardle.example.com')).status).toBe(404);
  });
});
