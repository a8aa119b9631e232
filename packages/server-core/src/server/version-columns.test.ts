import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KubeObject } from '@kapi/apimachinery';
import { defineResource, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { kubectlBinaries, writePlainKubeconfig } from '../../../../scripts/kubectl-binaries.ts';
import { type Listening, listen } from '../filters/serve.ts';
import { GenericAPIServer } from './generic-api-server.ts';

/**
 * Tables and field selectors of a version with printer columns and selectable fields of its own, over HTTP: kube reads
 * a version's columns and fields on the object in that version (its CRD handler builds a table convertor and a strategy
 * per version), also when kubectl lists a Table with a field selector.
 */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

const execFileAsync = promisify(execFile);
const [kubectl] = kubectlBinaries(['kubectl']) as [string];

type Spec = Record<string, unknown>;
const rename = (o: KubeObject, from: string, to: string): KubeObject => {
  const { [from]: value, ...rest } = (o.spec ?? {}) as Spec;
  return { ...o, spec: value === undefined ? rest : { ...rest, [to]: value } };
};

const Gizmo = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
  versions: [
    { name: 'v1', storage: true, schema: z.object({ spec: z.object({ replicas: z.int().min(0), color: z.string().optional() }) }) },
    {
      name: 'v1beta1',
      schema: z.object({ spec: z.object({ size: z.int().min(0), color: z.string().optional() }) }),
      toHub: (o) => rename(o, 'size', 'replicas'),
      fromHub: (o) => rename(o, 'replicas', 'size'),
      printerColumns: [
        { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
        { name: 'Color', type: 'string', jsonPath: '.spec.color' },
      ],
      selectableFields: [{ jsonPath: '.spec.size' }],
    },
  ],
  printerColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
  selectableFields: [{ jsonPath: '.spec.color' }],
});

// The same shapes converted asynchronously, a list at a time (as a CRD's webhook converts).
const Gadget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
  versions: [
    { name: 'v1', storage: true, schema: z.object({ spec: z.object({ replicas: z.int().min(0) }) }) },
    {
      name: 'v1beta1',
      schema: z.object({ spec: z.object({ size: z.int().min(0) }) }),
      printerColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
    },
  ],
  printerColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
  conversion: {
    async convert(objects, toVersion) {
      return objects.map((o) => {
        const out = toVersion === 'v1' ? rename(o, 'size', 'replicas') : rename(o, 'replicas', 'size');
        return { ...out, apiVersion: `example.kapi.dev/${toVersion}` };
      });
    },
  },
});

const V1BETA1 = 'example.kapi.dev/v1beta1';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const path = (version: string, name = ''): string => `/apis/example.kapi.dev/${version}/namespaces/default/gizmos${name ? `/${name}` : ''}`;

let server: GenericAPIServer;
let http: Listening;
let tmp: string;

