import { ConfigMap, defineResource, Namespace } from '@kapi/registry';
import { GenericAPIServer, listen } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aggregatorProvider } from '../aggregator-provider.ts';
import { type Json, send, startChain, type TestChain } from '../test-support/chain.ts';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

const started: TestChain[] = [];
afterEach(async () => {
  for (const c of started.splice(0)) await c.stop();
});

async function chain(...args: Parameters<typeof startChain>): Promise<TestChain> {
  const c = await startChain(...args);
  started.push(c);
  return c;
}

const widgets = (group: string, customResource = false) =>
  defineResource({
    group,
    kind: 'Widget',
    plural: 'widgets',
    namespaced: true,
    versions: [{ name: 'v1', schema: z.object({ spec: z.object({ color: z.string().optional() }).optional() }) }],
    ...(customResource ? { strategicMergePatch: false } : {}),
  });

async function apiServices(c: TestChain): Promise<Map<string, Json>> {
  const res = await send('GET', c.url + APISERVICES);
  expect(res.status).toBe(200);
  return new Map((res.body.items as Json[]).map((s) => [s.metadata.name, s]));
}

async function apiService(c: TestChain, name: string): Promise<{ status: number; body: Json }> {
  return send('GET', `${c.url}${APISERVICES}/${name}`);
}

describe('autoregister: a local APIService for every group-version the chain serves', () => {
  it('registers the served group-versions at start with kube priorities, onstart, and Available (Local)', async () => {
    const c = await chain([widgets('example.com')]);
    await expect.poll(async () => (await apiServices(c)).has('v1.example.com')).toBe(true);
    const all = await apiServices(c);
    const core = all.get('v1.');
    expect(core.spec).toEqual({ group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    expect(core.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    expect(core.status.conditions).toEqual([
      expect.objectContaining({ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' }),
    ]);
    // The review kinds every GenericAPIServer serves (kubectl auth whoami / can-i).
    expect(all.get('v1.authentication.k8s.io').spec).toMatchObject({ groupPriorityMinimum: 17700, versionPriority: 15 });
    expect(all.get('v1.authorization.k8s.io').spec).toMatchObject({ groupPriorityMinimum: 17600, versionPriority: 15 });
    // A group kube does not know: a CRD's priority.
    expect(all.get('v1.example.com').spec).toEqual({
      group: 'example.com',
      version: 'v1',
      groupPriorityMinimum: 1000,
      versionPriority: 100,
    });
    expect(all.get('v1.example.com').metadata.labels['kube-aggregator.kubernetes.io/automanaged']).toBe('onstart');
    expect(all.has('v1.apiregistration.k8s.io')).toBe(true);
    for (const s of all.values()) expect(s.spec.service).toBeUndefined();
  });

  it('labels the group-version of a kind served as a custom resource `true`, as kube does for CRDs', async () => {
    const c = await chain([widgets('crd.example.com', true)]);
    await expect.poll(async () => (await apiService(c, 'v1.crd.example.com')).status).toBe(200);
    const got = await apiService(c, 'v1.crd.example.com');
    expect(got.body.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
  });

  it('registers a kind added at run time within a second, and deletes its APIService when it is removed', async () => {
    const c = await chain();
    const def = widgets('runtime.example.com');
    await c.controlPlane.addResource(def);
    await expect.poll(async () => (await apiService(c, 'v1.runtime.example.com')).status, { timeout: 1000, interval: 10 }).toBe(200);
    const got = await apiService(c, 'v1.runtime.example.com');
    expect(got.body.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    expect(got.body.spec).toEqual({ group: 'runtime.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });

    await c.controlPlane.removeResource(def);
    await expect.poll(async () => (await apiService(c, 'v1.runtime.example.com')).status, { timeout: 1000, interval: 10 }).toBe(404);
    // The others stay.
    expect((await apiService(c, 'v1.')).status).toBe(200);
  });

  it('puts back the spec of a continuously managed APIService, and leaves an APIService without its label alone', async () => {
    const c = await chain([widgets('crd.example.com', true)]);
    await expect.poll(async () => (await apiService(c, 'v1.crd.example.com')).status).toBe(200);
    const current = (await apiService(c, 'v1.crd.example.com')).body;
    const changed = await send('PUT', `${c.url}${APISERVICES}/v1.crd.example.com`, {
      ...current,
      spec: { ...current.spec, versionPriority: 7 },
    });
    expect(changed.status).toBe(200);
    await expect.poll(async () => (await apiService(c, 'v1.crd.example.com')).body.spec.versionPriority).toBe(100);

    // Someone's own APIService for a group the chain does not serve: not the controller's to delete.
    const own = await send('POST', c.url + APISERVICES, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.mine.example.com' },
      spec: { group: 'mine.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 },
    });
    expect(own.status).toBe(201);
    // A run-time change makes the controller look at the names again; the unlabelled one stays.
    const def = widgets('later.example.com');
    await c.controlPlane.addResource(def);
    await expect.poll(async () => (await apiService(c, 'v1.later.example.com')).status).toBe(200);
    expect((await apiService(c, 'v1.mine.example.com')).status).toBe(200);
  });
});

describe('aggregatorProvider in a delegate', () => {
  it('registers the group-versions of the server named by servedBy (the chain’s first), kinds added there included', async () => {
    const storage = new MemoryStorage();
    let first: GenericAPIServer | undefined;
    const innermost = new GenericAPIServer({
      storage,
      closeStorage: false,
      resources: [],
      providers: [aggregatorProvider({ servedBy: () => first as GenericAPIServer })],
    });
    const controlPlane = new GenericAPIServer({ storage, resources: [Namespace, ConfigMap], delegate: innermost });
    first = new GenericAPIServer({ storage, closeStorage: false, resources: [widgets('first.example.com')], delegate: controlPlane });
    await first.start();
    const http = await listen(first.handler);
    try {
      const get = async (name: string) => (await fetch(`${http.url}${APISERVICES}/${name}`)).status;
      await expect.poll(() => get('v1.first.example.com')).toBe(200);
      expect(await get('v1.')).toBe(200);
      await first.addResource(widgets('added.example.com'));
      await expect.poll(() => get('v1.added.example.com'), { timeout: 1000, interval: 10 }).toBe(200);
    } finally {
      await http.close();
      await first.shutdown();
    }
  });
});
