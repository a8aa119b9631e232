import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect as http2Connect } from 'node:http2';
import { Agent, createServer, type Server } from 'node:https';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCA, type TestCA } from '../../../authn/src/test-support/test-ca.ts';
import type { RequestContext } from '../filters/context.ts';
import { selfSignedServingCertificate } from '../serving/self-signed.ts';
import { type Serving, serve } from '../serving/serve.ts';
import { proxyRequest } from './upgrade-aware-proxy.ts';

/** What the remote saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A raw HTTP/1.1 exchange on a fresh connection: writes `text`, resolves with everything read until it closes. */
function rawExchange(url: string, text: string, onData?: (sofar: string, socket: Socket) => void): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      got += d;
      onData?.(got, socket);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
  });
}

describe('proxyRequest (upgrade-aware reverse proxy)', () => {
  let ca: TestCA;
  let remote: Server;
  let remoteURL: URL;
  let agent: Agent;
  let front: Serving;
  let handler: (ctx: RequestContext) => Promise<void>;
  const seen: Seen[] = [];
  /** Called with each response of the remote for paths under /watch, to stream by hand. */
  let watchResponse: ((res: import('node:http').ServerResponse) => void) | undefined;
  let remoteClosed: Promise<void> = Promise.resolve();
  /** Which location the front proxies to (per test). */
  let target: () => URL;

  beforeAll(async () => {
    ca = await makeTestCA('remote-ca');
    const serving = await ca.issue('CN=remote.ns.svc', 'server', ['remote.ns.svc']);
    remote = createServer(serving, (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        if (req.url?.startsWith('/watch')) {
          remoteClosed = new Promise((r) => res.once('close', () => r()));
          watchResponse?.(res);
          return;
        }
        res.setHeader('Content-Type', 'application/json');
        res.setHeader('X-Remote-Answer', ['a', 'b']);
        res.setHeader('Connection', 'keep-alive, X-Private');
        res.setHeader('X-Private', 'hop');
        res.statusCode = req.url?.startsWith('/missing') ? 404 : 201;
        res.end(JSON.stringify({ echo: body }));
      });
    });
    remote.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: head.toString() });
      if (req.url === '/refuse') {
        socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nnot ok');
        return;
      }
      if (req.url === '/no-switch') {
        socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
      if (head.length) socket.write(`echo:${head}`);
      socket.on('data', (d) => socket.write(`echo:${d}`));
      socket.on('end', () => socket.end());
    });
    remote.listen(0, '127.0.0.1');
    await once(remote, 'listening');
    remoteURL = new URL(`https://127.0.0.1:${(remote.address() as AddressInfo).port}`);
    agent = new Agent({ keepAlive: true, ca: ca.pem, servername: 'remote.ns.svc' });
    target = () => remoteURL;
    handler = async (ctx: RequestContext) => {
      if (ctx.url.pathname.startsWith('/local')) {
        ctx.res.statusCode = 404;
        ctx.res.end('not proxied');
        return;
      }
      const url = new URL(target());
      url.pathname = ctx.url.pathname;
      url.search = ctx.url.search;
      await proxyRequest(
        ctx,
        { url, agent },
        {
          headers: (h) => {
            h['x-added'] = 'yes';
          },
        },
      );
    };
    front = await serve(handler);
  });
  afterAll(async () => {
    await front.shutdown({ gracePeriodMs: 0 });
    agent.destroy();
    remote.closeAllConnections();
    await new Promise((r) => remote.close(r));
  });

  it('forwards method, path, query, end-to-end headers and body, and streams the answer back without hop-by-hop headers', async () => {
    seen.length = 0;
    const res = await fetch(`${front.url}/apis/g/v1/things?b=2&a=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-custom': 'c', connection: 'keep-alive' },
      body: '{"x":1}',
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ echo: '{"x":1}' });
    expect(res.headers.get('x-remote-answer')).toBe('a, b');
    expect(res.headers.get('x-private')).toBeNull();
    const [req] = seen;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/apis/g/v1/things?b=2&a=1');
    expect(req?.body).toBe('{"x":1}');
    expect(req?.headers['x-custom']).toBe('c');
    expect(req?.headers['x-added']).toBe('yes');
    expect(req?.headers.host).toBe(remoteURL.host);
    expect(req?.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(req?.headers['keep-alive']).toBeUndefined();
  });

  it('passes error answers of the remote through unchanged', async () => {
    const res = await fetch(`${front.url}/missing`);
    expect(res.status).toBe(404);
  });

  it('streams a watch: each chunk reaches the client while the response is still open, and a client that leaves closes the remote request', async () => {
    let write: ((s: string) => void) | undefined;
    const ready = new Promise<void>((r) => {
      watchResponse = (res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.flushHeaders();
        write = (s) => res.write(s);
        r();
      };
    });
    const events: string[] = [];
    let client!: import('node:http').ClientRequest;
    const firstTwo = new Promise<void>((resolve, reject) => {
      client = httpRequest(`${front.url}/watch/things?watch=1`, (res) => {
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          events.push(d);
          if (events.join('').split('\n').length > 2) resolve();
          else write?.('{"type":"MODIFIED"}\n');
        });
      });
      client.on('error', reject);
      client.end();
    });
    await ready;
    write?.('{"type":"ADDED"}\n');
    await firstTwo;
    expect(events.join('')).toBe('{"type":"ADDED"}\n{"type":"MODIFIED"}\n');
    client.destroy();
    await remoteClosed;
  });

  it("answers a remote that cannot be dialled with kube's 503 and Go's error text", async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    target = () => new URL(`https://127.0.0.1:${port}`);
    try {
      const res = await fetch(`${front.url}/apis/g/v1`);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toBe(`error trying to reach service: dial tcp 127.0.0.1:${port}: connect: connection refused\n`);
    } finally {
      target = () => remoteURL;
    }
  });

  it('refuses a remote whose serving certificate the CA does not sign', async () => {
    const other = await makeTestCA('other');
    const stranger = new Agent({ ca: other.pem, servername: 'remote.ns.svc' });
    const s = await serve((ctx) => proxyRequest(ctx, { url: new URL(`${remoteURL.origin}/x`), agent: stranger }));
    try {
      const res = await fetch(`${s.url}/x`);
      expect(res.status).toBe(503);
      expect(await res.text()).toBe(
        'error trying to reach service: tls: failed to verify certificate: x509: certificate signed by unknown authority\n',
      );
    } finally {
      await s.shutdown({ gracePeriodMs: 0 });
      stranger.destroy();
    }
  });

  it('passes a connection upgrade through: the 101 and then raw bytes both ways', async () => {
    seen.length = 0;
    const got = await rawExchange(
      front.url,
      'GET /exec?x=1 HTTP/1.1\r\nHost: front\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nfirst',
      (sofar, socket) => {
        if (sofar.endsWith('echo:first')) socket.write('second');
        if (sofar.endsWith('echo:second')) socket.end();
      },
    );
    expect(got.startsWith('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n')).toBe(true);
    expect(got.endsWith('echo:firstecho:second')).toBe(true);
    const [req] = seen;
    expect(req?.url).toBe('/exec?x=1');
    expect(req?.headers.upgrade).toBe('echo');
    expect(req?.headers['x-added']).toBe('yes');
    // The proxy's in-flight count goes back to zero once the upgraded connection closed.
    while (front.inFlight().size > 0) await new Promise((r) => setImmediate(r));
    expect(front.inFlight().size).toBe(0);
  });

  it("echoes an upgrade the remote refuses, and answers a remote that does not switch with kube's error", async () => {
    const refused = await rawExchange(front.url, 'GET /refuse HTTP/1.1\r\nHost: front\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    expect(refused).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(refused.endsWith('not ok')).toBe(true);
    const noSwitch = await rawExchange(front.url, 'GET /no-switch HTTP/1.1\r\nHost: front\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    expect(noSwitch).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(noSwitch.endsWith('invalid upgrade response: status code 200\n')).toBe(true);
  });

  it('answers an upgrade request the chain does not proxy as any request, then closes the connection', async () => {
    const got = await rawExchange(front.url, 'GET /local HTTP/1.1\r\nHost: front\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    expect(got).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect(got).toMatch(/\r\nConnection: close\r\n/i);
    expect(got.endsWith('not proxied')).toBe(true);
  });

  it('over TLS, streams to an HTTP/2 client and passes an HTTP/1.1 upgrade on the same port', async () => {
    const cert = await selfSignedServingCertificate();
    const secure = await serve(handler, { tls: cert });
    const { port } = new URL(secure.url);
    try {
      let write: ((s: string) => void) | undefined;
      watchResponse = (res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.flushHeaders();
        write = (line) => res.write(line);
        write('{"type":"ADDED"}\n');
      };
      const session = http2Connect(secure.url, { ca: cert.ca });
      const events = await new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':path': '/watch/h2?watch=1' });
        let got = '';
        stream.setEncoding('utf8');
        stream.on('data', (d: string) => {
          got += d;
          if (got === '{"type":"ADDED"}\n') write?.('{"type":"DELETED"}\n');
          if (got.includes('DELETED')) resolve(got);
        });
        stream.on('error', reject);
      });
      expect(events).toBe('{"type":"ADDED"}\n{"type":"DELETED"}\n');
      session.destroy();
      await remoteClosed;

      const upgraded = await new Promise<string>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), ca: cert.ca, ALPNProtocols: ['http/1.1'] }, () =>
          socket.write('GET /tls-exec HTTP/1.1\r\nHost: front\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n'),
        );
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (d: string) => {
          text += d;
          if (text.endsWith('\r\n\r\n')) socket.write('tls');
          if (text.endsWith('echo:tls')) socket.end();
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
      });
      expect(upgraded).toBe('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\necho:tls');
    } finally {
      await secure.shutdown({ gracePeriodMs: 0 });
    }
  });
});
