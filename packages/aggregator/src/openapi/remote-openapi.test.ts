import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
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
import { remoteAPIService } from '../test-support/apiservice.ts';
import { type Json, send, startChain, type TestChain } from '../test-support/chain.ts';

const execFileAsync = promisify(execFile);

const Flunder = defineResource({
  group: 'wardle.example.com',
  kind: 'Flunder',
  plural: 'flunders',
  namespaced: true,
  versions: [
    {
      name: 'v1alpha1',
      schema: z.object({ spec: z.object({ reference: z.string().optional().describe('the flunder or fischer it refers to') }).optional() }),
    },
  ],
});

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

let remote: GenericAPIServer;
let remoteServing: Serving;
let chain: TestChain;
let ca: Buffer;
let tmp: string;

beforeAll(async () => {
  const serving = await selfSignedServingCertificate({ hosts: ['api.wardle.svc'] });
  ca = Buffer.from(serving.ca);
  remote = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, Flunder] });
  await remote.start();
  remoteServing = await serve(remote.handler, { tls: { cert: serving.cert, key: serving.key } });
  chain = await startChain([], new MemoryStorage(), {
    provider: { serviceResolver: mapServiceResolver({ 'wardle/api:443': remoteServing.url }) },
  });
  tmp = await mkdtemp(join(tmpdir(), 'kapi-remote-openapi-'));
  const created = await send(
    'POST',
    chain.url + APISERVICES,
    remoteAPIService('wardle.example.com', 'v1alpha1', { namespace: 'wardle', name: 'api' }, { caBundle: ca.toString('base64') }),
  );
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await chain.stop();
  await remoteServing.shutdown();
  await rm(tmp, { recursive: true, force: true });
});

const get = async (path: string): Promise<Json> => (await send('GET', chain.url + path, undefined, { Accept: 'application/json' })).body;
/** The remote's own bytes of a document. */
const remoteText = (path: string): Promise<string> =>
  new Promise((resolve, reject) =>
    request(`${remoteServing.url}${path}`, { ca, headers: { Accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString()));
    })
      .on('error', reject)
      .end(),
  );

describe('remote APIServices in the aggregator’s OpenAPI (kube’s OpenAPI aggregation controllers)', () => {
  it('/openapi/v2 merges the remote’s paths and definitions', async () => {
    await expect
      .poll(async () => Object.keys((await get('/openapi/v2')).paths), { timeout: 5000 })
      .toContain('/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders');
    const merged = await get('/openapi/v2');
    const own = JSON.parse(await remoteText('/openapi/v2'));
    expect(merged.definitions['com.example.wardle.v1alpha1.Flunder']).toEqual(own.definitions['com.example.wardle.v1alpha1.Flunder']);
    // The aggregator's own kinds are still there.
    expect(Object.keys(merged.paths)).toContain('/apis/apiregistration.k8s.io/v1/apiservices');
  });

  it('/openapi/v3 lists the remote group-version and serves the remote’s document; kubectl explain reads it', async () => {
    await expect
      .poll(async () => Object.keys((await get('/openapi/v3')).paths), { timeout: 5000 })
      .toContain('apis/wardle.example.com/v1alpha1');
    const own = JSON.parse(await remoteText('/openapi/v3')).paths['apis/wardle.example.com/v1alpha1'].serverRelativeURL;
    const index = await get('/openapi/v3');
    // The same bytes, so the same hash in the URL.
    expect(index.paths['apis/wardle.example.com/v1alpha1'].serverRelativeURL).toBe(own);
    const res = await fetch(chain.url + own);
    expect(await res.text()).toBe(await remoteText(own));

    const kubeconfig = join(tmp, 'kubeconfig');
    await writePlainKubeconfig(kubeconfig, chain.url);
    for (const bin of kubectlBinaries(['kubectl'])) {
      const { stdout } = await execFileAsync(bin, ['--kubeconfig', kubeconfig, 'explain', 'flunders.spec.reference'], {
        env: { ...process.env, HOME: tmp },
      });
      expect(stdout).toContain('GROUP:      wardle.example.com');
      expect(stdout).toContain('the flunder or fischer it refers to');
    }
  });
});
