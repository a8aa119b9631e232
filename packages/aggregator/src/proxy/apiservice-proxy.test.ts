import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { mapServiceResolver } from '@kapi/admission';
import { clientCertificateAuthority, issueClientCertificate, selfSignedServingCertificate } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteAPIService } from '../test-support/apiservice.ts';
import { type Json, send, startChain, type TestChain } from '../test-support/chain.ts';
import { goQueryEncode, headerKeyEscape } from './auth-proxy-headers.ts';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const GV = '/apis/wardle.example.com/v1alpha1';

/** What the remote aggregated server saw of one request. */
interface Seen {
  url: string;
  cn: string | undefined;
  headers: IncomingMessage['headersDistinct'];
}

/** A stand-in aggregated server: discovery, a watch it streams by hand, an echo upgrade, and everything else echoed. */
interface Remote {
  server: Server;
  port: number;
  seen: Seen[];
  /** Writes one watch event to the open watch. */
  watchWrite?: (line: string) => void;
}

let dir: string;
let remote: Remote;
let chain: TestChain;
const bearer = { Authorization: 'Bearer alice' };

async function startRemote(cert: string, key: string): Promise<Remote> {
  const r: Remote = { server: undefined as unknown as Server, port: 0, seen: [] };
  const record = (req: IncomingMessage): void => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    r.seen.push({ url: req.url ?? '', cn: peer?.subject?.CN as string | undefined, headers: req.headersDistinct });
  };
  r.server = createServer({ cert, key, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    record(req);
    res.setHeader('Content-Type', 'application/json');
    if (req.url === GV) {
      res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'wardle.example.com/v1alpha1', resources: [] }));
      return;
    }
    if (req.url?.endsWith('/redirect')) {
      res.writeHead(302, { Location: 'https://elsewhere.example.com/' }).end();
      return;
    }
    if (req.url?.includes('watch=true')) {
      res.flushHeaders();
      r.watchWrite = (line) => res.write(`${line}\n`);
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    res.setHeader('Access-Control-Allow-Origin', '*');
    req.on('end', () => res.end(JSON.stringify({ method: req.method, url: req.url, body })));
  });
  r.server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    record(req);
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    socket.on('data', (d) => socket.write(`${req.headers['x-remote-user']}:${d}`));
    socket.on('end', () => socket.end());
  });
  await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
  r.port = (r.server.address() as AddressInfo).port;
  return r;
}

const apiService = (version: string, serviceName: string, caBundle: string): Json =>
  remoteAPIService('wardle.example.com', version, { namespace: 'wardle', name: serviceName, port: 443 }, { caBundle });

/** Polls the APIService until its Available condition has `status` (the availability controller sets it). */
async function untilAvailable(name: string, status: string): Promise<void> {
  for (;;) {
    const r = await send('GET', `${chain.url}${APISERVICES}/${name}`, undefined, bearer);
    if (r.body?.status?.conditions?.find((c: Json) => c.type === 'Available')?.status === status) return;
    await new Promise((res) => setTimeout(res, 10));
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kapi-apiservice-proxy-'));
  const remoteServing = await selfSignedServingCertificate({ hosts: ['api.wardle.svc'] });
  const ca = await clientCertificateAuthority({ dir });
  const client = await issueClientCertificate(ca, { user: 'front-proxy-client' });
  remote = await startRemote(remoteServing.cert, remoteServing.key);
  chain = await startChain([], new MemoryStorage(), {
    serve: true,
    provider: {
      serviceResolver: mapServiceResolver({ 'wardle/api': `https://127.0.0.1:${remote.port}`, 'wardle/down': 'https://127.0.0.1:1' }),
      proxyClientCert: client.cert,
      proxyClientKey: client.key,
    },
    authentication: {
      authenticator: {
        authenticate: async (req) =>
          req.headers.authorization === 'Bearer alice'
            ? {
                user: {
                  name: 'alice',
                  uid: 'u-1',
                  groups: ['devs', 'system:authenticated'],
                  extra: { 'example.org/scopes': ['read', 'write'], 'Caps Key': ['x'] },
                },
              }
            : null,
      },
    },
  });
  const caBundle = Buffer.from(remoteServing.ca).toString('base64');
  expect((await send('POST', `${chain.url}${APISERVICES}`, apiService('v1alpha1', 'api', caBundle), bearer)).status).toBe(201);
  expect((await send('POST', `${chain.url}${APISERVICES}`, apiService('v1beta1', 'down', caBundle), bearer)).status).toBe(201);
  const garbage = Buffer.from('not a pem').toString('base64');
  expect((await send('POST', `${chain.url}${APISERVICES}`, apiService('v1beta2', 'api', garbage), bearer)).status).toBe(201);
  await untilAvailable('v1alpha1.wardle.example.com', 'True');
  // Its availability check does not verify the serving certificate, as kube's.
  await untilAvailable('v1beta2.wardle.example.com', 'True');
});

afterAll(async () => {
  await chain?.stop();
  remote?.server.closeAllConnections();
  await new Promise((r) => remote?.server.close(r));
  await rm(dir, { recursive: true, force: true });
});

