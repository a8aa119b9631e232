import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamicCABundle, staticCABundle, TokenFileAuthenticator, withAuthenticatedGroup } from '@kapi/authn';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '@kapi/authz';
import { ConfigMap, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Issued, issue, makeCA } from '../../../authn/test/pki.ts';
import { GenericAPIServer } from '../server/generic-api-server.ts';
import { type Serving, serve } from '../serving/serve.ts';
import { bearer, type CallOptions, callWith, type Reply } from '../test-support/https-json.ts';
import { AUTHENTICATION_INFO_NAME, AUTHENTICATION_INFO_NAMESPACE } from './authentication-info.ts';
import { type DelegatingAuthentication, delegatingAuthentication } from './delegating-authentication.ts';
import { type DelegatingAuthorization, delegatingAuthorization } from './delegating-authorization.ts';
import { publishAuthenticationInfo } from './publish-authentication-info.ts';

/**
 * A main GenericAPIServer (HTTPS, client CA, front proxy, tokens, its own authorizer) publishing
 * extension-apiserver-authentication, and an extension GenericAPIServer authenticating and authorizing through it:
 * the ConfigMap, TokenReview and SubjectAccessReview over real TLS.
 */

const TOKENS = ['ext-token,extension-apiserver,ext,"extensions"', 'alice-token,alice,1,"dev"', 'bob-token,bob,2,"dev"'].join('\n');
const CM_PATH = `/api/v1/namespaces/${AUTHENTICATION_INFO_NAMESPACE}/configmaps/${AUTHENTICATION_INFO_NAME}`;
const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

const userOf = (r: Reply): unknown => (r.status === 201 ? r.body.status.userInfo : r);
const whoamiAt = (ca: string, serving: Serving, opts: CallOptions = {}): Promise<Reply> =>
  callWith(ca, serving, 'POST', WHOAMI, { ...opts, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });

