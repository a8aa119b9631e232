import { newBadRequest } from '@kapi/apimachinery';
import { ConfigMap, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { writeJSON } from '../endpoints/response.ts';
import { AUTHORIZATION_V1_RESOURCES } from '../test-support/authorization-discovery.ts';
import { testServers } from '../test-support/test-servers.ts';
import { GenericAPIServer } from './generic-api-server.ts';
import type { VirtualResource } from './virtual-resource.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

/** A namespaced create-only resource that echoes the body, plus a GET served by `handle`. */
const echoes: VirtualResource = {
  group: 'tools.kapi.dev',
  version: 'v1',
  resource: 'echoes',
  singularName: 'echo',
  kind: 'Echo',
  namespaced: true,
  verbs: ['create', 'get'],
  shortNames: ['ec'],
  create(body, { info, user, dryRun }) {
    if ((body as Json).spec?.fail) throw newBadRequest('asked to fail');
    return { ...body, status: { namespace: info.namespace, user: user.name, dryRun } };
  },
  async handle(ctx, info) {
    writeJSON(ctx, 200, JSON.stringify({ verb: info.verb, name: info.name }));
  },
};

const start = testServers();

const get = async (url: string, accept = 'application/json'): Promise<{ status: number; body: Json }> => {
  const res = await fetch(url, { headers: { accept } });
  return { status: res.status, body: await res.json() };
};

describe('virtual resources', () => {
  it('routes create to `create` (201, namespace defaulted into the body, user passed) and other verbs to `handle`', async () => {
    const { url } = await start({ virtualResources: [echoes] });
    const res = await fetch(`${url}/apis/tools.kapi.dev/v1/namespaces/default/echoes?dryRun=All`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: 'spec:\n  say: hi\n',
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({
      apiVersion: 'tools.kapi.dev/v1',
      kind: 'Echo',
      metadata: { namespace: 'default' },
      spec: { say: 'hi' },
      status: { namespace: 'default', user: 'system:anonymous', dryRun: true },
    });
    expect(await get(`${url}/apis/tools.kapi.dev/v1/namespaces/default/echoes/one`)).toEqual({
      status: 200,
      body: { verb: 'get', name: 'one' },
    });
    const failed = await fetch(`${url}/apis/tools.kapi.dev/v1/namespaces/default/echoes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ spec: { fail: true } }),
    });
    expect(failed.status).toBe(400);
    expect(((await failed.json()) as Json).message).toBe('asked to fail');
  });

  it('is listed in legacy discovery with its verbs and kind, without a storageVersionHash', async () => {
    const { url } = await start({ virtualResources: [echoes], authReviews: false });
    const groups = await get(`${url}/apis`);
    expect(groups.body.groups).toEqual([
      {
        name: 'tools.kapi.dev',
        versions: [{ groupVersion: 'tools.kapi.dev/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'tools.kapi.dev/v1', version: 'v1' },
      },
    ]);
    expect((await get(`${url}/apis/tools.kapi.dev`)).body).toMatchObject({ kind: 'APIGroup', name: 'tools.kapi.dev' });
    expect((await get(`${url}/apis/tools.kapi.dev/v1`)).body).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'tools.kapi.dev/v1',
      resources: [{ name: 'echoes', singularName: 'echo', namespaced: true, kind: 'Echo', verbs: ['create', 'get'], shortNames: ['ec'] }],
    });
  });

  it('is listed in aggregated discovery beside definitions of the same version', async () => {
    const { url } = await start({ virtualResources: [{ ...echoes, group: '', resource: 'echoes' }], authReviews: false });
    const core = await get(`${url}/api`, AGGREGATED);
    const v1 = core.body.items[0].versions[0];
    expect(v1.resources.map((r: Json) => r.resource)).toEqual(['configmaps', 'echoes', 'namespaces']);
    expect(v1.resources[1]).toEqual({
      resource: 'echoes',
      responseKind: { group: '', version: '', kind: 'Echo' },
      scope: 'Namespaced',
      singularResource: 'echo',
      verbs: ['create', 'get'],
      shortNames: ['ec'],
    });
    const legacy = await get(`${url}/api/v1`);
    expect(legacy.body.resources.map((r: Json) => r.name)).toEqual([
      'configmaps',
      'echoes',
      'namespaces',
      'namespaces/finalize',
      'namespaces/status',
    ]);
  });

  it('serves the auth reviews by default, in discovery as kube lists them', async () => {
    const { url } = await start();
    const groups = (await get(`${url}/apis`)).body.groups.map((g: Json) => [g.name, g.preferredVersion.version, g.versions.length]);
    expect(groups).toEqual([
      ['authentication.k8s.io', 'v1', 2],
      ['authorization.k8s.io', 'v1', 1],
    ]);
    expect((await get(`${url}/apis/authorization.k8s.io/v1`)).body.resources).toEqual(AUTHORIZATION_V1_RESOURCES);
    expect((await get(`${url}/apis/authentication.k8s.io/v1beta1`)).body.resources).toEqual([
      { name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] },
    ]);
    const agg = (await get(`${url}/apis`, AGGREGATED)).body;
    expect(agg.items.map((i: Json) => [i.metadata.name, i.versions.map((v: Json) => v.version)])).toEqual([
      ['authentication.k8s.io', ['v1', 'v1beta1']],
      ['authorization.k8s.io', ['v1']],
    ]);
  });

  it('authReviews: false turns them off', async () => {
    const { url } = await start({ authReviews: false });
    expect((await get(`${url}/apis`)).body.groups).toEqual([]);
    const res = await fetch(`${url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });

  it('refuses a virtual resource installed twice or over a definition', () => {
    const storage = new MemoryStorage();
    expect(() => new GenericAPIServer({ storage, resources: [], virtualResources: [echoes, echoes] })).toThrow(
      'resource echoes in tools.kapi.dev/v1 is installed twice',
    );
    expect(
      () => new GenericAPIServer({ storage, resources: [ConfigMap], virtualResources: [{ ...echoes, group: '', resource: 'configmaps' }] }),
    ).toThrow('resource configmaps in core/v1 is installed twice');
  });

  it("lists a delegate's virtual resources once and serves them through the delegating server", async () => {
    const delegate = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace], virtualResources: [echoes] });
    const { url, server } = await start({ resources: [ConfigMap], delegate });
    expect(server.virtualResources().map((v) => `${v.group}/${v.version}/${v.resource}`)).toEqual([
      'authentication.k8s.io/v1/selfsubjectreviews',
      'authentication.k8s.io/v1beta1/selfsubjectreviews',
      'authorization.k8s.io/v1/selfsubjectaccessreviews',
      'authorization.k8s.io/v1/selfsubjectrulesreviews',
      'authorization.k8s.io/v1/subjectaccessreviews',
      'authorization.k8s.io/v1/localsubjectaccessreviews',
      'tools.kapi.dev/v1/echoes',
    ]);
    expect((await get(`${url}/apis/authorization.k8s.io/v1`)).body.resources).toHaveLength(4);
    const res = await fetch(`${url}/apis/tools.kapi.dev/v1/namespaces/default/echoes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(201);
  });
});
