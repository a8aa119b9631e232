import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { mapServiceResolver } from '@kapi/admission';
import { FakeClock } from '@kapi/apimachinery';
import type { Store } from '@kapi/registry';
import { clientCertificateAuthority, issueClientCertificate, selfSignedServingCertificate } from '@kapi/server-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIService } from '../apiservice/types.ts';
import { RemoteTransport } from '../remote/remote-transport.ts';
import { remoteAPIService } from '../test-support/apiservice.ts';
import { type Json, send, startChain, type TestChain } from '../test-support/chain.ts';
import { RemoteAvailabilityController } from './remote-availability-controller.ts';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

/** A remote aggregated server's discovery: wardle.example.com/v1alpha1 answers, other paths 403. */
interface Remote {
  server: Server;
  port: number;
  /** Who asked: the client certificate's CN and the front-proxy headers. */
  seen: { cn: string | undefined; user: string | undefined; group: string | undefined }[];
}

let c: TestChain;
let dir: string;
let remote: Remote;
let serving: { cert: string; key: string; ca: string };
let clock: FakeClock;
let controller: RemoteAvailabilityController;
let transport: RemoteTransport;

async function listenRemote(port = 0): Promise<Remote> {
  const seen: Remote['seen'] = [];
  const server = createServer({ cert: serving.cert, key: serving.key, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    seen.push({
      cn: peer?.subject?.CN as string | undefined,
      user: req.headers['x-remote-user'] as string | undefined,
      group: req.headers['x-remote-group'] as string | undefined,
    });
    if (req.url === '/apis/wardle.example.com/v1alpha1') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'wardle.example.com/v1alpha1', resources: [] }));
      return;
    }
    res.statusCode = 403;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

const closeRemote = (r: Remote): Promise<void> =>
  new Promise((resolve) => {
    r.server.close(() => resolve());
    r.server.closeAllConnections();
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kapi-remote-availability-'));
  serving = await selfSignedServingCertificate({ hosts: ['api.wardle.svc'] });
  const ca = await clientCertificateAuthority({ dir });
  const client = await issueClientCertificate(ca, { user: 'front-proxy-client' });
  remote = await listenRemote();
  c = await startChain();
  transport = new RemoteTransport({
    serviceResolver: mapServiceResolver({ 'wardle/api:443': `https://127.0.0.1:${remote.port}` }),
    proxyClientCert: client.cert,
    proxyClientKey: client.key,
  });
  clock = new FakeClock(Date.UTC(2026, 0, 1, 12));
  controller = new RemoteAvailabilityController({
    apiServices: c.aggregator.store(`apiservices.apiregistration.k8s.io`) as unknown as Store<APIService>,
    transport,
    clock,
  });
  await controller.start();
});
afterAll(async () => {
  controller.stop();
  transport.close();
  await closeRemote(remote);
  await c.stop();
  await rm(dir, { recursive: true, force: true });
});

const available = async (name: string): Promise<Json> =>
  ((await send('GET', `${c.url}${APISERVICES}/${name}`)).body.status?.conditions ?? []).find((x: Json) => x.type === 'Available');

const create = async (group: string, service: { namespace: string; name: string; port?: number }): Promise<void> => {
  const created = await send('POST', c.url + APISERVICES, remoteAPIService(group, 'v1alpha1', service, { insecureSkipTLSVerify: true }));
  expect(created.status).toBe(201);
};

describe('remote APIServices (the remote half of kube-aggregator’s availability controller)', () => {
  it('passes when the remote serves /apis/<group>/<version>; asks as system:kube-aggregator with the proxy client certificate', async () => {
    await create('wardle.example.com', { namespace: 'wardle', name: 'api' });
    await expect
      .poll(() => available('v1alpha1.wardle.example.com'))
      .toEqual({
        type: 'Available',
        status: 'True',
        lastTransitionTime: '2026-01-01T12:00:00Z',
        reason: 'Passed',
        message: 'all checks passed',
      });
    expect(remote.seen[0]).toEqual({ cn: 'front-proxy-client', user: 'system:kube-aggregator', group: 'system:masters' });
  });

  it('a stopped remote is FailedDiscoveryCheck with Go’s error; back again it is Passed; lastTransitionTime moves only with the status', async () => {
    const name = 'v1alpha1.wardle.example.com';
    // The resync checks again (five GETs, as kube); nothing changed, so neither does the condition.
    const asked = remote.seen.length;
    clock.advance(30_000);
    await expect.poll(() => remote.seen.length).toBeGreaterThanOrEqual(asked + 5);
    await closeRemote(remote);
    const url = `https://127.0.0.1:${remote.port}/apis/wardle.example.com/v1alpha1`;
    clock.advance(30_000);
    await expect
      .poll(() => available(name))
      .toEqual({
        type: 'Available',
        status: 'False',
        lastTransitionTime: '2026-01-01T12:01:00Z',
        reason: 'FailedDiscoveryCheck',
        message: `failing or missing response from ${url}: Get "${url}": dial tcp 127.0.0.1:${remote.port}: connect: connection refused`,
      });
    remote = await listenRemote(remote.port);
    // The failed check is retried with kube's backoff (at most 30 s).
    clock.advance(30_000);
    await expect
      .poll(() => available(name))
      .toMatchObject({ status: 'True', reason: 'Passed', lastTransitionTime: '2026-01-01T12:01:30Z' });
  });

  it('a remote answering outside 2xx fails with kube’s "bad status" message', async () => {
    await create('other.example.com', { namespace: 'wardle', name: 'api' });
    const url = `https://127.0.0.1:${remote.port}/apis/other.example.com/v1alpha1`;
    await expect
      .poll(() => available('v1alpha1.other.example.com'))
      .toMatchObject({
        status: 'False',
        reason: 'FailedDiscoveryCheck',
        message: `failing or missing response from ${url}: bad status from ${url}: 403`,
      });
  });

  it('a Service the resolver does not know is ServiceNotFound', async () => {
    await create('missing.example.com', { namespace: 'wardle', name: 'missing' });
    await expect
      .poll(() => available('v1alpha1.missing.example.com'))
      .toMatchObject({
        status: 'False',
        reason: 'ServiceNotFound',
        message: 'service/missing in "wardle" is not present',
      });
  });
});
