import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { endpointsServiceResolver } from '@kapi/admission';
import { FakeClock, type KubeObject } from '@kapi/apimachinery';
import { defineResource, type Store } from '@kapi/registry';
import { selfSignedServingCertificate } from '@kapi/server-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { APIService } from '../apiservice/types.ts';
import { RemoteTransport } from '../remote/remote-transport.ts';
import { remoteAPIService } from '../test-support/apiservice.ts';
import { type Json, send, startChain, type TestChain } from '../test-support/chain.ts';
import { RemoteAvailabilityController } from './remote-availability-controller.ts';

// core/v1 Service and Endpoints as far as the resolver reads them (a control plane's own definitions would do).
const Service = defineResource({
  group: '',
  kind: 'Service',
  plural: 'services',
  namespaced: true,
  versions: [{ name: 'v1', schema: z.object({ spec: z.looseObject({}).optional() }) }],
});
const Endpoints = defineResource({
  group: '',
  kind: 'Endpoints',
  plural: 'endpoints',
  singular: 'endpoints',
  namespaced: true,
  versions: [{ name: 'v1', schema: z.object({ subsets: z.array(z.looseObject({})).optional() }) }],
});

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const NAME = 'v1alpha1.wardle.example.com';

let c: TestChain;
let remote: Server;
let controller: RemoteAvailabilityController;
let transport: RemoteTransport;
/** What the resolver reads: set by the test before each write, so a check started by the write's event sees it. */
const objects = new Map<string, KubeObject>();

beforeAll(async () => {
  const serving = await selfSignedServingCertificate({ hosts: ['api.wardle.svc'] });
  remote = createServer({ cert: serving.cert, key: serving.key }, (_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  c = await startChain([Service, Endpoints]);
  transport = new RemoteTransport({
    serviceResolver: endpointsServiceResolver({
      getService: (ns, name) => objects.get(`services/${ns}/${name}`),
      getEndpoints: (ns, name) => objects.get(`endpoints/${ns}/${name}`),
    }),
  });
  controller = new RemoteAvailabilityController({
    apiServices: c.aggregator.store(`apiservices.apiregistration.k8s.io`) as unknown as Store<APIService>,
    transport,
    // A clock that never moves: no recheck comes from it, only from the events.
    clock: new FakeClock(),
    services: c.aggregator.store('services'),
    endpoints: c.aggregator.store('endpoints'),
  });
  await controller.start();
});
afterAll(async () => {
  controller.stop();
  transport.close();
  remote.closeAllConnections();
  await new Promise((resolve) => remote.close(resolve));
  await c.stop();
});

const available = async (): Promise<Json> =>
  ((await send('GET', `${c.url}${APISERVICES}/${NAME}`)).body.status?.conditions ?? []).find((x: Json) => x.type === 'Available');
const create = async (path: string, obj: KubeObject): Promise<void> => {
  objects.set(`${path}/${obj.metadata.namespace}/${obj.metadata.name}`, obj);
  expect((await send('POST', `${c.url}/api/v1/namespaces/${obj.metadata.namespace}/${path}`, obj)).status).toBe(201);
};

describe('a change of a Service or its Endpoints has the APIServices naming it checked again (kube’s service handlers)', () => {
  it('ServiceNotFound → EndpointsNotFound once the Service exists → Passed once its Endpoints do', async () => {
    expect(
      (await send('POST', `${c.url}/api/v1/namespaces`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wardle' } })).status,
    ).toBe(201);
    const created = await send(
      'POST',
      c.url + APISERVICES,
      remoteAPIService('wardle.example.com', 'v1alpha1', { namespace: 'wardle', name: 'api' }, { insecureSkipTLSVerify: true }),
    );
    expect(created.status).toBe(201);
    await expect
      .poll(available)
      .toMatchObject({ status: 'False', reason: 'ServiceNotFound', message: 'service/api in "wardle" is not present' });

    await create('services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'wardle', name: 'api' },
      spec: { ports: [{ name: 'https', port: 443 }] },
    });
    await expect
      .poll(available)
      .toMatchObject({ status: 'False', reason: 'EndpointsNotFound', message: 'cannot find endpoints for service/api in "wardle"' });

    await create('endpoints', {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { namespace: 'wardle', name: 'api' },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: (remote.address() as AddressInfo).port }] }],
    });
    await expect.poll(available).toMatchObject({ status: 'True', reason: 'Passed', message: 'all checks passed' });
  });
});
