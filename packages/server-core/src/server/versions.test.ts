import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
 * A kind served in two versions over HTTP: every verb answers in the version of its URL, converted through the
 * storage version (v1, spec.replicas) from and to v1beta1 (spec.size); and the real kubectl reading and applying v1beta1.
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
    },
  ],
  printerColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
});

const V1 = 'example.kapi.dev/v1';
const V1BETA1 = 'example.kapi.dev/v1beta1';
const path = (version: string, name = ''): string => `/apis/example.kapi.dev/${version}/namespaces/default/gizmos${name ? `/${name}` : ''}`;

let server: GenericAPIServer;
let http: Listening;
let tmp: string;

async function call(
  method: string,
  p: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${http.url}${p}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The first `n` events of a watch (JSON lines). */
async function watchEvents(p: string, n: number): Promise<Json[]> {
  const abort = new AbortController();
  const res = await fetch(`${http.url}${p}`, { signal: abort.signal });
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
  server = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, Gizmo] });
  await server.start();
  http = await listen(server.handler);
  tmp = await mkdtemp(join(tmpdir(), 'kapi-versions-'));
  await writePlainKubeconfig(join(tmp, 'kubeconfig'), `${http.url}`);
});

afterAll(async () => {
  await http?.close();
  await server?.shutdown();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('a kind served in two versions', () => {
  it('creates, reads, lists, patches and deletes in either version', async () => {
    const created = await call('POST', path('v1beta1'), {
      apiVersion: V1BETA1,
      kind: 'Gizmo',
      metadata: { name: 'g1' },
      spec: { size: 2 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: V1BETA1, kind: 'Gizmo', spec: { size: 2 } });

    const v1 = await call('GET', path('v1', 'g1'));
    expect(v1.body).toMatchObject({ apiVersion: V1, spec: { replicas: 2 } });
    const beta = await call('GET', path('v1beta1', 'g1'));
    expect(beta.body).toMatchObject({ apiVersion: V1BETA1, spec: { size: 2 } });

    const list = await call('GET', path('v1beta1'));
    expect(list.body).toMatchObject({ apiVersion: V1BETA1, kind: 'GizmoList' });
    expect(list.body.items.map((o: Json) => [o.apiVersion, o.spec])).toEqual([[V1BETA1, { size: 2 }]]);
    const list1 = await call('GET', path('v1'));
    expect(list1.body).toMatchObject({ apiVersion: V1, kind: 'GizmoList' });
    expect(list1.body.items[0].spec).toEqual({ replicas: 2 });

    const merged = await call('PATCH', path('v1beta1', 'g1'), { spec: { size: 3 } }, { 'content-type': 'application/merge-patch+json' });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ apiVersion: V1BETA1, spec: { size: 3 } });
    const json = await call('PATCH', path('v1beta1', 'g1'), [{ op: 'replace', path: '/spec/size', value: 4 }], {
      'content-type': 'application/json-patch+json',
    });
    expect(json.body.spec).toEqual({ size: 4 });
    const strategic = await call(
      'PATCH',
      path('v1beta1', 'g1'),
      { spec: { color: 'red' } },
      {
        'content-type': 'application/strategic-merge-patch+json',
      },
    );
    expect(strategic.body.spec).toEqual({ size: 4, color: 'red' });
    expect((await call('GET', path('v1', 'g1'))).body.spec).toEqual({ replicas: 4, color: 'red' });

    const put = await call('PUT', path('v1', 'g1'), { ...(await call('GET', path('v1', 'g1'))).body, spec: { replicas: 5 } });
    expect(put.body).toMatchObject({ apiVersion: V1, spec: { replicas: 5 } });

    const wrong = await call('POST', path('v1'), { apiVersion: V1BETA1, kind: 'Gizmo', metadata: { name: 'g2' }, spec: { size: 1 } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe(
      'the API version in the data (example.kapi.dev/v1beta1) does not match the expected API version (example.kapi.dev/v1)',
    );

    const invalid = await call('POST', path('v1beta1'), {
      apiVersion: V1BETA1,
      kind: 'Gizmo',
      metadata: { name: 'g2' },
      spec: { size: -1 },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.details.causes.map((c: Json) => c.field)).toEqual(['spec.size']);

    const strict = await call('POST', `${path('v1beta1')}?fieldValidation=Strict`, {
      apiVersion: V1BETA1,
      kind: 'Gizmo',
      metadata: { name: 'g2' },
      spec: { size: 1, replicas: 1 },
    });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe(
      'Gizmo in version "v1beta1" cannot be handled as a Gizmo: strict decoding error: unknown field "spec.replicas"',
    );

    // A Table reads the printer columns from the stored object; its rows' objects are in the request's version.
    const table = await call('GET', `${path('v1beta1', 'g1')}?includeObject=Object`, undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(table.body.rows[0].cells).toEqual(['g1', 5]);
    expect(table.body.rows[0].object).toMatchObject({ apiVersion: V1BETA1, spec: { size: 5 } });

    const deleted = await call('DELETE', path('v1beta1', 'g1'));
    expect(deleted.body).toMatchObject({ apiVersion: V1BETA1, spec: { size: 5 } });
  });

  it('watches in either version', async () => {
    const created = await call('POST', path('v1'), { apiVersion: V1, kind: 'Gizmo', metadata: { name: 'w1' }, spec: { replicas: 1 } });
    const rv = created.body.metadata.resourceVersion;
    const beta = watchEvents(`${path('v1beta1')}?watch=true&resourceVersion=${rv}`, 1);
    const v1 = watchEvents(`${path('v1')}?watch=true&resourceVersion=${rv}`, 1);
    // Let both watches start before the change.
    await new Promise((r) => setTimeout(r, 100));
    await call('PATCH', path('v1beta1', 'w1'), { spec: { size: 7 } }, { 'content-type': 'application/merge-patch+json' });
    const [ev] = await beta;
    expect(ev).toMatchObject({ type: 'MODIFIED', object: { apiVersion: V1BETA1, spec: { size: 7 } } });
    const [ev1] = await v1;
    expect(ev1).toMatchObject({ type: 'MODIFIED', object: { apiVersion: V1, spec: { replicas: 7 } } });

    const initial = await watchEvents(
      `${path('v1beta1')}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
      2,
    );
    expect(initial.map((e) => [e.type, e.object.apiVersion])).toEqual([
      ['ADDED', V1BETA1],
      ['BOOKMARK', V1BETA1],
    ]);
    await call('DELETE', path('v1', 'w1'));
  });

  it('serves kubectl get and apply in v1beta1', async () => {
    await writeFile(
      join(tmp, 'gizmo.yaml'),
      ['apiVersion: example.kapi.dev/v1beta1', 'kind: Gizmo', 'metadata:', '  name: k1', 'spec:', '  size: 3', ''].join('\n'),
    );
    expect(await run('apply', '-f', join(tmp, 'gizmo.yaml'))).toBe('gizmo.example.kapi.dev/k1 created\n');
    const yaml = await run('get', 'gizmos.v1beta1.example.kapi.dev', 'k1', '-o', 'yaml');
    expect(yaml).toContain('apiVersion: example.kapi.dev/v1beta1');
    expect(yaml).toContain('  size: 3');
    expect((await call('GET', path('v1', 'k1'))).body.spec).toEqual({ replicas: 3 });

    // A second apply patches the object on the v1beta1 path (kubectl computes the patch from its last-applied annotation).
    await writeFile(
      join(tmp, 'gizmo.yaml'),
      ['apiVersion: example.kapi.dev/v1beta1', 'kind: Gizmo', 'metadata:', '  name: k1', 'spec:', '  size: 4', ''].join('\n'),
    );
    expect(await run('apply', '-f', join(tmp, 'gizmo.yaml'))).toBe('gizmo.example.kapi.dev/k1 configured\n');
    expect((await call('GET', path('v1', 'k1'))).body.spec).toEqual({ replicas: 4 });
    const list = await run('get', 'gizmos.v1beta1.example.kapi.dev', '-o', 'yaml');
    expect(list).toContain('apiVersion: example.kapi.dev/v1beta1');
    expect(list).toContain('    size: 4');
  });
});
