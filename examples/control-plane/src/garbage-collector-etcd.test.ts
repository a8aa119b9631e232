import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from './control-plane.ts';
import { startBackend, type TestBackend } from './test-support/backends.ts';
import { consistentReadFallbacks } from './test-support/consistent-read-fallbacks.ts';
import { startTempControlPlane, stopTempControlPlane } from './test-support/kubectl.ts';

/**
 * The garbage collector of the example control plane on a real etcd: background deletion through the server chain —
 * Widgets (served by the control plane) owning ConfigMaps, an owner in the APIExtensions server's own kind
 * (a CustomResourceDefinition) owning a Widget, and a dependent with a second live owner that only loses the reference.
 */

const T = 60_000;

describe('garbage collector on etcd', () => {
  let backend: TestBackend;
  let cp: ControlPlane;
  let tmp: string;

  beforeAll(async () => {
    backend = await startBackend('etcd');
    ({ cp, tmp } = await startTempControlPlane('kapi-gc-etcd-', { storage: backend.storage(), insecureHTTP: true }));
  }, T);
  afterAll(async () => {
    await stopTempControlPlane(cp, tmp);
    await backend?.stop();
  }, T);

  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${cp.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${cp.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: await res.json() };
  };

  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`timed out waiting until ${what}`);
  }

  const widgets = '/apis/example.kapi.dev/v1/namespaces/default/widgets';
  const cms = '/api/v1/namespaces/default/configmaps';
  const ref = (o: { apiVersion: string; kind: string; metadata: { name: string; uid: string } }) => ({
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name,
    uid: o.metadata.uid,
  });

  it('background: dependents go with their owner; one with another live owner loses only the reference', { timeout: T }, async () => {
    const w1 = await call('POST', widgets, { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: {} });
    const w2 = await call('POST', widgets, { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w2' }, spec: {} });
    expect([w1.status, w2.status]).toEqual([201, 201]);
    for (const [name, owners] of [
      ['only-w1', [ref(w1.body)]],
      ['also-w1', [ref(w1.body)]],
      ['both', [ref(w1.body), ref(w2.body)]],
    ] as const)
      expect((await call('POST', cms, { metadata: { name, ownerReferences: owners } })).status).toBe(201);

    expect((await call('DELETE', `${widgets}/w1`)).status).toBe(200);
    await until(async () => (await call('GET', `${cms}/only-w1`)).status === 404, 'only-w1 is deleted');
    await until(async () => (await call('GET', `${cms}/also-w1`)).status === 404, 'also-w1 is deleted');
    await until(async () => (await call('GET', `${cms}/both`)).body.metadata.ownerReferences?.length === 1, 'both loses w1');
    expect((await call('GET', `${cms}/both`)).body.metadata.ownerReferences.map((r: { name: string }) => r.name)).toEqual(['w2']);
  });

  it('a CustomResourceDefinition (a kind of the first server of the chain) owning a Widget of the second', { timeout: T }, async () => {
    const crd = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.gc.example.com' },
      spec: {
        group: 'gc.example.com',
        scope: 'Namespaced',
        names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    });
    expect(crd.status).toBe(201);
    const w = await call('POST', widgets, {
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Widget',
      metadata: { name: 'of-crd', ownerReferences: [{ ...ref(crd.body), apiVersion: 'apiextensions.k8s.io/v1' }] },
      spec: {},
    });
    expect(w.status).toBe(201);
    expect((await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.gc.example.com')).status).toBe(200);
    await until(async () => (await call('GET', `${widgets}/of-crd`)).status === 404, 'the widget owned by the CRD is deleted');
  });

  it('the collector reads owners without waiting out a watch cache', () => {
    expect(consistentReadFallbacks(cp.server)).toEqual({});
  });
});
