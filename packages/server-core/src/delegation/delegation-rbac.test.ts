import { TokenFileAuthenticator, withAuthenticatedGroup } from '@kapi/authn';
import { type Authorizer, buildAuthorizer, RBAC } from '@kapi/authz';
import { ConfigMap, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Issued, issue, makeCA } from '../../../authn/test/pki.ts';
import { GenericAPIServer } from '../server/generic-api-server.ts';
import { type Serving, serve } from '../serving/serve.ts';
import { bearer, callWith, type Reply } from '../test-support/https-json.ts';
import { AUTHENTICATION_INFO_NAME, AUTHENTICATION_INFO_NAMESPACE } from './authentication-info.ts';
import { type DelegatingAuthentication, delegatingAuthentication } from './delegating-authentication.ts';
import { type DelegatingAuthorization, delegatingAuthorization } from './delegating-authorization.ts';
import { publishAuthenticationInfo } from './publish-authentication-info.ts';

/**
 * An extension server delegating to a main server that authorizes with RBAC and nothing else, its identity bound only
 * as kube's docs for aggregated servers say: the bootstrap ClusterRole system:auth-delegator (a ClusterRoleBinding)
 * and the bootstrap Role kube-system/extension-apiserver-authentication-reader (a RoleBinding in kube-system).
 */

const TOKENS = [
  'admin-token,admin,0,"system:masters"',
  'ext-token,system:serviceaccount:ext:apiserver,ext',
  'stranger-token,stranger,9',
  'alice-token,alice,1',
  'bob-token,bob,2',
].join('\n');
const EXT_USER = 'system:serviceaccount:ext:apiserver';
const CM_PATH = `/api/v1/namespaces/${AUTHENTICATION_INFO_NAMESPACE}/configmaps/${AUTHENTICATION_INFO_NAME}`;
const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const SARS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
const RBAC_V1 = '/apis/rbac.authorization.k8s.io/v1';

/** A request with a bearer token (and a JSON body). */
function call(ca: string, serving: Serving, method: string, path: string, token: string, body?: unknown): Promise<Reply> {
  return callWith(ca, serving, method, path, { headers: bearer(token), body });
}

