import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { type ClientHttp2Session, connect } from 'node:http2';
import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compose } from '../filters/compose.ts';
import type { Filter, Handler } from '../filters/context.ts';
import { versionHandler } from '../version/version.ts';
import { kubeconfig, writeKubeconfig } from './kubeconfig.ts';
import { type ServingCertificate, selfSignedServingCertificate } from './self-signed.ts';
import { type Serving, serve } from './serve.ts';

const run = promisify(execFile);
let dir: string;
let certs: ServingCertificate;
let srv: Serving | undefined;
const clients: ClientHttp2Session[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kapi-serving-'));
  certs = await selfSignedServingCertificate({ dir: join(dir, 'pki'), hosts: ['kapi.example'], ips: ['10.0.0.1'] });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await srv?.shutdown({ gracePeriodMs: 0 });
  srv = undefined;
});

const markWatch: Filter = async (ctx, next) => {
  ctx.longRunning = ctx.url.searchParams.get('watch') === 'true';
  await next();
};

function h2(url: string): ClientHttp2Session {
  const session = connect(url, { ca: certs.ca });
  clients.push(session);
  return session;
}

/** One HTTP/2 request; resolves with status, body and whether the stream ended cleanly. */
function h2Get(session: ClientHttp2Session, path: string, onData?: (chunk: string) => void) {
  return new Promise<{ status: number; body: string; ended: boolean }>((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let status = 0;
    let body = '';
    stream.setEncoding('utf8');
    stream.on('response', (headers) => {
      status = Number(headers[':status']);
    });
    stream.on('data', (chunk: string) => {
      body += chunk;
      onData?.(chunk);
    });
    stream.on('end', () => resolve({ status, body, ended: true }));
    stream.on('error', reject);
    stream.end();
  });
}