describe('the aggregator proxy to remote APIServices', () => {
  it('sends the authenticated user as X-Remote-* headers with the proxy client certificate, never the caller credentials', async () => {
    remote.seen.length = 0;
    const res = await fetch(`${chain.url}${GV}/namespaces/default/flunders?z=1&a=b%20c`, {
      method: 'POST',
      headers: { ...bearer, 'Content-Type': 'application/json', 'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters' },
      body: JSON.stringify({ spec: {} }),
    });
    expect(res.status).toBe(200);
    // kube's proxy transport drops the remote's CORS headers.
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(await res.json()).toEqual({ method: 'POST', url: `${GV}/namespaces/default/flunders?a=b+c&z=1`, body: '{"spec":{}}' });
    // (The availability controller's discovery checks are seen too.)
    const seen = remote.seen.find((s) => s.url.includes('/flunders'));
    expect(seen?.cn).toBe('front-proxy-client');
    expect(seen?.headers['x-remote-user']).toEqual(['alice']);
    expect(seen?.headers['x-remote-uid']).toEqual(['u-1']);
    expect(seen?.headers['x-remote-group']).toEqual(['devs', 'system:authenticated']);
    expect(seen?.headers['x-remote-extra-example.org%2fscopes']).toEqual(['read', 'write']);
    expect(seen?.headers['x-remote-extra-caps%20key']).toEqual(['x']);
    expect(seen?.headers.authorization).toBeUndefined();
    expect(seen?.headers.host).toEqual([`127.0.0.1:${remote.port}`]);
    expect(seen?.headers['x-forwarded-uri']).toEqual([`${GV}/namespaces/default/flunders`]);
    expect(seen?.headers['x-forwarded-proto']).toEqual(['https']);
    expect(seen?.headers['x-forwarded-for']).toEqual(['127.0.0.1']);
  });

  it("refuses to forward the remote's redirects (kube's --aggregator-reject-forwarding-redirect)", async () => {
    const res = await fetch(`${chain.url}${GV}/redirect`, { headers: bearer, redirect: 'manual' });
    expect(res.status).toBe(502);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toBe('the backend attempted to redirect this request, which is not permitted');
  });

  it('streams a watch: events arrive while the response is still open', async () => {
    const events: string[] = [];
    let client!: import('node:http').ClientRequest;
    const got = new Promise<void>((resolve, reject) => {
      client = httpRequest(`${chain.url}${GV}/namespaces/default/flunders?watch=true`, { headers: bearer }, (res) => {
        expect(res.statusCode).toBe(200);
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          events.push(d);
          if (events.join('').includes('MODIFIED')) resolve();
        });
      });
      client.on('error', reject);
      client.end();
    });
    while (!remote.watchWrite) await new Promise((r) => setTimeout(r, 5));
    remote.watchWrite('{"type":"ADDED"}');
    remote.watchWrite('{"type":"MODIFIED"}');
    await got;
    expect(events.join('')).toBe('{"type":"ADDED"}\n{"type":"MODIFIED"}\n');
    client.destroy();
  });

  it('passes a connection upgrade through, authenticated and as the user', async () => {
    const { port } = new URL(chain.url);
    const got = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(
          `GET ${GV}/namespaces/default/flunders/f/attach HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer alice\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`,
        ),
      );
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => {
        text += d;
        if (text.endsWith('\r\n\r\n')) socket.write('ping');
        if (text.endsWith('alice:ping')) socket.end();
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    expect(got).toBe('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nalice:ping');
  });

  it('refuses an unauthenticated upgrade before it reaches the remote', async () => {
    const { port } = new URL(chain.url);
    const got = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(`GET ${GV}/namespaces/default/flunders/f/attach HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`),
      );
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.on('close', () => resolve(text));
    });
    expect(got).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
  });

  it('answers 503 `service unavailable` for a remote APIService that is not Available, and leaves local ones to the chain', async () => {
    const res = await fetch(`${chain.url}/apis/wardle.example.com/v1beta1/flunders`, { headers: bearer });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe('service unavailable\n');
    // apiregistration.k8s.io/v1 is a local APIService: served by the chain.
    expect((await send('GET', `${chain.url}${APISERVICES}`, undefined, bearer)).status).toBe(200);
  });

  it('answers 500 with the error for an APIService whose caBundle makes no transport', async () => {
    const res = await fetch(`${chain.url}/apis/wardle.example.com/v1beta2/flunders`, { headers: bearer });
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('unable to load root certificates: unable to parse bytes as PEM block\n');
  });

  it("answers kube's 503 with Go's dial error when the remote is down", async () => {
    remote.server.closeAllConnections();
    await new Promise((r) => remote.server.close(r));
    // Until the availability controller's next check the APIService stays Available: the dial itself fails.
    const res = await fetch(`${chain.url}${GV}/namespaces/default/flunders/f`, { headers: bearer });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe(`error trying to reach service: dial tcp 127.0.0.1:${remote.port}: connect: connection refused\n`);
  });
});

describe('auth proxy header helpers', () => {
  it("escape extra keys as client-go's headerKeyEscape and encode queries as Go's url.Values", () => {
    expect(headerKeyEscape('example.org/scopes')).toBe('example.org%2Fscopes');
    expect(headerKeyEscape('100%')).toBe('100%25');
    expect(headerKeyEscape('ünï')).toBe('%C3%BCn%C3%AF');
    expect(headerKeyEscape("a-b_c.d~e!#$&'*+^`|")).toBe("a-b_c.d~e!#$&'*+^`|");
    expect(goQueryEncode(new URLSearchParams('watch=1&fieldSelector=a%3Db&labelSelector=x in (a,b)&a=2&a=1'))).toBe(
      'a=2&a=1&fieldSelector=a%3Db&labelSelector=x+in+%28a%2Cb%29&watch=1',
    );
  });
});