describe('an extension server bound only to system:auth-delegator and extension-apiserver-authentication-reader', () => {
  let serverCA: Issued;
  let main: GenericAPIServer;
  let mainServing: Serving;
  let ext: GenericAPIServer;
  let extServing: Serving;
  let authn: DelegatingAuthentication;
  let authz: DelegatingAuthorization;
  let rbac: RBAC;

  const atMain = (method: string, path: string, token: string, body?: unknown) =>
    call(serverCA.cert, mainServing, method, path, token, body);
  const atExt = (method: string, path: string, token: string) => call(serverCA.cert, extServing, method, path, token);
  const tokenReview = (token: string) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }) as const;
  const sar = (user: string) => ({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user, resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: 'default' } },
  });

  /** Waits until RBAC's cache (fed by the watch caches) lets `token` do what `probe` asks: a loop, not a timed assertion. */
  async function until(probe: () => Promise<Reply>, status: number): Promise<Reply> {
    for (;;) {
      const r = await probe();
      if (r.status === status) return r;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  beforeAll(async () => {
    serverCA = await makeCA('server-ca');
    const servingCert = await issue(serverCA, { cn: 'localhost', eku: ['serverAuth'], ips: ['127.0.0.1'] });
    rbac = new RBAC({ authorizer: () => authorizer });
    const authorizer: Authorizer = buildAuthorizer({ modes: ['RBAC'] }, { RBAC: () => rbac.authorizer });
    main = new GenericAPIServer({
      storage: new MemoryStorage(),
      resources: [Namespace, ConfigMap],
      providers: [rbac.provider()],
      authentication: { authenticator: withAuthenticatedGroup(TokenFileAuthenticator.fromCSV(TOKENS)) },
      authorizer,
    });
    publishAuthenticationInfo(main, {});
    await main.start();
    const tls = { cert: servingCert.cert + serverCA.cert, key: servingCert.key };
    mainServing = await serve(main.handler, { tls });

    // what an aggregated server's installation creates (kube's docs: auth-delegator and auth-reader bindings)
    const subjects = [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: EXT_USER }];
    const created = await Promise.all([
      atMain('POST', `${RBAC_V1}/clusterrolebindings`, 'admin-token', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'ext:system:auth-delegator' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
        subjects,
      }),
      atMain('POST', `${RBAC_V1}/namespaces/kube-system/rolebindings`, 'admin-token', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'ext-auth-reader', namespace: 'kube-system' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' },
        subjects,
      }),
      // alice may list configmaps in default; bob may nothing
      atMain('POST', `${RBAC_V1}/namespaces/default/rolebindings`, 'admin-token', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'alice-view', namespace: 'default' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
      }),
    ]);
    expect(created.map((r) => r.status)).toEqual([201, 201, 201]);
    await until(() => atMain('GET', CM_PATH, 'ext-token'), 200);
    await until(() => atMain('POST', TOKEN_REVIEWS, 'ext-token', tokenReview('alice-token')), 201);
    await until(async () => {
      const r = await atMain('POST', SARS, 'ext-token', sar('alice'));
      return r.status === 201 && r.body.status.allowed ? r : { status: 0, body: r.body };
    }, 201);

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
    extServing = await serve(ext.handler, { tls });
  });

  afterAll(async () => {
    authn?.close();
    authz?.close();
    await ext?.shutdown({ serving: extServing });
    await main?.shutdown({ serving: mainServing });
  });

  it('the main server bootstrapped both objects as kube has them', async () => {
    const role = await atMain('GET', `${RBAC_V1}/namespaces/kube-system/roles/extension-apiserver-authentication-reader`, 'admin-token');
    expect(role.status).toBe(200);
    expect(role.body.rules).toEqual([
      {
        verbs: ['get', 'list', 'watch'],
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['extension-apiserver-authentication'],
      },
    ]);
    const delegator = await atMain('GET', `${RBAC_V1}/clusterroles/system:auth-delegator`, 'admin-token');
    expect(delegator.body.rules).toEqual([
      { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'] },
      { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'] },
    ]);
  });

  it('the extension identity reads the ConfigMap and creates TokenReviews and SubjectAccessReviews, and no more', async () => {
    const cm = await atMain('GET', CM_PATH, 'ext-token');
    expect(cm.status).toBe(200);
    expect(cm.body.metadata.name).toBe(AUTHENTICATION_INFO_NAME);
    const review = await atMain('POST', TOKEN_REVIEWS, 'ext-token', tokenReview('alice-token'));
    expect(review.status).toBe(201);
    expect(review.body.status).toMatchObject({ authenticated: true, user: { username: 'alice' } });
    const access = await atMain('POST', SARS, 'ext-token', sar('bob'));
    expect(access.status).toBe(201);
    expect(access.body.status.allowed).toBe(false);
    // the reader role names one ConfigMap: kube-system's others are not readable, nor is listing them
    expect((await atMain('GET', `/api/v1/namespaces/kube-system/configmaps/other`, 'ext-token')).status).toBe(403);
    expect((await atMain('GET', `/api/v1/namespaces/default/configmaps`, 'ext-token')).status).toBe(403);
  });

  it('an identity without those bindings can do none of it', async () => {
    expect((await atMain('GET', CM_PATH, 'stranger-token')).status).toBe(403);
    expect((await atMain('POST', TOKEN_REVIEWS, 'stranger-token', tokenReview('alice-token'))).status).toBe(403);
    expect((await atMain('POST', SARS, 'stranger-token', sar('alice'))).status).toBe(403);
  });

  it('the extension server authenticates and authorizes its clients through the main server', async () => {
    expect((await atExt('GET', '/api/v1/namespaces/default/configmaps', 'alice-token')).status).toBe(200);
    const bob = await atExt('GET', '/api/v1/namespaces/default/configmaps', 'bob-token');
    expect(bob.status).toBe(403);
    expect((await atExt('GET', '/api/v1/namespaces/default/configmaps', 'nobody-token')).status).toBe(401);
  });
});

describe('the rbac/bootstrap-roles hook of a server whose default namespaces leave out kube-system', () => {
  it('creates kube-system for extension-apiserver-authentication-reader (kube’s tryEnsureNamespace)', async () => {
    const errors: string[] = [];
    const rbac = new RBAC({ authorizer: () => authorizer, onError: (_, what) => errors.push(what) });
    const authorizer: Authorizer = buildAuthorizer({ modes: ['RBAC'] }, { RBAC: () => rbac.authorizer });
    const server = new GenericAPIServer({
      storage: new MemoryStorage(),
      resources: [Namespace, ConfigMap],
      providers: [rbac.provider()],
      defaultNamespaces: ['default'],
      authorizer,
    });
    try {
      await server.start();
      const namespaces = server.store('namespaces') as { get(ctx: object, name: string): Promise<{ metadata: { name?: string } }> };
      expect((await namespaces.get({}, 'kube-system')).metadata.name).toBe('kube-system');
      const roles = server.store('roles.rbac.authorization.k8s.io') as { get(ctx: object, name: string): Promise<{ rules?: unknown[] }> };
      expect((await roles.get({ namespace: 'kube-system' }, 'extension-apiserver-authentication-reader')).rules).toHaveLength(1);
      expect(errors).toEqual([]);
    } finally {
      await server.shutdown();
    }
  });
});
