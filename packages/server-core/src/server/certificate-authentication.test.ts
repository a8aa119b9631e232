import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:http2';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DynamicCABundle, staticCABundle, TokenFileAuthenticator, withAuthenticatedGroup } from '@kapi/authn';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Issued, issue, makeCA } from '../../../authn/test/pki.ts';
import type { Filter } from '../filters/context.ts';
import { type Serving, serve } from '../serving/serve.ts';
import { GenericAPIServer } from './generic-api-server.ts';

/**
 * GenericAPIServer with kube-apiserver's --client-ca-file and --requestheader-* wiring, served over TLS that asks for
 * client certificates: certificates, the front proxy and bearer tokens on one port.
 */

const run = promisify(execFile);
const REVIEW = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

interface Reply {
  status: number;
  body: { status?: { userInfo?: unknown } } & Record<string, unknown>;
}

describe('client certificates and the front proxy on a GenericAPIServer', () => {
  let dir: string;
  let serverCA: Issued;
  let clientCA: Issued;
  let nextCA: Issued;
  let proxyCA: Issued;
  let bundle: DynamicCABundle;
  let server: GenericAPIServer;
  let serving: Serving;
  let seen: Record<string, unknown>[];
  const caPath = (): string => join(dir, 'client-ca.crt');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kapi-cert-authn-'));
    [serverCA, clientCA, nextCA, proxyCA] = await Promise.all([
      makeCA('server-ca'),
      makeCA('client-ca'),
      makeCA('next-ca'),
      makeCA('proxy-ca'),
    ]);
    const servingCert = await issue(serverCA, { cn: 'localhost', eku: ['serverAuth'], ips: ['127.0.0.1'] });
    await writeFile(caPath(), clientCA.cert);
    bundle = await DynamicCABundle.fromFile(caPath());
    seen = [];

    const record: Filter = async (ctx, next) => {
      seen.push({ ...ctx.req.headers });
      await next();
    };
    server = new GenericAPIServer({
      storage: new MemoryStorage(),
      resources: [],
      authentication: { authenticator: withAuthenticatedGroup(TokenFileAuthenticator.fromCSV('s3cret,token-user,1,"tokens"\n')) },
      clientCA: bundle,
      requestHeader: { ca: staticCABundle(proxyCA.cert), allowedNames: ['front-proxy-client'] },
      filters: [record],
    });
    await server.start();
    serving = await serve(server.handler, {
      tls: { cert: servingCert.cert + serverCA.cert, key: servingCert.key, clientCA: server.clientCAs },
    });
  });
  afterAll(async () => {
    bundle?.close();
    await server?.shutdown({ serving });
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  function whoami(client?: { cert: string; key: string }, headers: Record<string, string> = {}): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${serving.url}${WHOAMI}`,
        { method: 'POST', ca: serverCA.cert, ...(client ?? {}), agent: false, headers: { 'content-type': 'application/json', ...headers } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            body += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
        },
      );
      req.on('error', reject);
      req.end(REVIEW);
    });
  }
  const userOf = (r: Reply): unknown => (r.status === 201 ? r.body.status?.userInfo : r);

  it('a client certificate is the user CN in the groups O (and system:authenticated)', async () => {
    const alice = await issue(clientCA, { cn: 'alice', o: ['system:masters', 'dev'] });
    expect(userOf(await whoami(alice))).toMatchObject({ username: 'alice', groups: ['system:masters', 'dev', 'system:authenticated'] });
  });

  it('over HTTP/2 too', async () => {
    const alice = await issue(clientCA, { cn: 'alice-h2', o: ['dev'] });
    const session = connect(serving.url, { ca: serverCA.cert, cert: alice.cert, key: alice.key });
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': WHOAMI, 'content-type': 'application/json' });
        let out = '';
        stream.setEncoding('utf8');
        stream.on('data', (c: string) => {
          out += c;
        });
        stream.on('end', () => resolve(out));
        stream.on('error', reject);
        stream.end(REVIEW);
      });
      expect(JSON.parse(body).status.userInfo).toMatchObject({ username: 'alice-h2', groups: ['dev', 'system:authenticated'] });
    } finally {
      session.close();
    }
  });

  it('bearer tokens still work on the same port, without a certificate', async () => {
    expect(userOf(await whoami(undefined, { authorization: 'Bearer s3cret' }))).toMatchObject({ username: 'token-user' });
  });

  it('a certificate of another CA is 401 (and so is nothing at all)', async () => {
    const mallory = await issue(nextCA, { cn: 'alice', o: ['system:masters'] });
    expect(await whoami(mallory)).toMatchObject({ status: 401, body: { kind: 'Status', reason: 'Unauthorized', code: 401 } });
    expect((await whoami()).status).toBe(401);
  });

  it('the front proxy is believed on its certificate; the headers are gone after authentication', async () => {
    const proxy = await issue(proxyCA, { cn: 'front-proxy-client' });
    seen.length = 0;
    const r = await whoami(proxy, { 'X-Remote-User': 'bob', 'X-Remote-Group': 'devs', 'X-Remote-Extra-Scopes': 'x' });
    expect(userOf(r)).toMatchObject({ username: 'bob', groups: ['devs', 'system:authenticated'], extra: { scopes: ['x'] } });
    expect(Object.keys(seen[0] ?? {}).filter((h) => h.startsWith('x-remote-'))).toEqual([]);
  });

  it('X-Remote-User without the front-proxy certificate is ignored, and removed', async () => {
    seen.length = 0;
    const spoof = { 'X-Remote-User': 'system:admin', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-A': 'b' };
    expect(userOf(await whoami(undefined, { authorization: 'Bearer s3cret', ...spoof }))).toEqual({
      username: 'token-user',
      uid: '1',
      groups: ['tokens', 'system:authenticated'],
    });
    expect(Object.keys(seen[0] ?? {}).filter((h) => h.startsWith('x-remote-'))).toEqual([]);
    expect((await whoami(undefined, spoof)).status).toBe(401);
    // A client certificate that is not the proxy's does not make the headers count either.
    const alice = await issue(clientCA, { cn: 'alice' });
    expect(userOf(await whoami(alice, spoof))).toMatchObject({ username: 'alice' });
  });

  it('a proxy certificate with a CN that is not allowed is 401', async () => {
    const other = await issue(proxyCA, { cn: 'not-the-proxy' });
    expect((await whoami(other, { 'X-Remote-User': 'bob' })).status).toBe(401);
  });

  it('rewriting the client CA file takes effect without a restart, in the handshake too', async () => {
    const before = await issue(clientCA, { cn: 'before' });
    const after = await issue(nextCA, { cn: 'after' });
    const changed = new Promise<void>((resolve) => {
      const off = bundle.onChange(() => {
        off();
        resolve();
      });
    });
    await writeFile(caPath(), nextCA.cert);
    await changed;
    expect((await whoami(before)).status).toBe(401);
    expect(userOf(await whoami(after))).toMatchObject({ username: 'after' });
    // The acceptable CA names the server sends (Go clients only offer a certificate from one of them).
    const port = new URL(serving.url).port;
    const { stdout } = await run('sh', ['-c', `openssl s_client -connect 127.0.0.1:${port} -servername localhost </dev/null 2>/dev/null`]);
    const names = stdout.split('Acceptable client certificate CA names\n')[1]?.split('\nRequested Signature')[0];
    expect(names?.replaceAll(' ', '').split('\n')).toEqual(['CN=next-ca', 'CN=proxy-ca']);
  });
});
