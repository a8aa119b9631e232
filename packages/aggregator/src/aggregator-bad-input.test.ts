import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { type AddressInfo, connect } from 'node:net';
import { mapServiceResolver } from '@kapi/admission';
import { selfSignedServingCertificate } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteAPIService } from './test-support/apiservice.ts';
import { type Json, send, startChain, type TestChain } from './test-support/chain.ts';

/**
 * Hostile input as users and remote servers send it: APIServices of wrong types and sizes, remote servers answering
 * garbage discovery and OpenAPI (invalid JSON, wrong types, huge and endless documents, wrong content types), odd
 * paths and upgrades through the proxy. The aggregator answers them as kube would (4xx, or kube's own 5xx) and its
 * discovery, OpenAPI and proxy keep serving everything else.
 */

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const bearer = { Authorization: 'Bearer alice' };
const MiB = 1024 * 1024;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The good remote's port and the paths it was asked for. */
let goodPort = 0;
const goodSeen: string[] = [];
let openAPIUser: string | string[] | undefined;
let discoveryGroup: string | string[] | undefined;

/** A remote whose availability check passes (its /apis/<g>/v1 answers 200) and whose other documents are `bad`. */
const remotes: Record<string, Handler> = {
  good: (req, res) => {
    goodSeen.push(req.url ?? '');
    if (req.url === '/openapi/v2') openAPIUser = req.headers['x-remote-user'];
    if (req.url === '/apis') discoveryGroup = req.headers['x-remote-group'];
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/apis/gone.bad.example/v1') res.end('{}');
    else if (req.url === '/apis/good.bad.example/v1')
      res.end(
        JSON.stringify({
          kind: 'APIResourceList',
          groupVersion: 'good.bad.example/v1',
          resources: [{ name: 'things', singularName: 'thing', namespaced: true, kind: 'Thing', verbs: ['get', 'list'] }],
        }),
      );
    else if (req.url === '/openapi/v2')
      res.end(
        JSON.stringify({
          swagger: '2.0',
          paths: {
            '/apis/good.bad.example/v1/things': { get: { responses: { '200': { schema: { $ref: '#/definitions/example.Thing' } } } } },
          },
          definitions: { 'example.Thing': { type: 'object' } },
        }),
      );
    else if (req.url?.startsWith('/apis/good.bad.example/v1/'))
      res.end(JSON.stringify({ url: req.url, user: req.headers['x-remote-user'] }));
    else res.writeHead(404).end('{}');
  },
  badjson: (req, res) => {
    res.setHeader('Content-Type', req.url === '/apis' ? AGGREGATED : 'application/json');
    res.end('{"items": [nope');
  },
  types: (req, res) => {
    if (req.url === '/apis') {
      res.setHeader('Content-Type', AGGREGATED);
      res.end(
        JSON.stringify({
          kind: 'APIGroupDiscoveryList',
          items: [
            { metadata: { name: 'types.bad.example' }, versions: [{ version: 'v1', resources: 'nope' }] },
            { metadata: { name: 5 }, versions: { a: 1 } },
          ],
        }),
      );
    } else if (req.url === '/openapi/v2') res.end(JSON.stringify({ swagger: '2.0', paths: { '/x': 5 }, definitions: [1, 2] }));
    else if (req.url === '/openapi/v3') res.end(JSON.stringify({ paths: { 'apis/types.bad.example/v1': { serverRelativeURL: 5 } } }));
    else res.end(JSON.stringify({ resources: [{ name: 7, verbs: 'get' }] }));
  },
  types2: (req, res) => {
    if (req.url === '/apis') {
      res.setHeader('Content-Type', AGGREGATED);
      res.end(
        JSON.stringify({
          items: [
            {
              metadata: { name: 'types2.bad.example' },
              versions: [{ version: 'v1', resources: [{ resource: 5, verbs: 'get', responseKind: 'x', subresources: 3 }, null] }],
            },
          ],
        }),
      );
    } else if (req.url === '/openapi/v2') res.end('null');
    else if (req.url === '/openapi/v3')
      // A document on another server: the aggregator must not go there (with its proxy client certificate).
      res.end(JSON.stringify({ paths: { 'apis/types2.bad.example/v1': { serverRelativeURL: `//127.0.0.1:${goodPort}/stolen?hash=1` } } }));
    else res.end('{}');
  },
  deep: (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/openapi/v2')
      res.end(
        JSON.stringify({
          swagger: '2.0',
          paths: { '/apis/deep.bad.example/v1/x': { get: 5, parameters: 'x', put: { responses: 7, parameters: [null, 3] } } },
          definitions: { 'deep.X': { type: 5, properties: 'x', required: 'y', items: [1], $ref: 9 } },
        }),
      );
    else res.end('{}');
  },
  huge: (req, res) => {
    res.setHeader('Content-Type', req.url === '/apis' ? AGGREGATED : 'application/json');
    if (req.url === '/apis/huge.bad.example/v1') res.end('{}');
    else res.end(JSON.stringify({ items: [], padding: 'x'.repeat(10 * MiB) }));
  },
  endless: (req, res) => {
    res.setHeader('Content-Type', req.url === '/apis' ? AGGREGATED : 'application/json');
    if (req.url === '/apis/endless.bad.example/v1') {
      res.end('{}');
      return;
    }
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    res.write('{"items":[');
    pump();
  },
  wrongct: (_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end('<html><body>hello</body></html>');
  },
};

