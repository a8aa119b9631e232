import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { AuthorizationAttributes } from '@kapi/authz';
import { defineResource, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GenericAPIServer } from '../../server/generic-api-server.ts';
import { type Serving, serve } from '../../serving/serve.ts';
import { splitSchemeNamePort } from './proxy.ts';

/**
 * A kind of a test declaring kube's proxy subresource: a Backend's spec.address is where `backends/<name>/proxy/…`
 * goes (a port in the name replaces the address's, as `pods/<name>:<port>/proxy`).
 */

const GROUP = 'proxy.kapi.dev';
const Backend = defineResource({
  group: GROUP,
  kind: 'Backend',
  plural: 'backends',
  namespaced: true,
  versions: [{ name: 'v1', schema: z.object({ spec: z.object({ address: z.string() }).optional() }) }],
  subresources: {
    proxy: {
      location(obj, { port }) {
        const url = new URL((obj.spec as { address: string }).address);
        if (port) url.port = port;
        return { url };
      },
    },
  },
});
const backends = `/apis/${GROUP}/v1/namespaces/default/backends`;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let remote: Server;
let remotePort: number;
let server: GenericAPIServer;
let serving: Serving;
const seen: Seen[] = [];
const authorized: AuthorizationAttributes[] = [];

beforeAll(async () => {
  remote = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
      if (to !== null) {
        res.writeHead(302, { Location: to }).end();
        return;
      }
      res.setHeader('Content-Type', 'text/plain');
      res.end(`remote saw ${req.method} ${req.url}`);
    });
  });
  remote.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' });
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    socket.on('data', (d) => socket.write(`echo:${d}`));
    socket.on('end', () => socket.end());
  });
  remote.listen(0, '127.0.0.1');
  await once(remote, 'listening');
  remotePort = (remote.address() as AddressInfo).port;
  server = new GenericAPIServer({
    storage: new MemoryStorage(),
    resources: [Namespace, Backend],
    authorizer: {
      async authorize(attrs) {
        authorized.push(attrs);
        return { decision: 'Allow', reason: '' };
      },
    },
  });
  await server.start();
  serving = await serve(server.handler);
  const create = (name: string, address: string) =>
    fetch(`${serving.url}${backends}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Backend', metadata: { name }, spec: { address } }),
    });
  expect((await create('b1', `http://127.0.0.1:${remotePort}/base`)).status).toBe(201);
  expect((await create('root', `http://127.0.0.1:${remotePort}`)).status).toBe(201);
  const closed = createServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  expect((await create('down', `http://127.0.0.1:${deadPort}`)).status).toBe(201);
});

afterAll(async () => {
  await serving.shutdown({ gracePeriodMs: 0 });
  await server.shutdown();
  remote.closeAllConnections();
  await new Promise((r) => remote.close(r));
});

