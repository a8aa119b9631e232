import type { AddressInfo } from 'node:net';
import { mapServiceResolver } from '@kapi/admission';
import { defineResource, Namespace } from '@kapi/registry';
import { GenericAPIServer, type Serving, selfSignedServingCertificate, serve } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { remoteAPIService } from '../test-support/apiservice.ts';
import { type Json, send, startChain, type TestChain } from '../test-support/chain.ts';

const Flunder = defineResource({
  group: 'wardle.example.com',
  kind: 'Flunder',
  plural: 'flunders',
  namespaced: true,
  versions: [{ name: 'v1alpha1', schema: z.object({ spec: z.object({}).optional() }) }],
});

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const NAME = 'v1alpha1.wardle.example.com';

let serving: { cert: string; key: string; ca: string };
let remote: GenericAPIServer;
let remoteServing: Serving;
let port: number;
let chain: TestChain;

const startRemote = async (): Promise<void> => {
  remote = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, Flunder] });
  await remote.start();
  remoteServing = await serve(remote.handler, { port, tls: { cert: serving.cert, key: serving.key } });
  port = (remoteServing.server.address() as AddressInfo).port;
};

beforeAll(async () => {
  serving = await selfSignedServingCertificate({ hosts: ['api.wardle.svc'] });
  port = 0;
  await startRemote();
  chain = await startChain([], new MemoryStorage(), {
    provider: { serviceResolver: mapServiceResolver({ 'wardle/api:443': `https://127.0.0.1:${port}` }) },
    // Every request is the test's admin (the proxy sends the authenticated user on).
    authentication: {
      authenticator: { authenticate: async () => ({ user: { name: 'admin', groups: ['system:masters', 'system:authenticated'] } }) },
    },
  });
});
afterAll(async () => {
  await chain.stop();
  await remoteServing.shutdown();
});

const available = async (): Promise<Json> =>
  ((await send('GET', `${chain.url}${APISERVICES}/${NAME}`)).body.status?.conditions ?? []).find((c: Json) => c.type === 'Available');
/** A change of the APIService has it checked now (the controller's own recheck comes every 30 s). */
const touch = async (value: string): Promise<void> => {
  const res = await send(
    'PATCH',
    `${chain.url}${APISERVICES}/${NAME}`,
    { metadata: { labels: { touched: value } } },
    {
      'Content-Type': 'application/merge-patch+json',
    },
  );
  expect(res.status).toBe(200);
};

describe('aggregatorProvider checks remote APIServices (post-start hook apiservice-status-remote-available-controller)', () => {
  it('Available once the remote answers; its server stopped → False with kube’s reason and message, and back → True', async () => {
    const created = await send(
      'POST',
      chain.url + APISERVICES,
      remoteAPIService(
        'wardle.example.com',
        'v1alpha1',
        { namespace: 'wardle', name: 'api' },
        { caBundle: Buffer.from(serving.ca).toString('base64') },
      ),
    );
    expect(created.status).toBe(201);
    await expect.poll(available).toMatchObject({ status: 'True', reason: 'Passed', message: 'all checks passed' });
    // Discovery of the group-version is proxied to the remote (its resource requests would need its authentication).
    const discovery = `${chain.url}/apis/wardle.example.com/v1alpha1`;
    await expect.poll(async () => (await fetch(discovery)).status).toBe(200);

    await remoteServing.shutdown();
    await remote.shutdown();
    await touch('stopped');
    const url = `https://127.0.0.1:${port}/apis/wardle.example.com/v1alpha1`;
    await expect.poll(available).toMatchObject({
      status: 'False',
      reason: 'FailedDiscoveryCheck',
      message: `failing or missing response from ${url}: Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    });
    // kube's proxy answers 503 for an APIService that is not Available.
    await expect.poll(async () => (await fetch(discovery)).status).toBe(503);

    await startRemote();
    await touch('back');
    await expect.poll(available).toMatchObject({ status: 'True', reason: 'Passed' });
    await expect.poll(async () => (await fetch(discovery)).status).toBe(200);
  });
});
