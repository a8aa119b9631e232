import { PassThrough } from 'node:stream';
import { MAX_JSON_DEPTH, stringifyJson } from '@kapi/apimachinery';
import { defineResource, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LogAuditBackend } from '../audit/log-backend.ts';
import { policyAtLevel } from '../audit/policy.ts';
import { type Listening, listen } from '../filters/serve.ts';
import { GenericAPIServer } from './generic-api-server.ts';

/**
 * An object nested as deep as kube's decoder admits (10,000 levels) over HTTP, through the whole server: decode,
 * validation, storage, the watch cache, and every encoding of the answer. JSON.stringify gives up near 4,500 levels
 * and structuredClone near 1,600; none of them may turn such an object into a 500.
 */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

const Thing = defineResource({
  group: 'example.kapi.dev',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({ spec: z.looseObject({ size: z.int().optional() }).optional() }),
});

const path = (name = '', query = ''): string => `/apis/example.kapi.dev/v1/namespaces/default/things${name ? `/${name}` : ''}${query}`;
/** `{"a":{"a":…leaf…}}`, `depth` objects deep, as text. */
const nested = (depth: number, leaf = '{}'): string => `${'{"a":'.repeat(depth - 1)}${leaf}${'}'.repeat(depth - 1)}`;

let server: GenericAPIServer;
let http: Listening;

async function call(
  method: string,
  p: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const init: RequestInit = { method, headers: { 'content-type': 'application/json', ...headers } };
  if (body !== undefined) init.body = body;
  const res = await fetch(`${http.url}${p}`, init);
  return { status: res.status, text: await res.text() };
}

/** The body's spec as compact JSON text (JSON.parse copes with any depth; the comparison needs stringifyJson). */
const specOf = (o: Json): string => stringifyJson(o?.spec);

/** The first `n` JSON lines of a watch. */
async function watchLines(p: string, n: number): Promise<Json[]> {
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

beforeAll(async () => {
  server = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, Thing] });
  await server.start();
  http = await listen(server.handler);
});

afterAll(async () => {
  await http?.close();
  await server?.shutdown();
});

describe('an object nested 10,000 levels over HTTP', () => {
  it('is created, read, listed, watched, patched and updated, in JSON, YAML and Table', async () => {
    // The object is one level, its spec the other 9,999.
    const spec = nested(MAX_JSON_DEPTH - 1);
    const created = await call(
      'POST',
      path(),
      `{"apiVersion":"example.kapi.dev/v1","kind":"Thing","metadata":{"name":"t"},"spec":${spec}}`,
    );
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    const rv = JSON.parse(created.text).metadata.resourceVersion as string;
    expect(specOf(JSON.parse(created.text))).toBe(spec);

    const got = await call('GET', path('t'));
    expect(got.status, got.text.slice(0, 300)).toBe(200);
    expect(specOf(JSON.parse(got.text))).toBe(spec);
    const cached = await call('GET', path('t', '?resourceVersion=0'));
    expect(specOf(JSON.parse(cached.text))).toBe(spec);

    for (const q of ['', '?resourceVersion=0', '?limit=1']) {
      const list = await call('GET', path('', q));
      expect(list.status, `list${q}: ${list.text.slice(0, 300)}`).toBe(200);
      expect(JSON.parse(list.text).items.map(specOf), `list${q}`).toEqual([spec]);
    }

    const [added] = await watchLines(path('', '?watch=true&resourceVersion=0'), 1);
    expect(added.type).toBe('ADDED');
    expect(specOf(added.object)).toBe(spec);

    // YAML: too deep for the yaml package's recursion; the answer is flow style (JSON), which YAML readers take.
    const yaml = await call('GET', path('t'), undefined, { accept: 'application/yaml' });
    expect(yaml.status, yaml.text.slice(0, 300)).toBe(200);
    expect(specOf(JSON.parse(yaml.text))).toBe(spec);
    const table = await call('GET', path('t'), undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.status, table.text.slice(0, 300)).toBe(200);
    expect(JSON.parse(table.text).rows[0].cells[0]).toBe('t');
    const tableWithObject = await call('GET', path('t', '?includeObject=Object'), undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(tableWithObject.status, tableWithObject.text.slice(0, 300)).toBe(200);
    expect(specOf(JSON.parse(tableWithObject.text).rows[0].object)).toBe(spec);

    // A change watched from the creation on, then every write kind.
    const watching = watchLines(path('', `?watch=true&resourceVersion=${rv}`), 3);
    const merged = await call('PATCH', path('t'), '{"spec":{"size":2}}', { 'content-type': 'application/merge-patch+json' });
    expect(merged.status, merged.text.slice(0, 300)).toBe(200);
    expect(JSON.parse(merged.text).spec.size).toBe(2);
    const deeper = nested(MAX_JSON_DEPTH - 3, '{"n":1}');
    const jsonPatched = await call('PATCH', path('t'), `[{"op":"replace","path":"/spec","value":${deeper}}]`, {
      'content-type': 'application/json-patch+json',
    });
    expect(jsonPatched.status, jsonPatched.text.slice(0, 300)).toBe(200);
    expect(specOf(JSON.parse(jsonPatched.text))).toBe(deeper);
    const current = JSON.parse(jsonPatched.text).metadata.resourceVersion as string;
    const bottom = nested(MAX_JSON_DEPTH - 1, '{"n":2}');
    const put = await call(
      'PUT',
      path('t'),
      `{"apiVersion":"example.kapi.dev/v1","kind":"Thing","metadata":{"name":"t","resourceVersion":"${current}"},"spec":${bottom}}`,
    );
    expect(put.status, put.text.slice(0, 300)).toBe(200);
    expect(specOf(JSON.parse(put.text))).toBe(bottom);
    const events = await watching;
    expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'MODIFIED']);
    expect(events.map((e) => specOf(e.object))).toEqual([specOf(JSON.parse(merged.text)), deeper, bottom]);
    expect(specOf(JSON.parse((await call('GET', path('t'))).text))).toBe(bottom);
  });

  it('is audited at level RequestResponse: request and response objects copied and logged', async () => {
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
    const audited = new GenericAPIServer({
      storage: new MemoryStorage(),
      resources: [Namespace, Thing],
      audit: { backend: new LogAuditBackend(out), policy: policyAtLevel('RequestResponse') },
    });
    await audited.start();
    const listening = await listen(audited.handler);
    try {
      const spec = nested(MAX_JSON_DEPTH - 1);
      const res = await fetch(`${listening.url}${path()}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"apiVersion":"example.kapi.dev/v1","kind":"Thing","metadata":{"name":"t"},"spec":${spec}}`,
      });
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).toBe(201);
      const auditID = res.headers.get('audit-id');
      await new Promise<void>((resolve) => setImmediate(resolve));
      const events = lines
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((e) => e.auditID === auditID);
      expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
      expect(specOf(events[1].requestObject)).toBe(spec);
      expect(specOf(events[1].responseObject)).toBe(spec);
    } finally {
      await listening.close();
      await audited.shutdown();
    }
  });
});