describe('an extension server delegating authentication and authorization to the main server', () => {
  let dir: string;
  let serverCA: Issued;
  let clientCA: Issued;
  let nextCA: Issued;
  let proxyCA: Issued;
  let clientBundle: DynamicCABundle;
  let main: GenericAPIServer;
  let mainServing: Serving;
  let ext: GenericAPIServer;
  let extServing: Serving;
  let authn: DelegatingAuthentication;
  let authz: DelegatingAuthorization;
  /** What the main server was asked to authorize about users other than the extension server itself (the SARs). */
  const asked: AuthorizationAttributes[] = [];
  /** The reviews the extension server sent (resource names of its requests to the main server). */
  const delegated: string[] = [];

  // The main server's policy: the extension server may do anything (kube: system:auth-delegator and the
  // extension-apiserver-authentication-reader role); alice anything; bob nothing (an explicit Deny); anyone may ask who
  // they are.
  const mainAuthorizer: Authorizer = {
    async authorize(a): Promise<AuthorizationResult> {
      if (a.user.name === 'extension-apiserver') {
        delegated.push(a.resource);
        return { decision: 'Allow', reason: '' };
      }
      asked.push(a);
      if (a.resource === 'selfsubjectreviews') return { decision: 'Allow', reason: '' };
      if (a.user.name === 'alice') return { decision: 'Allow', reason: 'alice may' };
      if (a.user.name === 'bob') return { decision: 'Deny', reason: 'bob is banned' };
      return { decision: 'NoOpinion', reason: '' };
    },
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kapi-delegation-'));
    [serverCA, clientCA, nextCA, proxyCA] = await Promise.all([
      makeCA('server-ca'),
      makeCA('client-ca'),
      makeCA('next-client-ca'),
      makeCA('front-proxy-ca'),
    ]);
    const servingCert = await issue(serverCA, { cn: 'localhost', eku: ['serverAuth'], ips: ['127.0.0.1'] });
    await writeFile(join(dir, 'client-ca.crt'), clientCA.cert);
    clientBundle = await DynamicCABundle.fromFile(join(dir, 'client-ca.crt'));
    const requestHeader = { ca: staticCABundle(proxyCA.cert), allowedNames: ['front-proxy-client'] };

    main = new GenericAPIServer({
      storage: new MemoryStorage(),
      resources: [Namespace, ConfigMap],
      authentication: { authenticator: withAuthenticatedGroup(TokenFileAuthenticator.fromCSV(TOKENS)) },
      clientCA: clientBundle,
      requestHeader,
      authorizer: mainAuthorizer,
    });
    publishAuthenticationInfo(main, { clientCA: clientBundle, requestHeader });
    await main.start();
    const tls = { cert: servingCert.cert + serverCA.cert, key: servingCert.key };
    mainServing = await serve(main.handler, { tls: { ...tls, clientCA: main.clientCAs } });

    const connection = { server: mainServing.url, ca: serverCA.cert, token: 'ext-token' };
    authn = await delegatingAuthentication({ connection });
    authz = delegatingAuthorization({ connection });
    ext = new GenericAPIServer({
      storage: new MemoryStorage(),
      resources: [Namespace, ConfigMap],
      authentication: authn.authentication,
      authorizer: authz.authorizer,
    });
    await ext.start();
    extServing = await serve(ext.handler, { tls: { ...tls, clientCA: authn.clientCAs } });
  });

  afterAll(async () => {
    authn?.close();
    authz?.close();
    clientBundle?.close();
    await ext?.shutdown({ serving: extServing });
    await main?.shutdown({ serving: mainServing });
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const call = (serving: Serving, method: string, path: string, opts: CallOptions = {}): Promise<Reply> =>
    callWith(serverCA.cert, serving, method, path, opts);
  const whoami = (opts: CallOptions = {}): Promise<Reply> => whoamiAt(serverCA.cert, extServing, opts);
  const fingerprints = (pem: string): string[] =>
    (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((c) => new X509Certificate(c).fingerprint256);

  it('the main server publishes kube-system/extension-apiserver-authentication with kube keys and JSON lists', async () => {
    const r = await call(mainServing, 'GET', CM_PATH, { headers: bearer('ext-token') });
    expect(r.status).toBe(200);
    const data = r.body.data as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual([
      'client-ca-file',
      'requestheader-allowed-names',
      'requestheader-client-ca-file',
      'requestheader-extra-headers-prefix',
      'requestheader-group-headers',
      'requestheader-uid-headers',
      'requestheader-username-headers',
    ]);
    expect(data['requestheader-allowed-names']).toBe('["front-proxy-client"]');
    expect(data['requestheader-username-headers']).toBe('["X-Remote-User"]');
    expect(data['requestheader-uid-headers']).toBe('["X-Remote-Uid"]');
    expect(data['requestheader-group-headers']).toBe('["X-Remote-Group"]');
    expect(data['requestheader-extra-headers-prefix']).toBe('["X-Remote-Extra-"]');
    expect(fingerprints(data['client-ca-file'] ?? '')).toEqual([new X509Certificate(clientCA.cert).fingerprint256]);
    expect(fingerprints(data['requestheader-client-ca-file'] ?? '')).toEqual([new X509Certificate(proxyCA.cert).fingerprint256]);
  });

  it('a token the main server accepts (TokenReview) and a SubjectAccessReview that allows', async () => {
    expect(userOf(await whoami({ headers: bearer('alice-token') }))).toEqual({
      username: 'alice',
      uid: '1',
      groups: ['dev', 'system:authenticated'],
    });
    const r = await call(extServing, 'GET', CONFIGMAPS, { headers: bearer('alice-token') });
    expect(r.status).toBe(200);
    expect(asked).toContainEqual(
      expect.objectContaining({
        verb: 'list',
        resource: 'configmaps',
        namespace: 'default',
        user: expect.objectContaining({ name: 'alice' }),
      }),
    );
  });

  it('a token the main server does not know is 401', async () => {
    const r = await call(extServing, 'GET', CONFIGMAPS, { headers: bearer('nobody-token') });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized' });
  });

  it('a SubjectAccessReview that denies is 403 with the main server reason', async () => {
    const r = await call(extServing, 'GET', CONFIGMAPS, { headers: bearer('bob-token') });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ reason: 'Forbidden' });
    expect(r.body.message).toContain('User "bob" cannot list resource "configmaps"');
    expect(r.body.message).toContain('bob is banned');
  });

  it('without credentials: anonymous, health paths allowed without a review, the rest as the main server decides', async () => {
    const before = asked.length;
    const health = await call(extServing, 'GET', '/healthz');
    expect(health).toEqual({ status: 200, body: 'ok' });
    expect(asked.length).toBe(before);
    const r = await call(extServing, 'GET', CONFIGMAPS);
    expect(r.status).toBe(403);
    expect(r.body.message).toContain('User "system:anonymous" cannot list resource "configmaps"');
  });

  it('a client certificate of the published client CA authenticates; system:masters needs no review', async () => {
    const root = await issue(clientCA, { cn: 'root', o: ['system:masters'] });
    const before = asked.length;
    const r = await call(extServing, 'GET', CONFIGMAPS, { client: root });
    expect(r.status).toBe(200);
    expect(asked.length).toBe(before);
  });

  it('front-proxy headers are believed from the front proxy certificate', async () => {
    const proxy = await issue(proxyCA, { cn: 'front-proxy-client' });
    const headers = { 'X-Remote-User': 'carol', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Scopes': 'read' };
    expect(userOf(await whoami({ client: proxy, headers }))).toEqual({
      username: 'carol',
      groups: ['system:masters', 'system:authenticated'],
      extra: { scopes: ['read'] },
    });
    expect((await call(extServing, 'GET', CONFIGMAPS, { client: proxy, headers })).status).toBe(200);
  });

  it('front-proxy headers from a client without the front proxy certificate are ignored', async () => {
    const headers = { 'X-Remote-User': 'carol', 'X-Remote-Group': 'system:masters' };
    // No certificate at all: anonymous.
    expect(userOf(await whoami({ headers }))).toMatchObject({ username: 'system:anonymous' });
    expect((await call(extServing, 'GET', CONFIGMAPS, { headers })).status).toBe(403);
    // A token: its user.
    expect(userOf(await whoami({ headers: { ...headers, ...bearer('bob-token') } }))).toMatchObject({
      username: 'bob',
      groups: ['dev', 'system:authenticated'],
    });
    // A client certificate of the client CA, not the front proxy's: the certificate's user.
    const mallory = await issue(clientCA, { cn: 'mallory' });
    expect(userOf(await whoami({ client: mallory, headers }))).toMatchObject({ username: 'mallory', groups: ['system:authenticated'] });
    expect((await call(extServing, 'GET', CONFIGMAPS, { client: mallory, headers })).status).toBe(403);
    // The front proxy CA, but a name that is not allowed: refused.
    const other = await issue(proxyCA, { cn: 'not-the-proxy' });
    expect((await whoami({ client: other, headers })).status).toBe(401);
  });

  it('a new client CA reaches the ConfigMap and the extension server without a restart', async () => {
    const next = await issue(nextCA, { cn: 'root-next', o: ['system:masters'] });
    expect((await call(extServing, 'GET', CONFIGMAPS, { client: next })).status).toBe(401);
    await writeFile(join(dir, 'client-ca.crt'), clientCA.cert + nextCA.cert);
    // The file watch may have read it already; either way the bundle now holds both CAs.
    await clientBundle.reload();
    expect(clientBundle.certificates()).toHaveLength(2);
    await expect
      .poll(async () =>
        fingerprints((await call(mainServing, 'GET', CM_PATH, { headers: bearer('ext-token') })).body.data['client-ca-file']),
      )
      .toContain(new X509Certificate(nextCA.cert).fingerprint256);
    await expect.poll(async () => (await call(extServing, 'GET', CONFIGMAPS, { client: next })).status).toBe(200);
  });

  it('a deleted ConfigMap is written again', async () => {
    const del = await call(mainServing, 'DELETE', CM_PATH, { headers: bearer('ext-token') });
    expect(del.status).toBe(200);
    await expect.poll(async () => (await call(mainServing, 'GET', CM_PATH, { headers: bearer('ext-token') })).status).toBe(200);
    // The extension server follows (it saw the deletion, then the new object) and still trusts the front proxy.
    const proxy = await issue(proxyCA, { cn: 'front-proxy-client' });
    await expect
      .poll(async () => userOf(await whoami({ client: proxy, headers: { 'X-Remote-User': 'carol' } })))
      .toMatchObject({ username: 'carol' });
  });

  it('TokenReview and SubjectAccessReview answers are cached', async () => {
    const count = (resource: string): number => delegated.filter((r) => r === resource).length;
    const path = '/api/v1/namespaces/kube-public/configmaps';
    await call(extServing, 'GET', path, { headers: bearer('alice-token') });
    const tokens = count('tokenreviews');
    const reviews = count('subjectaccessreviews');
    expect(tokens).toBeGreaterThan(0);
    expect(reviews).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) expect((await call(extServing, 'GET', path, { headers: bearer('alice-token') })).status).toBe(200);
    expect([count('tokenreviews'), count('subjectaccessreviews')]).toEqual([tokens, reviews]);
    // A denial is kept too.
    await call(extServing, 'GET', path, { headers: bearer('bob-token') });
    const afterBob = [count('tokenreviews'), count('subjectaccessreviews')];
    expect((await call(extServing, 'GET', path, { headers: bearer('bob-token') })).status).toBe(403);
    expect([count('tokenreviews'), count('subjectaccessreviews')]).toEqual(afterBob);
  });

  it("connects with a kubeconfig file (kube's --authentication-kubeconfig / --authorization-kubeconfig)", async () => {
    const path = join(dir, 'kubeconfig.yaml');
    await writeFile(join(dir, 'main-ca.crt'), serverCA.cert);
    await writeFile(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: main',
        '  cluster:',
        `    server: ${mainServing.url}`,
        '    certificate-authority: main-ca.crt',
        'users:',
        '- name: ext',
        '  user:',
        '    token: ext-token',
        'contexts:',
        '- name: ext@main',
        '  context: {cluster: main, user: ext}',
        'current-context: ext@main',
        '',
      ].join('\n'),
    );
    const a = await delegatingAuthentication({ connection: { kubeconfig: path } });
    const z = delegatingAuthorization({ connection: { kubeconfig: path } });
    try {
      expect(a.source?.info.allowedNames).toEqual(['front-proxy-client']);
      const result = await a.authentication.authenticator.authenticate({ headers: { authorization: 'Bearer alice-token' } });
      expect(result?.user).toMatchObject({ name: 'alice', groups: ['dev', 'system:authenticated'] });
      const attrs = {
        verb: 'get',
        resourceRequest: true,
        namespace: 'default',
        apiGroup: '',
        apiVersion: 'v1',
        resource: 'pods',
        subresource: '',
        name: 'p',
        path: '/api/v1/namespaces/default/pods/p',
      };
      expect(await z.authorizer.authorize({ ...attrs, user: { name: 'alice', groups: [] } })).toEqual({
        decision: 'Allow',
        reason: 'alice may',
      });
      expect(await z.authorizer.authorize({ ...attrs, user: { name: 'bob', groups: [] } })).toEqual({
        decision: 'Deny',
        reason: 'bob is banned',
      });
      expect(await z.authorizer.authorize({ ...attrs, user: { name: 'eve', groups: ['system:masters'] } })).toEqual({
        decision: 'Allow',
        reason: '',
      });
    } finally {
      a.close();
      z.close();
    }
  });

  it('an unreachable main server fails start-up unless lookup failures are tolerated', async () => {
    const connection = { server: 'https://127.0.0.1:1', ca: serverCA.cert, token: 'ext-token' };
    await expect(delegatingAuthentication({ connection })).rejects.toThrow(/ECONNREFUSED/);
    const errors: unknown[] = [];
    const tolerant = await delegatingAuthentication({ connection, tolerateInClusterLookupFailure: true, onError: (e) => errors.push(e) });
    try {
      expect(errors).toHaveLength(1);
      // No CA yet: certificates and the front proxy have no opinion, so a request without a token is anonymous.
      expect(tolerant.source?.info.clientCA).toBe('');
      expect(await tolerant.authentication.authenticator.authenticate({ headers: { 'x-remote-user': 'carol' } })).toBeNull();
      expect(tolerant.authentication.anonymous).toBe(true);
    } finally {
      tolerant.close();
    }
  });
});

