import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mapServiceResolver } from '@kapi/admission';
import { defineResource, Namespace } from '@kapi/registry';
import { GenericAPIServer, type Serving, selfSignedServingCertificate, serve } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { kubectlBinaries, writePlainKubeconfig } from '../../../../scripts/kubectl-binaries.ts';
import { callWith } from '../../../server-core/src/test-support/https-json.ts';
import { remoteAPIService } from '../test-support/apiservice.ts';
import { type Json, send, startChain, type TestChain } from '../test-support/chain.ts';

const execFileAsync = promisify(execFile);

// sample-apiserver's kinds, served by a second server the aggregator reaches over TLS.
const Flunder = defineResource({
  group: 'wardle.example.com',
  kind: 'Flunder',
  plural: 'flunders',
  namespaced: true,
  versions: [{ name: 'v1alpha1', schema: z.object({ spec: z.object({ reference: z.string().optional() }).optional() }) }],
});
const Fischer = defineResource({
  group: 'wardle.example.com',
  kind: 'Fischer',
  plural: 'fischers',
  namespaced: false,
  versions: [{ name: 'v1alpha1', schema: z.object({ disallowedFlunders: z.array(z.string()).optional() }) }],
});

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

let remote: GenericAPIServer;
let remoteServing: Serving;
let chain: TestChain;
let caBundle: string;
let tmp: string;
let legacyRemote: Server;
let legacyPort: number;

/** An aggregated server of before aggregated discovery: /apis/<g>/<v> only (its /apis is a plain APIGroupList). */
const LEGACY_RESOURCES = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'legacy.example.com/v1beta1',
  resources: [
    { name: 'gizmos', singularName: 'gizmo', namespaced: true, kind: 'Gizmo', verbs: ['get', 'list'], shortNames: ['gz'] },
    { name: 'gizmos/status', singularName: '', namespaced: true, kind: 'Gizmo', verbs: ['get', 'update'] },
  ],
};

beforeAll(async () => {
  const serving = await selfSignedServingCertificate({ hosts: ['api.wardle.svc', 'api.legacy.svc'] });
  caBundle = Buffer.from(serving.ca).toString('base64');
  legacyRemote = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/apis/legacy.example.com/v1beta1') return res.end(JSON.stringify(LEGACY_RESOURCES));
    if (req.url === '/apis') return res.end(JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => legacyRemote.listen(0, '127.0.0.1', resolve));
  legacyPort = (legacyRemote.address() as AddressInfo).port;
  remote = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, Flunder, Fischer] });
  await remote.start();
  remoteServing = await serve(remote.handler, { tls: { cert: serving.cert, key: serving.key } });

  chain = await startChain([], new MemoryStorage(), {
    provider: {
      serviceResolver: mapServiceResolver({ 'wardle/api:443': remoteServing.url, 'legacy/api:443': `https://127.0.0.1:${legacyPort}` }),
    },
  });
  tmp = await mkdtemp(join(tmpdir(), 'kapi-remote-discovery-'));
});
afterAll(async () => {
  await chain.stop();
  await remoteServing.shutdown();
  legacyRemote.closeAllConnections();
  await new Promise((resolve) => legacyRemote.close(resolve));
  await rm(tmp, { recursive: true, force: true });
});

const get = async (path: string, accept = 'application/json'): Promise<Json> =>
  (await send('GET', chain.url + path, undefined, { Accept: accept })).body;
const groupNames = async (): Promise<string[]> => (await get('/apis')).groups.map((g: Json) => g.name);

