import type { ResourceDefinition } from '@kapi/registry';
import { ConfigMap, Namespace, Scheme } from '@kapi/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose } from '../filters/compose.ts';
import { type Listening, listen } from '../filters/serve.ts';
import { MIME_V2_PROTOBUF, MIME_V2_PROTOBUF_DOTTED, openAPIHandler } from './handler.ts';
import { negotiate, parseAccept } from './negotiate.ts';
import { openAPIETag } from './served-documents.ts';
import { Widget } from './test-support/widget.ts';
import { OpenAPIV2Document } from './v2-protobuf.ts';

const NOW = new Date(Date.UTC(2026, 0, 1));

describe('negotiate', () => {
  it('orders clauses by q, refuses q=0 and matches wildcards', () => {
    expect(parseAccept(undefined)).toEqual([{ type: '*', subtype: '*', q: 1 }]);
    expect(parseAccept('application/json;q=0.5, application/x;q=0.9, text/*;q=0')).toEqual([
      { type: 'application', subtype: 'x', q: 0.9 },
      { type: 'application', subtype: 'json', q: 0.5 },
    ]);
    const offers = ['application/json', MIME_V2_PROTOBUF] as const;
    expect(negotiate(`application/json;q=0.5, ${MIME_V2_PROTOBUF};q=0.9`, offers)).toBe(MIME_V2_PROTOBUF);
    expect(negotiate('application/*', offers)).toBe('application/json');
    expect(negotiate('text/html, application/json;q=0', offers)).toBeUndefined();
    expect(negotiate('application/json; charset=utf-8', offers)).toBe('application/json');
  });
});

describe('openAPIHandler', () => {
  const defs: ResourceDefinition[] = [Namespace, ConfigMap, Widget];
  let generation = 1;
  let server: Listening;
  let nextCalls = 0;

  beforeAll(async () => {
    const handler = compose([openAPIHandler(() => defs, { generation: () => generation, now: () => NOW })], async ({ res }) => {
      nextCalls++;
      res.statusCode = 418;
      res.end();
    });
    server = await listen(handler);
  });
  afterAll(() => server.close());

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    fetch(`${server.url}${path}`, { method, headers, redirect: 'manual' });

  it('serves the v3 index with each group-version URL carrying the SHA-512 of its document', async () => {
    const res = await get('/openapi/v3');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = await res.text();
    expect(res.headers.get('etag')).toBe(`"${openAPIETag(Buffer.from(body))}"`);
    const index = JSON.parse(body) as { paths: Record<string, { serverRelativeURL: string }> };
    expect(Object.keys(index.paths)).toEqual(['api/v1', 'apis/example.kapi.dev/v1']);
    const url = index.paths['apis/example.kapi.dev/v1']?.serverRelativeURL as string;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/example\.kapi\.dev\/v1\?hash=[0-9A-F]{128}$/);

    const doc = await get(url);
    expect(doc.status).toBe(200);
    const bytes = Buffer.from(await doc.arrayBuffer());
    expect(url.endsWith(openAPIETag(bytes))).toBe(true);
    expect(doc.headers.get('cache-control')).toBe('public, immutable');
    expect(doc.headers.get('expires')).toBe(new Date(Date.UTC(2027, 0, 1)).toUTCString());
    expect(doc.headers.get('vary')).toBe('Accept');
    expect(JSON.parse(bytes.toString()).openapi).toBe('3.0.0');
  });

  it('redirects a stale hash to the current one, and serves a hashless URL without immutable caching', async () => {
    const index = (await (await get('/openapi/v3')).json()) as { paths: Record<string, { serverRelativeURL: string }> };
    const stale = await get('/openapi/v3/api/v1?hash=0123');
    expect(stale.status).toBe(301);
    expect(stale.headers.get('location')).toBe(index.paths['api/v1']?.serverRelativeURL);
    const plain = await get('/openapi/v3/api/v1');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBeNull();
  });

  it('answers 304 to a matching If-None-Match, and HEAD without a body', async () => {
    const first = await get('/openapi/v3/api/v1');
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect((await get('/openapi/v3/api/v1', { 'If-None-Match': etag })).status).toBe(304);
    expect((await get('/openapi/v2', { 'If-None-Match': '"nope"' })).status).toBe(200);
    const head = await get('/openapi/v2', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('serves v2 as JSON or gnostic protobuf, by Accept with q-values', async () => {
    const json = await get('/openapi/v2', { Accept: 'application/json' });
    expect(json.headers.get('content-type')).toBe('application/json');
    const swagger = (await json.json()) as { swagger: string; definitions: Record<string, unknown> };
    expect(swagger.swagger).toBe('2.0');

    const pb = await get('/openapi/v2', { Accept: `application/json;q=0.5, ${MIME_V2_PROTOBUF}` });
    expect(pb.status).toBe(200);
    expect(pb.headers.get('content-type')).toBe(MIME_V2_PROTOBUF_DOTTED);
    expect(pb.headers.get('etag')).toBe(json.headers.get('etag'));
    const decoded = OpenAPIV2Document.toObject(OpenAPIV2Document.decode(new Uint8Array(await pb.arrayBuffer()))) as {
      definitions: { additional_properties: { name: string }[] };
    };
    expect(decoded.definitions.additional_properties.map((d) => d.name)).toEqual(Object.keys(swagger.definitions));
  });

  it('answers 406 with a Status for an unsupported Accept, 404 for an unknown group-version, 405 for writes', async () => {
    const res = await get('/openapi/v2', { Accept: 'text/html' });
    expect(res.status).toBe(406);
    expect(await res.json()).toMatchObject({ kind: 'Status', code: 406, reason: 'NotAcceptable' });
    expect((await get('/openapi/v3/api/v1', { Accept: `${MIME_V2_PROTOBUF}` })).status).toBe(406);
    const missing = await get('/openapi/v3/apis/nope.example/v1');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ kind: 'Status', reason: 'NotFound' });
    expect((await get('/openapi/v2', {}, 'POST')).status).toBe(405);
  });

  it('passes other paths on', async () => {
    const before = nextCalls;
    expect((await get('/openapi')).status).toBe(418);
    expect((await get('/apis')).status).toBe(418);
    expect(nextCalls).toBe(before + 2);
  });

  it('rebuilds the documents when the generation changes, and only then', async () => {
    const before = (await (await get('/openapi/v3')).json()) as { paths: Record<string, unknown> };
    defs.pop();
    expect(Object.keys(((await (await get('/openapi/v3')).json()) as typeof before).paths)).toEqual(Object.keys(before.paths));
    generation++;
    const after = (await (await get('/openapi/v3')).json()) as typeof before;
    expect(Object.keys(after.paths)).toEqual(['api/v1']);
    expect((await get('/openapi/v3/apis/example.kapi.dev/v1')).status).toBe(404);
    defs.push(Widget);
    generation++;
  });
});

describe('openAPIHandler without a generation', () => {
  it('rebuilds when a Scheme grows', async () => {
    const scheme = new Scheme().add(ConfigMap);
    const server = await listen(compose([openAPIHandler(() => scheme)], async () => {}));
    try {
      const first = (await (await fetch(`${server.url}/openapi/v3`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(first.paths)).toEqual(['api/v1']);
      scheme.add(Widget);
      const second = (await (await fetch(`${server.url}/openapi/v3`)).json()) as typeof first;
      expect(Object.keys(second.paths)).toEqual(['api/v1', 'apis/example.kapi.dev/v1']);
    } finally {
      await server.close();
    }
  });
});