describe('front-proxy header names and allowed names published by the main server', () => {
  let serverCA: Issued;
  let proxyCA: Issued;
  let main: GenericAPIServer;
  let mainServing: Serving;
  let ext: GenericAPIServer;
  let extServing: Serving;
  let authn: DelegatingAuthentication;
  let authz: DelegatingAuthorization;
  /** The headers each request reached the extension server's routes with. */
  const seen: Record<string, unknown>[] = [];

  beforeAll(async () => {
    [serverCA, proxyCA] = await Promise.all([makeCA('server-ca'), makeCA('front-proxy-ca')]);
    const servingCert = await issue(serverCA, { cn: 'localhost', eku: ['serverAuth'], ips: ['127.0.0.1'] });
    const tls = { cert: servingCert.cert + serverCA.cert, key: servingCert.key };
    // No allowed names: any certificate of the front-proxy CA may assert an identity.
    const requestHeader = {
      ca: staticCABundle(proxyCA.cert),
      usernameHeaders: ['X-Proxy-User'],
      groupHeaders: ['X-Proxy-Group'],
      extraHeaderPrefixes: ['X-Proxy-Extra-'],
    };
    main = new GenericAPIServer({
      storage: new MemoryStorage(),
      resources: [Namespace, ConfigMap],
      authentication: { authenticator: withAuthenticatedGroup(TokenFileAuthenticator.fromCSV(TOKENS)) },
      requestHeader,
    });
    publishAuthenticationInfo(main, { requestHeader });
    await main.start();
    mainServing = await serve(main.handler, { tls: { ...tls, clientCA: main.clientCAs } });
    const connection = { server: mainServing.url, ca: serverCA.cert, token: 'ext-token' };
    authn = await delegatingAuthentication({ connection });
    authz = delegatingAuthorization({ connection });
    ext = new GenericAPIServer({
      storage: new MemoryStorage(),
      resources: [Namespace, ConfigMap],
      authentication: authn.authentication,
      authorizer: authz.authorizer,
      filters: [
        async (ctx, next) => {
          seen.push({ ...ctx.req.headers });
          await next();
        },
      ],
    });
    await ext.start();
    extServing = await serve(ext.handler, { tls: { ...tls, clientCA: authn.clientCAs } });
  });

  afterAll(async () => {
    authn?.close();
    authz?.close();
    await ext?.shutdown({ serving: extServing });
    await main?.shutdown({ serving: mainServing });
  });

  it('publishes no client-ca-file without a client CA, and the configured names', async () => {
    const r = await callWith(serverCA.cert, mainServing, 'GET', CM_PATH, { headers: bearer('ext-token') });
    expect(r.body.data).not.toHaveProperty('client-ca-file');
    expect(r.body.data).toMatchObject({
      'requestheader-allowed-names': '[]',
      'requestheader-username-headers': '["X-Proxy-User"]',
      'requestheader-group-headers': '["X-Proxy-Group"]',
      'requestheader-extra-headers-prefix': '["X-Proxy-Extra-"]',
    });
  });

  it('the extension server reads the identity from the published headers, from any certificate of the front-proxy CA', async () => {
    const proxy = await issue(proxyCA, { cn: 'any-proxy' });
    const headers = { 'X-Proxy-User': 'dave', 'X-Proxy-Group': 'ops', 'X-Proxy-Extra-Team': 'a', 'X-Remote-User': 'carol' };
    expect(userOf(await whoamiAt(serverCA.cert, extServing, { client: proxy, headers }))).toEqual({
      username: 'dave',
      groups: ['ops', 'system:authenticated'],
      extra: { team: ['a'] },
    });
  });

  it('the published headers from anyone else are ignored and removed before the request is served', async () => {
    seen.length = 0;
    const headers = { 'X-Proxy-User': 'dave', 'X-Proxy-Group': 'ops', 'X-Proxy-Extra-Team': 'a' };
    expect(userOf(await whoamiAt(serverCA.cert, extServing, { headers: { ...headers, ...bearer('alice-token') } }))).toMatchObject({
      username: 'alice',
    });
    expect(seen).toHaveLength(1);
    expect(Object.keys(seen[0] ?? {}).filter((h) => h.startsWith('x-proxy-'))).toEqual([]);
  });
});
