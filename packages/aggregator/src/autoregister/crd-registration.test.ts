import { APIExtensions } from '@kapi/apiextensions';
import { ConfigMap, Namespace } from '@kapi/registry';
import { GenericAPIServer, listen } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { aggregatorProvider } from '../aggregator-provider.ts';
import { type Json, send } from '../test-support/chain.ts';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** kube's chain: the aggregator wrapping the APIExtensions server, wrapping the control plane. */
async function startKubeChain(): Promise<string> {
  const storage = new MemoryStorage();
  const controlPlane = new GenericAPIServer({ storage, resources: [Namespace, ConfigMap] });
  const apiextensions = new GenericAPIServer({
    storage,
    closeStorage: false,
    resources: [],
    providers: [new APIExtensions({ onError: () => {} }).provider()],
    delegate: controlPlane,
  });
  const aggregator = new GenericAPIServer({
    storage,
    closeStorage: false,
    resources: [],
    providers: [aggregatorProvider()],
    delegate: apiextensions,
  });
  await aggregator.start();
  const http = await listen(aggregator.handler);
  stops.push(() => http.close().then(() => aggregator.shutdown()));
  return http.url;
}

function crd(versions: string[]): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' },
      versions: versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        schema: {
          openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } } },
        },
      })),
    },
  };
}

describe('a CustomResourceDefinition’s group-versions (kube’s crdregistration controller)', () => {
  it('get continuously managed local APIServices at 1000/100 within a second, gone when the CRD is', async () => {
    const url = await startKubeChain();
    // The chain's own groups, apiextensions.k8s.io at kube's priority.
    await expect.poll(async () => (await send('GET', `${url}${APISERVICES}/v1.apiextensions.k8s.io`)).status).toBe(200);
    expect((await send('GET', `${url}${APISERVICES}/v1.apiextensions.k8s.io`)).body.spec).toMatchObject({
      groupPriorityMinimum: 16700,
      versionPriority: 15,
    });

    expect((await send('POST', url + CRDS, crd(['v1', 'v1beta1']))).status).toBe(201);
    for (const version of ['v1', 'v1beta1']) {
      const name = `${version}.stable.example.com`;
      await expect.poll(async () => (await send('GET', `${url}${APISERVICES}/${name}`)).status, { timeout: 1000, interval: 10 }).toBe(200);
      const got = (await send('GET', `${url}${APISERVICES}/${name}`)).body;
      expect(got.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
      expect(got.spec).toEqual({ group: 'stable.example.com', version, groupPriorityMinimum: 1000, versionPriority: 100 });
      expect(got.status.conditions[0]).toMatchObject({ type: 'Available', status: 'True', reason: 'Local' });
    }

    expect((await send('DELETE', `${url}${CRDS}/crontabs.stable.example.com`)).status).toBe(200);
    for (const version of ['v1', 'v1beta1'])
      await expect
        .poll(async () => (await send('GET', `${url}${APISERVICES}/${version}.stable.example.com`)).status, { timeout: 2000, interval: 10 })
        .toBe(404);
  });
});