/** One HTTP/1.1 request over TLS. */
function h1Get(url: string, path: string, agent?: Agent, onData?: (chunk: string) => void) {
  return new Promise<{ status: number; body: string; complete: boolean; connection: string | undefined; alpn: string | false }>(
    (resolve, reject) => {
      const req = httpsRequest(
        `${url}${path}`,
        { ca: certs.ca, agent: agent ?? false, ALPNProtocols: ['http/1.1'] } as RequestOptions,
        (res) => {
          const alpn = (res.socket as unknown as { alpnProtocol: string | false }).alpnProtocol;
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
            onData?.(chunk);
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body,
              complete: res.complete,
              connection: res.headers.connection,
              alpn,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

describe('selfSignedServingCertificate', () => {
  it('makes a CA and a serving cert for localhost, loopback IPs and the given names, and reuses them', async () => {
    const [leafPem, caPem] = certs.cert.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    const leaf = new X509Certificate(leafPem as string);
    const ca = new X509Certificate(certs.ca);
    expect(caPem).toBe(ca.toString().trim());
    expect(ca.ca).toBe(true);
    expect(ca.subject).toMatch(/^CN=kapi-ca@\d+$/);
    expect(leaf.ca).toBe(false);
    expect(leaf.subject).toMatch(/^CN=kapi\.example@\d+$/);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    for (const h of ['localhost', 'kapi.example']) expect(leaf.checkHost(h)).toBe(h);
    for (const ip of ['127.0.0.1', '::1', '10.0.0.1']) expect(leaf.checkIP(ip)).toBe(ip);
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(leaf.publicKey.asymmetricKeyType).toBe('ec');
    const days = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 86_400_000;
    expect(days).toBe(365);

    expect((await stat(join(dir, 'pki', 'apiserver.key'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dir, 'pki', 'apiserver.crt'), 'utf8')).toBe(certs.cert);

    // Same names (or fewer): reused. A name the cert lacks: regenerated.
    expect(await selfSignedServingCertificate({ dir: join(dir, 'pki'), hosts: ['kapi.example'] })).toEqual(certs);
    const other = await mkdtemp(join(dir, 'other-'));
    const first = await selfSignedServingCertificate({ dir: other });
    const wider = await selfSignedServingCertificate({ dir: other, hosts: ['new.example'] });
    expect(wider.cert).not.toBe(first.cert);
    expect(new X509Certificate(wider.cert).checkHost('new.example')).toBe('new.example');
  });
});

describe('serve', () => {
  it('speaks HTTP/2 and HTTP/1.1 on one TLS port, and plain HTTP without tls', async () => {
    const handler: Handler = async (ctx) => {
      if (ctx.url.pathname === '/fail') throw new Error('boom');
      ctx.res.setHeader('Content-Type', 'text/plain');
      ctx.res.end(`hi ${ctx.req.httpVersion}`);
    };
    srv = await serve(handler, { tls: certs });
    expect(srv.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const session = h2(srv.url);
    expect(await h2Get(session, '/x')).toEqual({ status: 200, body: 'hi 2.0', ended: true });
    const failed = await h2Get(session, '/fail');
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.body)).toMatchObject({ kind: 'Status', code: 500 });
    expect(await h1Get(srv.url, '/x')).toMatchObject({ status: 200, body: 'hi 1.1', alpn: 'http/1.1' });

    const plain = await serve(handler);
    try {
      expect(plain.url).toMatch(/^http:\/\//);
      expect(await (await fetch(`${plain.url}/x`)).text()).toBe('hi 1.1');
    } finally {
      await plain.shutdown();
    }
  });

  it('shuts down in order: drains in-flight requests, then ends watches cleanly, then closes connections', async () => {
    const events: string[] = [];
    let releaseSlow: (() => void) | undefined;
    let watching = 0;
    let lateWrites = 0;
    srv = await serve(
      compose([markWatch], async (ctx) => {
        if (ctx.longRunning) {
          ctx.res.writeHead(200, { 'Content-Type': 'application/json' });
          ctx.res.write('{"type":"ADDED"}\n');
          watching++;
          // A watch that ignores the signal; shutdown must end it and drop its later writes.
          await new Promise<void>((r) => ctx.res.once('close', () => r()));
          lateWrites++;
          ctx.res.write('{"type":"MODIFIED"}\n');
          return;
        }
        if (ctx.url.pathname === '/slow') {
          await new Promise<void>((r) => {
            releaseSlow = r;
          });
          events.push('slow answered');
        }
        ctx.res.end('done');
      }),
      { tls: certs },
    );
    const url = srv.url;
    const session = h2(url);
    const agent = new Agent({ keepAlive: true, ca: certs.ca });
    const h2Watch = h2Get(session, '/w?watch=true').then((r) => {
      events.push('h2 watch ended');
      return r;
    });
    const h1Watch = h1Get(url, '/w?watch=true', agent).then((r) => {
      events.push('h1 watch ended');
      return r;
    });
    const slow = h2Get(session, '/slow');
    await expect.poll(() => watching === 2 && releaseSlow !== undefined).toBe(true);

    const done = srv.shutdown({ gracePeriodMs: 60_000 });
    // New connections are refused once shutdown began.
    await expect(fetch(`${url.replace('https', 'http')}/x`)).rejects.toThrow();
    // The slow request is still being waited for; the watches are still open.
    await new Promise((r) => setImmediate(r));
    expect(events).toEqual([]);
    releaseSlow?.();
    expect(await slow).toEqual({ status: 200, body: 'done', ended: true });

    const w2 = await h2Watch;
    const w1 = await h1Watch;
    await done;
    expect(w2).toEqual({ status: 200, body: '{"type":"ADDED"}\n', ended: true });
    expect(w1).toMatchObject({ status: 200, body: '{"type":"ADDED"}\n', complete: true });
    expect(events[0]).toBe('slow answered');
    expect(events.slice(1).sort()).toEqual(['h1 watch ended', 'h2 watch ended']);
    expect(srv.longRunningSignal.aborted).toBe(true);
    expect(lateWrites).toBe(2);
    expect(srv.inFlight().size).toBe(0);
    expect(srv.server.listening).toBe(false);
    agent.destroy();
  });

  it('answers HTTP/1.1 requests that arrive on a kept-alive connection during shutdown with Connection: close', async () => {
    let release: (() => void) | undefined;
    const cleaned: string[] = [];
    srv = await serve(
      async (ctx) => {
        if (ctx.url.pathname === '/hold') await new Promise<void>((r) => (release = r));
        ctx.res.end('ok');
      },
      { tls: certs },
    );
    srv.onShutdown(() => {
      cleaned.push('storage closed');
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 2, ca: certs.ca });
    expect(await h1Get(srv.url, '/warm', agent)).toMatchObject({ status: 200, connection: 'keep-alive' });
    const held = h1Get(srv.url, '/hold', agent);
    await expect.poll(() => release !== undefined).toBe(true);
    const done = srv.shutdown();
    // The held request started before shutdown; its response was not written yet, so it closes the connection.
    release?.();
    expect(await held).toMatchObject({ status: 200, body: 'ok', connection: 'close' });
    await done;
    expect(cleaned).toEqual(['storage closed']);
    agent.destroy();
  });
});

describe('kubeconfig', () => {
  it('renders a clientcmd Config with the CA, a token user and the current context', () => {
    const doc = parse(kubeconfig({ server: 'https://127.0.0.1:6443', ca: certs.ca, token: 't0k', namespace: 'ns' }));
    expect(doc).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'kapi',
          cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from(certs.ca).toString('base64') },
        },
      ],
      users: [{ name: 'kapi-admin', user: { token: 't0k' } }],
      contexts: [{ name: 'kapi', context: { cluster: 'kapi', user: 'kapi-admin', namespace: 'ns' } }],
      'current-context': 'kapi',
      preferences: {},
    });
  });

  it('works with the real kubectl over TLS + HTTP/2', async () => {
    const token = 'kubectl-secret-token';
    const protocols: string[] = [];
    const auth: Filter = async (ctx, next) => {
      protocols.push(ctx.req.httpVersion);
      if (ctx.req.headers.authorization !== `Bearer ${token}`) {
        ctx.res.statusCode = 401;
        ctx.res.setHeader('Content-Type', 'application/json');
        ctx.res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 }));
        return;
      }
      await next();
    };
    srv = await serve(
      compose([auth, versionHandler()], async (ctx) => {
        if (ctx.url.pathname === '/healthz') {
          ctx.res.setHeader('Content-Type', 'text/plain; charset=utf-8');
          ctx.res.end('ok');
          return;
        }
        ctx.res.statusCode = 404;
        ctx.res.end();
      }),
      { tls: certs },
    );
    const file = join(dir, 'kube', 'config');
    await writeKubeconfig(file, { server: srv.url, ca: certs.ca, token });
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const env = { ...process.env, KUBECONFIG: '', HOME: dir };
    const health = await run('kubectl', ['--kubeconfig', file, '--request-timeout=20s', 'get', '--raw', '/healthz'], { env });
    expect(health.stdout).toBe('ok');
    const version = await run('kubectl', ['--kubeconfig', file, '--request-timeout=20s', 'version', '-o', 'json'], { env });
    expect(JSON.parse(version.stdout).serverVersion).toMatchObject({ major: '1', minor: '32', gitVersion: 'v1.32.0-kapi.0.1.0' });
    expect(protocols.every((p) => p === '2.0')).toBe(true);

    const bad = join(dir, 'kube', 'bad');
    await writeKubeconfig(bad, { server: srv.url, ca: certs.ca, token: 'wrong' });
    await expect(run('kubectl', ['--kubeconfig', bad, '--request-timeout=20s', 'get', '--raw', '/healthz'], { env })).rejects.toThrow(
      /logged in to the server|Unauthorized/,
    );
  });
});