async function get(p: string, accept = TABLE): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${http.url}${p}`, { headers: { accept } });
  return { status: res.status, body: await res.json() };
}

/** The first `n` events of a watch (JSON lines). */
async function watchEvents(p: string, n: number): Promise<Json[]> {
  const abort = new AbortController();
  const res = await fetch(`${http.url}${p}`, { signal: abort.signal, headers: { accept: TABLE } });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const out: Json[] = [];
  let buf = '';
  try {
    while (out.length < n) {
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) out.push(JSON.parse(line));
        continue;
      }
      const { done, value } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
    }
  } finally {
    abort.abort();
  }
  return out;
}

async function run(...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(kubectl, ['--kubeconfig', join(tmp, 'kubeconfig'), ...args], { encoding: 'utf8' });
  return stdout;
}

beforeAll(async () => {
  server = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, Gizmo, Gadget] });
  await server.start();
  http = await listen(server.handler);
  tmp = await mkdtemp(join(tmpdir(), 'kapi-version-columns-'));
  await writePlainKubeconfig(join(tmp, 'kubeconfig'), `${http.url}`);
  for (const [name, replicas, color] of [
    ['a', 1, 'red'],
    ['b', 3, 'blue'],
  ] as const) {
    const res = await fetch(`${http.url}${path('v1')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'example.kapi.dev/v1', kind: 'Gizmo', metadata: { name }, spec: { replicas, color } }),
    });
    expect(res.status).toBe(201);
  }
  const gadget = await fetch(`${http.url}/apis/example.kapi.dev/v1/namespaces/default/gadgets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'example.kapi.dev/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { replicas: 4 } }),
  });
  expect(gadget.status).toBe(201);
});

afterAll(async () => {
  await http?.close();
  await server?.shutdown();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('a version with printer columns and selectable fields of its own', () => {
  it('serves Tables with the request version’s columns, read on the object in that version', async () => {
    const beta = await get(`${path('v1beta1')}?includeObject=Object`);
    expect(beta.status).toBe(200);
    expect(beta.body.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Size', 'Color']);
    expect(beta.body.rows.map((r: Json) => r.cells)).toEqual([
      ['a', 1, 'red'],
      ['b', 3, 'blue'],
    ]);
    expect(beta.body.rows[0].object).toMatchObject({ apiVersion: V1BETA1, spec: { size: 1 } });
    const one = await get(path('v1beta1', 'b'));
    expect(one.body.rows.map((r: Json) => r.cells)).toEqual([['b', 3, 'blue']]);

    const v1 = await get(path('v1'));
    expect(v1.body.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Replicas']);
    expect(v1.body.rows.map((r: Json) => r.cells)).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
  });

  it('a field selector of a Table or a list names the request version’s fields', async () => {
    const table = await get(`${path('v1beta1')}?fieldSelector=spec.size%3D3`);
    expect(table.status).toBe(200);
    expect(table.body.rows.map((r: Json) => r.cells)).toEqual([['b', 3, 'blue']]);
    const list = await get(`${path('v1beta1')}?fieldSelector=spec.size%3D1`, 'application/json');
    expect(list.body.items.map((o: Json) => [o.metadata.name, o.spec.size])).toEqual([['a', 1]]);
    const v1 = await get(`${path('v1')}?fieldSelector=spec.size%3D1`);
    expect(v1.status).toBe(400);
    expect(v1.body.message).toBe('"spec.size" is not a known field selector: only "metadata.name", "metadata.namespace", "spec.color"');
  });

  it('a Table watch in a version has its columns and cells', async () => {
    const [ev] = await watchEvents(`${path('v1beta1')}?watch=true&fieldSelector=spec.size%3D3`, 1);
    expect(ev.type).toBe('ADDED');
    expect(ev.object.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Size', 'Color']);
    expect(ev.object.rows.map((r: Json) => r.cells)).toEqual([['b', 3, 'blue']]);
  });

  it('a kind converting asynchronously reads a version’s own columns on its converted objects', async () => {
    const gadgets = (version: string) => `/apis/example.kapi.dev/${version}/namespaces/default/gadgets`;
    const beta = await get(gadgets('v1beta1'));
    expect(beta.body.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Size']);
    expect(beta.body.rows.map((r: Json) => r.cells)).toEqual([['g', 4]]);
    const [ev] = await watchEvents(`${gadgets('v1beta1')}?watch=true`, 1);
    expect(ev.object.rows.map((r: Json) => r.cells)).toEqual([['g', 4]]);
    const v1 = await get(`${gadgets('v1')}/g`);
    expect(v1.body.rows.map((r: Json) => r.cells)).toEqual([['g', 4]]);
    expect(v1.body.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Replicas']);
  });

  it('kubectl get prints the columns of the version it names', async () => {
    expect((await run('get', 'gizmos.v1beta1.example.kapi.dev')).split('\n')[0]).toMatch(/^NAME\s+SIZE\s+COLOR$/);
    expect(await run('get', 'gizmos.v1beta1.example.kapi.dev', '--field-selector', 'spec.size=3', '--no-headers')).toMatch(
      /^b\s+3\s+blue\n$/,
    );
    expect((await run('get', 'gizmos.v1.example.kapi.dev')).split('\n')[0]).toMatch(/^NAME\s+REPLICAS$/);
  });
});
