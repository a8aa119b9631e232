import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ConfigMap, Namespace } from '@kapi/registry';
import { GenericAPIServer, type Listening, listen } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinaries, writePlainKubeconfig } from '../../../../scripts/kubectl-binaries.ts';
import { APIExtensions } from './apiextensions.ts';

/**
 * A CRD whose versions list different additionalPrinterColumns and selectableFields, served through the APIExtensions
 * chain: as kube's CRD handler does, a Table in a version shows that version's columns, read on the object in that
 * version (an `.apiVersion` column shows which), a version without columns shows Age, and a field selector names the
 * request version's selectable fields.
 */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

const execFileAsync = promisify(execFile);
const [kubectl] = kubectlBinaries(['kubectl']) as [string];

const GROUP = 'stable.example.com';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
// The versions' schemas differ (kube's internal form keeps per-version selectableFields only beside per-version schemas).
const schema = (extra: object = {}) => ({
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { color: { type: 'string' }, size: { type: 'integer' }, ...extra } },
    },
  },
});

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1beta1',
        served: true,
        storage: false,
        schema: schema({ legacy: { type: 'string' } }),
        additionalPrinterColumns: [
          { name: 'Color', type: 'string', jsonPath: '.spec.color' },
          { name: 'Version', type: 'string', jsonPath: '.apiVersion' },
        ],
        selectableFields: [{ jsonPath: '.spec.color' }],
      },
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: schema(),
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Version', type: 'string', jsonPath: '.apiVersion' },
        ],
        selectableFields: [{ jsonPath: '.spec.size' }],
      },
      { name: 'v1alpha1', served: true, storage: false, schema: schema() },
    ],
  },
};

let controlPlane: GenericAPIServer;
let chain: GenericAPIServer;
let http: Listening;
let tmp: string;

async function send(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${http.url}${path}`, {
    method,
    headers: { accept, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const gadgets = (version: string, query = '') => `/apis/${GROUP}/${version}/namespaces/default/gadgets${query}`;

async function run(...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(kubectl, ['--kubeconfig', join(tmp, 'kubeconfig'), ...args], { encoding: 'utf8' });
  return stdout;
}

beforeAll(async () => {
  const storage = new MemoryStorage();
  controlPlane = new GenericAPIServer({ storage, resources: [Namespace, ConfigMap] });
  chain = new GenericAPIServer({
    storage,
    closeStorage: false,
    resources: [],
    providers: [new APIExtensions({ retryAfterMs: 50, onError: () => {} }).provider()],
    delegate: controlPlane,
  });
  await chain.start();
  http = await listen(chain.handler);
  tmp = await mkdtemp(join(tmpdir(), 'kapi-crd-columns-'));
  await writePlainKubeconfig(join(tmp, 'kubeconfig'), http.url);
  await send('POST', '/api/v1/namespaces', { metadata: { name: 'default' } });
  const crd = await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD);
  expect(crd.status).toBe(201);
  // Served once a list answers 200 (the CRD established and its kind added).
  const deadline = Date.now() + 5000;
  while ((await send('GET', gadgets('v1'))).status !== 200) {
    if (Date.now() > deadline) throw new Error('the CRD was not served within 5s');
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const [name, color, size] of [
    ['a', 'red', 1],
    ['b', 'blue', 3],
  ] as const) {
    const created = await send('POST', gadgets('v1beta1'), {
      apiVersion: `${GROUP}/v1beta1`,
      kind: 'Gadget',
      metadata: { name },
      spec: { color, size },
    });
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  await http?.close();
  await chain?.shutdown();
  await controlPlane?.shutdown();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('a CRD whose versions have different printer columns and selectable fields', () => {
  it('a Table in each version shows that version’s columns, read on the object in that version', async () => {
    const beta = await send('GET', gadgets('v1beta1'), undefined, TABLE);
    expect(beta.status).toBe(200);
    expect(beta.body.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Color', 'Version']);
    expect(beta.body.rows.map((r: Json) => r.cells)).toEqual([
      ['a', 'red', `${GROUP}/v1beta1`],
      ['b', 'blue', `${GROUP}/v1beta1`],
    ]);

    const v1 = await send('GET', gadgets('v1', '/b'), undefined, TABLE);
    expect(v1.body.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Size', 'Version']);
    expect(v1.body.rows.map((r: Json) => r.cells)).toEqual([['b', 3, `${GROUP}/v1`]]);

    // A version without additionalPrinterColumns gets kube's Age column.
    const alpha = await send('GET', gadgets('v1alpha1'), undefined, TABLE);
    expect(alpha.body.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Age']);
  });

  it('a field selector names the request version’s selectable fields', async () => {
    const beta = await send('GET', gadgets('v1beta1', '?fieldSelector=spec.color%3Dblue'), undefined, TABLE);
    expect(beta.body.rows.map((r: Json) => r.cells[0])).toEqual(['b']);
    const v1 = await send('GET', gadgets('v1', '?fieldSelector=spec.size%3D1'));
    expect(v1.body.items.map((o: Json) => o.metadata.name)).toEqual(['a']);
    const wrong = await send('GET', gadgets('v1', '?fieldSelector=spec.color%3Dblue'));
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('"spec.color" is not a known field selector: only "metadata.name", "metadata.namespace", "spec.size"');
  });

  it('kubectl get <plural>.<version>.<group> prints that version’s columns', async () => {
    const beta = await run('get', `gadgets.v1beta1.${GROUP}`);
    expect(beta.split('\n')[0]).toMatch(/^NAME\s+COLOR\s+VERSION$/);
    expect(beta).toMatch(/\nb\s+blue\s+stable\.example\.com\/v1beta1\n/);
    const v1 = await run('get', `gadgets.v1.${GROUP}`, '--field-selector', 'spec.size=3');
    expect(v1).toMatch(/^NAME\s+SIZE\s+VERSION\nb\s+3\s+stable\.example\.com\/v1\n$/);
  });
});