/** The resolver's Services: the tests may take one away. */
const addresses: Record<string, string> = {};
let chain: TestChain;
const servers: Server[] = [];

const apiService = (group: string, spec: Json = {}): Json =>
  remoteAPIService(
    group,
    'v1',
    { namespace: 'bad', name: group.split('.')[0] as string, port: 443 },
    { insecureSkipTLSVerify: true, ...spec },
  );

async function untilAvailable(name: string): Promise<void> {
  for (;;) {
    const r = await send('GET', `${chain.url}${APISERVICES}/${name}`, undefined, bearer);
    if (r.body?.status?.conditions?.find((c: Json) => c.type === 'Available')?.status === 'True') return;
    await new Promise((res) => setTimeout(res, 10));
  }
}

/** The aggregated /apis document's version of `group` once it is Current with resources. */
async function untilDiscovered(group: string): Promise<Json> {
  for (;;) {
    const r = await fetch(`${chain.url}/apis`, { headers: { ...bearer, Accept: AGGREGATED } });
    expect(r.status).toBe(200);
    const doc = (await r.json()) as Json;
    const v = doc.items.find((g: Json) => g.metadata.name === group)?.versions?.[0];
    if (v?.freshness === 'Current' && v.resources.length > 0) return v;
    await new Promise((res) => setTimeout(res, 10));
  }
}

/** A raw HTTP/1.1 exchange with the aggregator: what came back before it closed (or 2 s of it). */
function raw(request: string): Promise<string> {
  const { port } = new URL(chain.url);
  return new Promise<string>((resolve) => {
    let text = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      text += d;
      if (/\r\n\r\n/.test(text)) socket.end();
    });
    socket.on('error', () => resolve(text));
    socket.on('close', () => resolve(text));
  });
}