describe('remote APIServices in the aggregator’s discovery (kube’s discovery manager)', () => {
  it('an APIService created lists its group in discovery within a second, with the remote’s resources, in priority order', async () => {
    const created = await send(
      'POST',
      chain.url + APISERVICES,
      // Between authorization.k8s.io (kube's 17600) and rbac.authorization.k8s.io (17000).
      remoteAPIService('wardle.example.com', 'v1alpha1', { namespace: 'wardle', name: 'api' }, { groupPriorityMinimum: 17500, caBundle }),
    );
    expect(created.status).toBe(201);
    // expect.poll's default timeout is one second.
    await expect.poll(groupNames).toContain('wardle.example.com');
    expect(await get('/apis/wardle.example.com')).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'wardle.example.com',
      versions: [{ groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' }],
      preferredVersion: { groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' },
    });

    // Once Available its documents are fetched (aggregated discovery from the remote's /apis).
    const wardle = async (): Promise<Json> =>
      (await get('/apis', AGGREGATED)).items.find((i: Json) => i.metadata.name === 'wardle.example.com');
    await expect.poll(wardle, { timeout: 5000 }).toMatchObject({ versions: [{ version: 'v1alpha1', freshness: 'Current' }] });
    const remoteDoc = (
      await callWith(Buffer.from(caBundle, 'base64').toString(), remoteServing, 'GET', '/apis', { headers: { accept: AGGREGATED } })
    ).body;
    expect(await wardle()).toEqual(remoteDoc.items.find((i: Json) => i.metadata.name === 'wardle.example.com'));
    expect((await wardle()).versions[0].resources.map((r: Json) => r.resource)).toEqual(['fischers', 'flunders']);

    // kube's order: groupPriorityMinimum highest first (kube's table for the built-in groups), then names.
    const names = await groupNames();
    expect(names).toEqual(['apiregistration.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'wardle.example.com']);
    expect((await get('/apis', AGGREGATED)).items.map((i: Json) => i.metadata.name)).toEqual(names);
  });

  it('kubectl api-resources lists the remote kinds from the aggregator’s aggregated discovery', async () => {
    const kubeconfig = join(tmp, 'kubeconfig');
    await writePlainKubeconfig(kubeconfig, chain.url);
    for (const bin of kubectlBinaries(['kubectl'])) {
      const { stdout } = await execFileAsync(bin, ['--kubeconfig', kubeconfig, 'api-resources', '--api-group=wardle.example.com'], {
        env: { ...process.env, HOME: tmp },
      });
      expect(stdout.split('\n').map((l) => l.trim().split(/\s+/))).toEqual([
        ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'],
        ['fischers', 'wardle.example.com/v1alpha1', 'false', 'Fischer'],
        ['flunders', 'wardle.example.com/v1alpha1', 'true', 'Flunder'],
        [''],
      ]);
    }
  });

  it('a deleted APIService leaves discovery', async () => {
    expect((await send('DELETE', `${chain.url}${APISERVICES}/v1alpha1.wardle.example.com`)).status).toBe(200);
    await expect.poll(groupNames).not.toContain('wardle.example.com');
    expect((await send('GET', `${chain.url}/apis/wardle.example.com`)).status).toBe(404);
  });

  it('a remote without aggregated discovery: its /apis/<g>/<v> converted as kube does; unreachable, it is Stale with what was fetched', async () => {
    const name = 'v1beta1.legacy.example.com';
    const created = await send(
      'POST',
      chain.url + APISERVICES,
      remoteAPIService('legacy.example.com', 'v1beta1', { namespace: 'legacy', name: 'api' }, { caBundle }),
    );
    expect(created.status).toBe(201);
    const legacy = async (): Promise<Json> =>
      (await get('/apis', AGGREGATED)).items.find((i: Json) => i.metadata.name === 'legacy.example.com');
    const resources = [
      {
        resource: 'gizmos',
        responseKind: { group: '', version: '', kind: 'Gizmo' },
        scope: 'Namespaced',
        singularResource: 'gizmo',
        verbs: ['get', 'list'],
        shortNames: ['gz'],
        subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'Gizmo' }, verbs: ['get', 'update'] }],
      },
    ];
    await expect.poll(legacy, { timeout: 5000 }).toEqual({
      metadata: { name: 'legacy.example.com', creationTimestamp: null },
      versions: [{ version: 'v1beta1', resources, freshness: 'Current' }],
    });

    legacyRemote.closeAllConnections();
    await new Promise((resolve) => legacyRemote.close(resolve));
    // A change of the APIService has it checked and fetched again (else the 30 s recheck and the minute's refresh would).
    await send(
      'PATCH',
      `${chain.url}${APISERVICES}/${name}`,
      { metadata: { labels: { touched: 'yes' } } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    await expect.poll(legacy, { timeout: 5000 }).toEqual({
      metadata: { name: 'legacy.example.com', creationTimestamp: null },
      versions: [{ version: 'v1beta1', resources, freshness: 'Stale' }],
    });
    // Still listed in the legacy documents, as kube lists every APIService.
    expect(await groupNames()).toContain('legacy.example.com');
  });
});