describe('the proxy subresource', () => {
  it("is listed in discovery as <plural>/proxy with kube's connect verbs", async () => {
    const list = (await (await fetch(`${serving.url}/apis/${GROUP}/v1`)).json()) as { resources: { name: string }[] };
    const proxy = list.resources.find((r) => r.name === 'backends/proxy');
    expect(proxy).toMatchObject({
      name: 'backends/proxy',
      namespaced: true,
      kind: 'Backend',
      verbs: ['create', 'delete', 'get', 'patch', 'update'],
    });
  });

  it("forwards any method with the subpath joined to the object's address and the query, authorized as the proxy subresource", async () => {
    seen.length = 0;
    authorized.length = 0;
    const got = await fetch(`${serving.url}${backends}/b1/proxy/hello/world/?x=1&x=2`);
    expect(got.status).toBe(200);
    expect(await got.text()).toBe('remote saw GET /base/hello/world/?x=1&x=2');
    const posted = await fetch(`${serving.url}${backends}/b1/proxy/submit`, { method: 'POST', body: 'payload' });
    expect(await posted.text()).toBe('remote saw POST /base/submit');
    expect(seen[1]?.body).toBe('payload');
    expect(seen[0]?.headers['x-forwarded-uri']).toBe(`${backends}/b1/proxy/hello/world/`);
    const attrs = authorized.filter((a) => a.resource === 'backends');
    expect(attrs.map((a) => [a.verb, a.subresource, a.name])).toEqual([
      ['get', 'proxy', 'b1'],
      ['create', 'proxy', 'b1'],
    ]);
    for (const method of ['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']) {
      const res = await fetch(`${serving.url}${backends}/b1/proxy/m`, { method });
      expect(res.status).toBe(200);
    }
    expect(seen.slice(2).map((s) => s.method)).toEqual(['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']);
  });

  it('redirects GET …/proxy to …/proxy/ when the address has no path, and takes a port from the name', async () => {
    const res = await fetch(`${serving.url}${backends}/root/proxy?a=b`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(`${backends}/root/proxy/?a=b`);
    seen.length = 0;
    const viaPort = await fetch(`${serving.url}${backends}/down:${remotePort}/proxy/p`);
    expect(await viaPort.text()).toBe('remote saw GET /p');
    const bad = await fetch(`${serving.url}${backends}/ftp:b1:1/proxy/`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toBe('invalid backend request "ftp:b1:1"');
  });

  it("points the remote's redirects back through the proxy path, as kube's proxy transport", async () => {
    const location = async (to: string) =>
      (await fetch(`${serving.url}${backends}/b1/proxy/r?to=${encodeURIComponent(to)}`, { redirect: 'manual' })).headers.get('location');
    expect(await location('/login?next=%2Fa')).toBe(`${backends}/b1/proxy/login?next=%2Fa`);
    expect(await location(`http://127.0.0.1:${remotePort}/a/`)).toBe(`${backends}/b1/proxy/a/`);
    expect(await location(`${backends}/b1/proxy/already`)).toBe(`${backends}/b1/proxy/already`);
    expect(await location('https://elsewhere.example.com/x')).toBe('https://elsewhere.example.com/x');
    expect(await location('relative/path')).toBe('relative/path');
  });

  it("answers kube's Status when the object is missing or its address cannot be reached", async () => {
    expect((await fetch(`${serving.url}${backends}/nope/proxy/`)).status).toBe(404);
    const res = await fetch(`${serving.url}${backends}/down/proxy/`);
    expect(res.status).toBe(503);
    const status = (await res.json()) as { reason: string; message: string };
    expect(status.reason).toBe('ServiceUnavailable');
    expect(status.message).toMatch(/^error trying to reach service: dial tcp 127\.0\.0\.1:\d+: connect: connection refused$/);
  });

  it('passes an upgrade through', async () => {
    const { port } = new URL(serving.url);
    const got = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(`GET ${backends}/b1/proxy/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`),
      );
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => {
        text += d;
        if (text.endsWith('\r\n\r\n')) socket.write('hi');
        if (text.endsWith('echo:hi')) socket.end();
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    expect(got).toBe('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\necho:hi');
  });

  it('answers odd names and paths without a 5xx: a bad [scheme:]name[:port] is 400, a traversal stays on the address', async () => {
    const status = async (path: string) => (await fetch(`${serving.url}${backends}/${path}`)).status;
    expect(await status('a:b:c/proxy/')).toBe(400);
    expect(await status('ftp:b1:80/proxy/')).toBe(400);
    expect(await status(':80/proxy/')).toBe(400);
    expect(await status('a:b:c:d/proxy/')).toBe(400);
    expect(await status('https:nope:/proxy/')).toBe(404);
    seen.length = 0;
    expect(await status('b1/proxy/..%2F..%2Fsecret')).toBe(200);
    expect(await status('b1:notaport/proxy/x')).toBe(200);
    // Only the remote of the object's address is ever asked.
    expect(seen.map((s) => s.url)).toEqual(['/base/..%2F..%2Fsecret', '/base/x']);
  });

  it("splits kube's [scheme:]name[:port]", () => {
    expect(splitSchemeNamePort('a')).toEqual({ scheme: '', name: 'a', port: '' });
    expect(splitSchemeNamePort('a:80')).toEqual({ scheme: '', name: 'a', port: '80' });
    expect(splitSchemeNamePort('https:a:443')).toEqual({ scheme: 'https', name: 'a', port: '443' });
    expect(splitSchemeNamePort('ftp:a:1')).toBeUndefined();
    expect(splitSchemeNamePort(':80')).toBeUndefined();
  });
});