beforeAll(async () => {
  const cert = await selfSignedServingCertificate({ hosts: ['localhost'] });
  for (const [name, handler] of Object.entries(remotes)) {
    const server = createServer({ cert: cert.cert, key: cert.key }, handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    if (name === 'good') goodPort = (server.address() as AddressInfo).port;
    addresses[`bad/${name}`] = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  chain = await startChain([], new MemoryStorage(), {
    serve: true,
    provider: { serviceResolver: mapServiceResolver(addresses) },
    authentication: {
      authenticator: {
        authenticate: async (req) =>
          req.headers.authorization === 'Bearer alice' ? { user: { name: 'alice', groups: ['system:masters'] } } : null,
      },
    },
  });
  // The hostile ones first: the good one's discovery must not wait behind them.
  for (const name of Object.keys(remotes).reverse())
    expect((await send('POST', `${chain.url}${APISERVICES}`, apiService(`${name}.bad.example`), bearer)).status).toBe(201);
  for (const name of Object.keys(remotes)) await untilAvailable(`v1.${name}.bad.example`);
});

afterAll(async () => {
  await chain?.stop();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

describe('remote servers answering garbage', () => {
  it('leave discovery serving the others: legacy and aggregated /apis, the good group with its resources', async () => {
    const good = await untilDiscovered('good.bad.example');
    // Asked for as kube's discovery manager asks.
    expect(discoveryGroup).toBe('system:masters');
    expect(good.resources.map((r: Json) => r.resource)).toEqual(['things']);
    const legacy = await send('GET', `${chain.url}/apis`, undefined, bearer);
    expect(legacy.status).toBe(200);
    const groups = legacy.body.groups.map((g: Json) => g.name);
    for (const name of Object.keys(remotes)) expect(groups).toContain(`${name}.bad.example`);
    const aggregated = await fetch(`${chain.url}/apis`, { headers: { ...bearer, Accept: AGGREGATED } });
    const doc = (await aggregated.json()) as Json;
    // Every garbage document is refused whole (as Go's decoding fails): listed Stale, without resources.
    for (const name of ['badjson', 'types', 'types2', 'endless', 'wrongct']) {
      const v = doc.items.find((g: Json) => g.metadata.name === `${name}.bad.example`)?.versions?.[0];
      expect(v, name).toMatchObject({ version: 'v1' });
      for (const r of v.resources) expect(typeof r.resource, name).toBe('string');
    }
    const proto = await fetch(`${chain.url}/apis`, {
      headers: { ...bearer, Accept: 'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
    });
    expect(proto.status).toBe(200);
    expect((await send('GET', `${chain.url}/apis/types.bad.example`, undefined, bearer)).status).toBe(200);
  });

  it('leave OpenAPI v2 and v3 serving, with the good remote merged', async () => {
    await untilDiscovered('good.bad.example');
    for (;;) {
      const v2 = await send('GET', `${chain.url}/openapi/v2`, undefined, bearer);
      expect(v2.status).toBe(200);
      if (v2.body.definitions['example.Thing']) {
        // Only the APIService's /apis/<group>/<version>/ paths and what they use, asked for as kube's downloader.
        expect(v2.body.paths['/apis/other.example/v1/others']).toBeUndefined();
        expect(v2.body.definitions['example.Other']).toBeUndefined();
        expect(openAPIUser).toBe('system:aggregator');
        break;
      }
      await new Promise((res) => setTimeout(res, 10));
    }
    const proto = await fetch(`${chain.url}/openapi/v2`, {
      headers: { ...bearer, Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(proto.status).toBe(200);
    const v3 = await send('GET', `${chain.url}/openapi/v3`, undefined, bearer);
    expect(v3.status).toBe(200);
    // The v3 document of types2 is asked of its own server, whatever host its index names (kube asks its proxy).
    while (!v3.body.paths['apis/types2.bad.example/v1']) {
      await new Promise((res) => setTimeout(res, 10));
      v3.body = (await send('GET', `${chain.url}/openapi/v3`, undefined, bearer)).body;
    }
    expect(goodSeen).not.toContain('/stolen?hash=1');
    for (const [key, entry] of Object.entries(v3.body.paths as Record<string, Json>))
      expect(
        (
          await fetch(`${chain.url}/openapi/v3/${key}${entry.serverRelativeURL.slice(entry.serverRelativeURL.indexOf('?'))}`, {
            headers: bearer,
          })
        ).status,
      ).toBe(200);
  });

  it('leave the proxy and the chain serving', async () => {
    const r = await send('GET', `${chain.url}/apis/good.bad.example/v1/namespaces/a/things`, undefined, bearer);
    expect(r).toEqual({ status: 200, body: { url: '/apis/good.bad.example/v1/namespaces/a/things', user: 'alice' } });
    expect((await send('GET', `${chain.url}/api/v1/namespaces`, undefined, bearer)).status).toBe(200);
  });
});

describe('the proxy, in the order kube checks', () => {
  it('answers a caBundle that makes no transport 500 before it resolves the Service', async () => {
    addresses['bad/gone'] = addresses['bad/good'] as string;
    const spec = { insecureSkipTLSVerify: false, caBundle: Buffer.from('not a pem').toString('base64') };
    expect((await send('POST', `${chain.url}${APISERVICES}`, apiService('gone.bad.example', spec), bearer)).status).toBe(201);
    await untilAvailable('v1.gone.bad.example');
    delete addresses['bad/gone'];
    const r = await fetch(`${chain.url}/apis/gone.bad.example/v1/things`, { headers: bearer });
    expect(r.status).toBe(500);
    expect(await r.text()).toBe('unable to load root certificates: unable to parse bytes as PEM block\n');
  });
});

describe('APIServices of wrong types and sizes', () => {
  const cases: [string, Json][] = [
    ['spec a string', { spec: 'x' }],
    ['groupPriorityMinimum a string', { spec: { groupPriorityMinimum: '10' } }],
    ['groupPriorityMinimum huge', { spec: { groupPriorityMinimum: 1e300 } }],
    ['versionPriority fractional', { spec: { versionPriority: 1.5 } }],
    ['port huge', { spec: { service: { namespace: 'bad', name: 'good', port: 99999999999 } } }],
    ['port out of range', { spec: { service: { namespace: 'bad', name: 'good', port: 70000 } } }],
    ['service a number', { spec: { service: 5 } }],
    ['caBundle a number', { spec: { caBundle: 123, insecureSkipTLSVerify: false } }],
    ['insecureSkipTLSVerify a string', { spec: { insecureSkipTLSVerify: 'yes' } }],
    ['insecureSkipTLSVerify with a caBundle', { spec: { caBundle: Buffer.from('x').toString('base64') } }],
    ['a 100 kB version', { spec: { version: 'v'.repeat(100_000) } }],
    ['a group with a slash', { spec: { group: 'a/b.example' } }],
    ['version a number', { spec: { version: 5 } }],
    ['group a number', { spec: { group: 5 } }],
    ['service name a number', { spec: { service: { namespace: 'bad', name: 5, port: 443 } } }],
  ];
  for (const [what, patch] of cases)
    it(`refuses ${what} with a 4xx`, async () => {
      const base = apiService('odd.bad.example');
      const body = { ...base, ...patch, spec: typeof patch.spec === 'object' ? { ...base.spec, ...patch.spec } : patch.spec };
      const r = await send('POST', `${chain.url}${APISERVICES}`, body, bearer);
      expect(r.status, JSON.stringify(r.body)).toBeGreaterThanOrEqual(400);
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
    });

  it('refuses a status of the wrong types with a 4xx', async () => {
    const url = `${chain.url}${APISERVICES}/v1.good.bad.example/status`;
    for (const conditions of ['x', [null], [{ type: 'Available', status: 5 }]]) {
      const current = await send('GET', url, undefined, bearer);
      const r = await send('PUT', url, { ...current.body, status: { conditions } }, bearer);
      expect(r.status, JSON.stringify(conditions)).toBeGreaterThanOrEqual(400);
      expect(r.status, JSON.stringify(conditions)).toBeLessThan(500);
    }
  });

  it('refuses a name that is not version.group', async () => {
    const body = { ...apiService('odd.bad.example'), metadata: { name: 'v2.odd.bad.example' } };
    expect((await send('POST', `${chain.url}${APISERVICES}`, body, bearer)).status).toBe(422);
  });
});

describe('requests through the proxy', () => {
  it("go without the client's own X-Remote-* headers, whatever their case", async () => {
    const r = await send('GET', `${chain.url}/apis/good.bad.example/v1/namespaces/a/things`, undefined, {
      ...bearer,
      'X-REMOTE-USER': 'mallory',
      'x-remote-uid': '0',
      'X-Remote-Extra-Scopes': 'admin',
      'X-Remote-Extra-': 'x',
    });
    expect(r).toEqual({ status: 200, body: { url: '/apis/good.bad.example/v1/namespaces/a/things', user: 'alice' } });
  });

  it('go with odd paths to the remote, never answered 500', async () => {
    for (const path of ['/apis/good.bad.example/v1/a:b:c', '/apis/good.bad.example/v1/..%2F..%2Fx', '/apis/good.bad.example/v1/%00%ff']) {
      const r = await fetch(`${chain.url}${path}`, { headers: bearer });
      expect(r.status, path).toBeLessThan(500);
    }
    const got = await raw('GET /apis/good.bad.example/v1/../../../api/v1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer alice\r\n\r\n');
    expect(got).not.toMatch(/^HTTP\/1\.1 5/);
  });

  // kube answers an upgrade the remote did not switch with its responder's 503 `invalid upgrade response`.
  it('answer upgrades with bad headers without a 500 or a crash', async () => {
    for (const headers of [
      'Connection: Upgrade\r\nUpgrade: \r\n',
      'Connection: Upgrade\r\n',
      'Connection: upgrade, close\r\nUpgrade: websocket\r\n',
      'Connection: Upgrade\r\nUpgrade: websocket\r\nContent-Length: 5\r\n\r\nhello',
    ]) {
      const got = await raw(
        `GET /apis/good.bad.example/v1/namespaces/a/things/x/attach HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer alice\r\n${headers}\r\n`,
      );
      expect(got, headers).toMatch(/^HTTP\/1\.1 (101|[2-4]\d\d|503 .*\r\n\r\ninvalid upgrade response)/s);
    }
    expect((await send('GET', `${chain.url}/apis/good.bad.example/v1/namespaces/a/things`, undefined, bearer)).status).toBe(200);
  });

  // kube's body cap is the handlers' that read the body (limitedReadBody): its proxy forwards any size.
  it("stream a body over the chain's cap to the remote, declared or chunked", async () => {
    const url = `${chain.url}/apis/good.bad.example/v1/namespaces/a/things`;
    const declared = await fetch(url, {
      method: 'POST',
      headers: { ...bearer, 'Content-Type': 'application/json' },
      body: 'x'.repeat(8 * MiB),
    });
    expect(declared.status).toBe(200);
    const chunk = new TextEncoder().encode('x'.repeat(MiB));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 8) c.enqueue(chunk);
        else c.close();
      },
    });
    const streamed = await fetch(url, {
      method: 'POST',
      headers: { ...bearer, 'Content-Type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(200);
  });
});
