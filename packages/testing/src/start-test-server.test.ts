import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Clock, type FakeClock, realClock } from '@kapi/apimachinery';
import { RoleResource } from '@kapi/authz';
import { MemoryStorage } from '@kapi/storage';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { internalError, tooManyRequests } from './faults/fault-status.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './start-test-server.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

const started: TestServer<Clock>[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

async function start<C extends Clock = FakeClock>(options?: TestServerOptions<C>): Promise<TestServer<C>> {
  const s = await startTestServer<C>(options);
  started.push(s);
  return s;
}

async function send(
  s: TestServer<Clock>,
  method: string,
  path: string,
  body?: unknown,
  token = s.token,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const widgetCRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
        },
      },
    ],
  },
};

describe('startTestServer', () => {
  it('serves Namespace (with kube default namespaces) and the built-in kinds on a loopback port, without credentials', async () => {
    const s = await start();
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const namespaces = await send(s, 'GET', '/api/v1/namespaces');
    expect(namespaces.body.items.map((n: Json) => n.metadata.name)).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    const discovery = await send(s, 'GET', '/api/v1');
    const kinds = discovery.body.resources.map((r: Json) => r.name);
    for (const plural of ['namespaces', 'configmaps', 'secrets', 'serviceaccounts', 'events']) expect(kinds).toContain(plural);
    expect((await send(s, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).status).toBe(200);
    expect((await send(s, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).status).toBe(200);
    expect((await send(s, 'GET', '/apis/events.k8s.io/v1/events')).status).toBe(200);
  });

  it('runs the garbage collector: deleting an owner deletes its dependents (background), unless turned off', async () => {
    for (const garbageCollector of [true, false]) {
      const s = await start({ garbageCollector });
      const owner = await send(s, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'owner' } });
      const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.body.metadata.uid }];
      await send(s, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'dependent', ownerReferences } });
      expect((await send(s, 'DELETE', '/api/v1/namespaces/default/configmaps/owner')).status).toBe(200);
      if (garbageCollector) {
        while ((await send(s, 'GET', '/api/v1/namespaces/default/secrets/dependent')).status !== 404)
          await new Promise((r) => setTimeout(r, 2));
      } else {
        // Nothing else would delete it: a request through the server after the delete still finds it.
        await send(s, 'GET', '/api/v1/namespaces/default/configmaps');
        expect((await send(s, 'GET', '/api/v1/namespaces/default/secrets/dependent')).status).toBe(200);
      }
    }
  });

  it('stamps objects with the FakeClock time, and clock.advance ends a watch at its timeoutSeconds', async () => {
    const s = await start();
    const created = await send(s, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' } });
    expect(created.body.metadata.creationTimestamp).toBe(new Date(s.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z'));
    const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=30`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(JSON.parse(first.split('\n')[0] as string).type).toBe('ADDED');
    s.clock.advance(30_000);
    for (;;) if ((await reader.read()).done) break;
  });

  it('takes another clock, e.g. the real one', async () => {
    const s = await start({ clock: realClock });
    expect(s.clock).toBe(realClock);
    const created = await send(s, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' } });
    expect(Math.abs(Date.parse(created.body.metadata.creationTimestamp) - Date.now())).toBeLessThan(60_000);
  });

  it('finishes deleting a namespace without the clock being moved', async () => {
    const s = await start();
    await send(s, 'POST', '/api/v1/namespaces', { metadata: { name: 'gone' } });
    await send(s, 'POST', '/api/v1/namespaces/gone/configmaps', { metadata: { name: 'c' } });
    expect((await send(s, 'DELETE', '/api/v1/namespaces/gone')).status).toBe(200);
    for (;;) {
      if ((await send(s, 'GET', '/api/v1/namespaces/gone')).status === 404) break;
      await new Promise((r) => setTimeout(r, 2));
    }
  });

  it('serves the kinds of CRD manifests given as objects or YAML before it resolves', async () => {
    const yaml = `# a comment
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: sprockets.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {plural: sprockets, kind: Sprocket}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
`;
    const s = await start({ crds: [widgetCRD, yaml] });
    const gadget = await send(s, 'POST', '/apis/example.com/v1/namespaces/default/gadgets', {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g' },
      spec: { size: 3, unknown: 1 },
    });
    expect(gadget.status).toBe(201);
    expect(gadget.body.spec).toEqual({ size: 3 });
    expect((await send(s, 'GET', '/apis/example.com/v1/sprockets')).status).toBe(200);
  });

  it('refuses an invalid CRD with the API error and leaves nothing running', async () => {
    const bad = { ...widgetCRD, metadata: { name: 'wrong.example.com' } };
    await expect(startTestServer({ crds: [bad] })).rejects.toMatchObject({ code: 422 });
  });

  it("with authorization 'RBAC': the admin may do anything, a user what RBAC grants, anonymous nothing", async () => {
    const s = await start({ authorization: 'RBAC', users: { 'alice-token': { name: 'alice' } } });
    expect((await send(s, 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    expect((await send(s, 'GET', '/api/v1/namespaces/default/configmaps', undefined, 'alice-token')).status).toBe(403);
    expect((await send(s, 'GET', '/api/v1/namespaces/default/configmaps', undefined, '')).status).toBe(403);
    expect((await send(s, 'GET', '/api/v1/namespaces', undefined, 'wrong')).status).toBe(401);
    const binding = await send(s, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'alice-view' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    expect(binding.status).toBe(201);
    for (;;) {
      if ((await send(s, 'GET', '/api/v1/namespaces/default/configmaps', undefined, 'alice-token')).status === 200) break;
      await new Promise((r) => setTimeout(r, 2));
    }
  });

  it('gives a client-node KubeConfig that works over plain HTTP and over TLS with its self-signed CA', async () => {
    for (const tls of [false, true]) {
      const s = await start({ tls, authorization: 'RBAC' });
      expect(s.url.startsWith(tls ? 'https://' : 'http://')).toBe(true);
      const core = s.kubeConfig.makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm' }, data: { k: 'v' } } });
      const list = await core.listNamespacedConfigMap({ namespace: 'default' });
      expect(list.items.map((c) => c.data)).toEqual([{ k: 'v' }]);
    }
  });

  it('writes a kubeconfig file (the admin, read by client-node) when asked, that stop() removes; stop() is idempotent and closes the port', async () => {
    const s = await startTestServer({ authorization: 'RBAC' });
    expect(existsSync(s.kubeconfigPath)).toBe(true);
    const fromFile = new KubeConfig();
    fromFile.loadFromFile(s.kubeconfigPath);
    expect(fromFile.getCurrentUser()?.token).toBe(s.token);
    const namespaces = await fromFile.makeApiClient(CoreV1Api).listNamespace();
    expect(namespaces.items.length).toBe(4);
    await Promise.all([s.stop(), s.stop()]);
    await s.stop();
    expect(existsSync(dirname(s.kubeconfigPath))).toBe(false);
    await expect(fetch(`${s.url}/readyz`)).rejects.toThrow();
    const unread = await startTestServer();
    await unread.stop();
    expect(() => unread.kubeconfigPath).toThrow('stopped');
  });

  it('serves the kinds of `resources` over a given storage, which outlives the server with closeStorage false', async () => {
    const storage = new MemoryStorage();
    const first = await startTestServer({ storage, closeStorage: false, resources: [RoleResource] });
    const role = { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
    expect((await send(first, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', role)).status).toBe(201);
    await first.stop();
    const second = await start({ storage });
    expect(second.storage).toBe(storage);
    expect((await send(second, 'GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/r')).status).toBe(404);
    const third = await start({ storage, resources: [RoleResource] });
    expect((await send(third, 'GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/r')).body.rules).toEqual(role.rules);
  });

  it('refuses an unknown authorization mode', async () => {
    await expect(startTestServer({ authorization: 'ABAC' as 'RBAC' })).rejects.toThrow(/authorization must be 'RBAC'/);
  });
});

describe('startTestServer faults', () => {
  it('acts on the requests a test chooses, through the chain (CRDs included), and clear() ends them', async () => {
    const kapi = await startTestServer();
    try {
      kapi.faults.failNext(1, tooManyRequests(3), { verb: 'create', resource: 'configmaps' });
      const post = () =>
        fetch(`${kapi.url}/api/v1/namespaces/default/configmaps`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ metadata: { name: 'c' } }),
        });
      const refused = await post();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('3');
      expect((await post()).status).toBe(201);
      kapi.faults.failNext(5, internalError('boom'), { resource: 'customresourcedefinitions.apiextensions.k8s.io' });
      expect((await fetch(`${kapi.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`)).status).toBe(500);
      kapi.faults.clear();
      expect((await fetch(`${kapi.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`)).status).toBe(200);
    } finally {
      await kapi.stop();
    }
  });

  it("compact() cuts every watch cache's window in the chain: built-in kinds' and CRDs'", async () => {
    const kapi = await start({ crds: [widgetCRD] });
    const cmPath = '/api/v1/namespaces/default/configmaps';
    const gadgets = '/apis/example.com/v1/namespaces/default/gadgets';
    const c1 = await send(kapi, 'POST', cmPath, { metadata: { name: 'c1' } });
    const g1 = await send(kapi, 'POST', gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' } });
    await send(kapi, 'POST', cmPath, { metadata: { name: 'c2' } });
    await send(kapi, 'POST', gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g2' } });
    const revision = await kapi.faults.compact();
    for (const [path, old] of [
      [cmPath, c1.body.metadata.resourceVersion],
      [gadgets, g1.body.metadata.resourceVersion],
    ]) {
      const res = await fetch(`${kapi.url}${path}?watch=1&resourceVersion=${old}`);
      expect(JSON.parse(await res.text())).toMatchObject({
        type: 'ERROR',
        object: { code: 410, reason: 'Expired', message: `too old resource version: ${old} (${revision})` },
      });
      const list = await send(kapi, 'GET', `${path}?resourceVersion=${old}&resourceVersionMatch=NotOlderThan`);
      expect(list.status).toBe(200);
      expect(list.body.items).toHaveLength(2);
    }
  });
});
