import { createHash } from 'node:crypto';
import { ConfigMap, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Listening, listen } from '../filters/serve.ts';
import { GenericAPIServer } from '../server/generic-api-server.ts';
import type { ExternalOpenAPI, ExternalSwagger } from './external.ts';
import { MIME_V2_PROTOBUF } from './handler.ts';
import { OpenAPIV2Document } from './v2-protobuf.ts';

/** What kube-aggregator's OpenAPI controllers give: remote specs, changed by the test. */
class TestExternal implements ExternalOpenAPI {
  gen = 0;
  specs: ExternalSwagger[] = [];
  docs = new Map<string, Buffer>();
  generation(): number {
    return this.gen;
  }
  v2Specs(): readonly ExternalSwagger[] {
    return this.specs;
  }
  v3Documents(): ReadonlyMap<string, Buffer> {
    return this.docs;
  }
}

const FLUNDER = 'com.example.wardle.v1alpha1.Flunder';
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const FLUNDERS_PATH = {
  get: { operationId: 'listWardleV1alpha1FlunderForAllNamespaces', responses: { '200': { schema: { $ref: `#/definitions/${FLUNDER}` } } } },
};

let server: GenericAPIServer;
let http: Listening;
const external = new TestExternal();
beforeAll(async () => {
  server = new GenericAPIServer({
    storage: new MemoryStorage(),
    resources: [Namespace, ConfigMap],
    providers: [{ name: 'aggregator', openAPI: external }],
  });
  await server.start();
  http = await listen(server.handler);
});
afterAll(async () => {
  await http.close();
  await server.shutdown();
});

// biome-ignore lint/suspicious/noExplicitAny: documents are checked field by field
type Json = any;
const get = async (path: string): Promise<{ status: number; etag: string | null; location: string | null; text: string; body: Json }> => {
  const res = await fetch(http.url + path, { redirect: 'manual', headers: { Accept: 'application/json' } });
  const text = await res.text();
  let body: Json;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, etag: res.headers.get('etag'), location: res.headers.get('location'), text, body };
};

describe('external OpenAPI (kube-aggregator’s remote specs)', () => {
  it('merges remote v2 paths and the definitions they use, the local paths winning a conflict; rebuilt on a new generation', async () => {
    const before = await get('/openapi/v2');
    expect(Object.keys(before.body.paths)).not.toContain('/apis/wardle.example.com/v1alpha1/flunders');

    external.specs = [
      {
        paths: {
          '/apis/wardle.example.com/v1alpha1/flunders': FLUNDERS_PATH,
          // Served here too: the local path item stays (and what only it used is left out, as kube's merge does).
          '/api/v1/configmaps': { get: { operationId: 'remote' } },
        },
        definitions: {
          [FLUNDER]: { type: 'object', properties: { spec: { type: 'object' } } },
          [OBJECT_META]: { type: 'object', description: 'the remote’s' },
        },
      },
    ];
    expect((await get('/openapi/v2')).etag).toBe(before.etag);
    external.gen++;
    const after = await get('/openapi/v2');
    expect(after.etag).not.toBe(before.etag);
    expect(after.body.paths['/apis/wardle.example.com/v1alpha1/flunders']).toEqual(FLUNDERS_PATH);
    expect(after.body.paths['/api/v1/configmaps']).toEqual(before.body.paths['/api/v1/configmaps']);
    expect(after.body.definitions[FLUNDER]).toEqual({ type: 'object', properties: { spec: { type: 'object' } } });
    expect(after.body.definitions[OBJECT_META]).toEqual(before.body.definitions[OBJECT_META]);
    // Sorted, as kube-openapi marshals its maps.
    const paths = Object.keys(after.body.paths);
    expect(paths).toEqual([...paths].sort());
    // kubectl's protobuf form carries the merged document too.
    const proto = await fetch(`${http.url}/openapi/v2`, { headers: { Accept: MIME_V2_PROTOBUF } });
    expect(proto.status).toBe(200);
    const decoded = OpenAPIV2Document.decode(new Uint8Array(await proto.arrayBuffer())) as Json;
    expect(decoded.paths.path.map((p: Json) => p.name)).toContain('/apis/wardle.example.com/v1alpha1/flunders');
  });

  it('renames a remote definition that differs from the local one of its name, as kube-openapi’s merge', async () => {
    const local = (await get('/openapi/v2')).body;
    const flunder = { type: 'object', properties: { metadata: { $ref: `#/definitions/${OBJECT_META}` } } };
    external.specs = [
      {
        paths: {
          '/apis/wardle.example.com/v1alpha1/flunders': { get: { responses: { '200': { schema: { $ref: `#/definitions/${FLUNDER}` } } } } },
        },
        definitions: { [FLUNDER]: flunder, [OBJECT_META]: { type: 'object', description: 'the remote’s' } },
      },
      {
        // The same remote ObjectMeta again: the renamed one is reused.
        paths: {
          '/apis/other.example.com/v1/things': { get: { responses: { '200': { schema: { $ref: `#/definitions/${OBJECT_META}` } } } } },
        },
        definitions: { [OBJECT_META]: { type: 'object', description: 'the remote’s' } },
      },
    ];
    external.gen++;
    const merged = (await get('/openapi/v2')).body;
    expect(merged.definitions[OBJECT_META]).toEqual(local.definitions[OBJECT_META]);
    expect(merged.definitions[`${OBJECT_META}_v2`]).toEqual({ type: 'object', description: 'the remote’s' });
    expect(merged.definitions[`${OBJECT_META}_v3`]).toBeUndefined();
    expect(merged.definitions[FLUNDER]).toEqual({ type: 'object', properties: { metadata: { $ref: `#/definitions/${OBJECT_META}_v2` } } });
    expect(merged.paths['/apis/other.example.com/v1/things'].get.responses['200'].schema).toEqual({
      $ref: `#/definitions/${OBJECT_META}_v2`,
    });
  });

  it('lists remote v3 group-versions in the index with the hash of their bytes and serves them as fetched', async () => {
    const bytes = Buffer.from(JSON.stringify({ openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1' }, paths: {} }));
    external.docs = new Map([['apis/wardle.example.com/v1alpha1', bytes]]);
    external.gen++;
    const hash = createHash('sha512').update(bytes).digest('hex').toUpperCase();
    const index = await get('/openapi/v3');
    expect(index.body.paths['apis/wardle.example.com/v1alpha1']).toEqual({
      serverRelativeURL: `/openapi/v3/apis/wardle.example.com/v1alpha1?hash=${hash}`,
    });
    // The local group-versions (core, and the reviews' groups) and the remote one.
    expect(Object.keys(index.body.paths)).toEqual([
      'api/v1',
      'apis/authentication.k8s.io/v1',
      'apis/authentication.k8s.io/v1beta1',
      'apis/authorization.k8s.io/v1',
      'apis/wardle.example.com/v1alpha1',
    ]);
    const doc = await get(`/openapi/v3/apis/wardle.example.com/v1alpha1?hash=${hash}`);
    expect(doc.status).toBe(200);
    expect(doc.text).toBe(bytes.toString());
    expect(doc.etag).toBe(`"${hash}"`);
    const stale = await get('/openapi/v3/apis/wardle.example.com/v1alpha1?hash=OLD');
    expect(stale.status).toBe(301);
    expect(stale.location).toBe(`/openapi/v3/apis/wardle.example.com/v1alpha1?hash=${hash}`);

    external.docs = new Map();
    external.gen++;
    expect((await get('/openapi/v3/apis/wardle.example.com/v1alpha1')).status).toBe(404);
  });
});
