import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthorizationAttributes } from '@kapi/authz';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issue, makeCA } from '../../../authn/test/pki.ts';
import { delegatingAuthentication } from './delegating-authentication.ts';
import { delegatingAuthorization } from './delegating-authorization.ts';
import { inClusterConfig, NOT_IN_CLUSTER, SERVICE_ACCOUNT_DIR } from './delegation-connection.ts';

/**
 * The in-cluster connection (client-go's rest.InClusterConfig) against a real HTTPS main server that answers
 * TokenReviews, SubjectAccessReviews and the extension-apiserver-authentication list, remembering which bearer token
 * each request carried; the pod's filesystem is a temporary root.
 */
describe('an in-cluster delegation connection', () => {
  let root: string;
  let saDir: string;
  let server: Server;
  let env: Record<string, string>;
  /** The Authorization header of each request to the main server, with its path. */
  const seen: { path: string; authorization: string | undefined }[] = [];
  let clock = 1_000_000;
  const now = (): number => clock;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'kapi-in-cluster-'));
    saDir = join(root, SERVICE_ACCOUNT_DIR);
    await mkdir(saDir, { recursive: true });
    const ca = await makeCA('cluster-ca');
    const serving = await issue(ca, { cn: 'localhost', eku: ['serverAuth'], ips: ['127.0.0.1'] });
    await writeFile(join(saDir, 'ca.crt'), ca.cert);
    await writeFile(join(saDir, 'token'), 'sa-token-1\n');
    server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0] ?? '';
        seen.push({ path, authorization: req.headers.authorization });
        res.setHeader('content-type', 'application/json');
        if (path.endsWith('/tokenreviews')) {
          const review = JSON.parse(body);
          const ok = review.spec.token.startsWith('user-');
          res.end(
            JSON.stringify({
              ...review,
              status: ok ? { authenticated: true, user: { username: review.spec.token.slice(5), groups: ['dev'] } } : {},
            }),
          );
        } else if (path.endsWith('/subjectaccessreviews')) {
          const review = JSON.parse(body);
          res.end(JSON.stringify({ ...review, status: { allowed: review.spec.user === 'alice' } }));
        } else if (path.endsWith('/configmaps')) {
          res.end(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
        } else {
          res.statusCode = 404;
          res.end('{}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String((server.address() as AddressInfo).port) };
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(root, { recursive: true, force: true });
  });

  it("fails as client-go's ErrNotInCluster without KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT", () => {
    expect(NOT_IN_CLUSTER).toBe(
      'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined',
    );
    expect(() => inClusterConfig(root, {})).toThrow(NOT_IN_CLUSTER);
    expect(() => inClusterConfig(root, { KUBERNETES_SERVICE_HOST: '10.0.0.1' })).toThrow(NOT_IN_CLUSTER);
    expect(() => inClusterConfig(root, { KUBERNETES_SERVICE_PORT: '443' })).toThrow(NOT_IN_CLUSTER);
  });

  it('addresses https://host:port, an IPv6 host bracketed, with the mounted CA and token', () => {
    const c = inClusterConfig(root, { KUBERNETES_SERVICE_HOST: 'fd00:10:96::1', KUBERNETES_SERVICE_PORT: '443' });
    expect(c.server).toBe('https://[fd00:10:96::1]:443');
    expect(c.token).toBe('sa-token-1');
    expect(String(c.ca)).toContain('-----BEGIN CERTIFICATE-----');
    expect(inClusterConfig(root, { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }).server).toBe(
      'https://10.96.0.1:443',
    );
  });

  it('fails at start when the pod has no service account token', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'kapi-in-cluster-none-'));
    try {
      expect(() => inClusterConfig(empty, env)).toThrow(/ENOENT/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('authenticates and authorizes through the main server with the token, and picks up a rotated token after a minute', async () => {
    await writeFile(join(saDir, 'token'), 'sa-token-1\n');
    const connection = { inCluster: true as const, root, env, tokenRefresh: { now } };
    const authn = await delegatingAuthentication({ connection });
    const authz = delegatingAuthorization({ connection });
    const attrs = (name: string): AuthorizationAttributes => ({
      user: { name, groups: [] },
      verb: 'get',
      resourceRequest: true,
      namespace: 'default',
      apiGroup: 'wardle.example.com',
      apiVersion: 'v1alpha1',
      resource: 'flunders',
      subresource: '',
      name: '',
      path: '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders',
    });
    const login = (token: string) => authn.authentication.authenticator.authenticate({ headers: { authorization: `Bearer ${token}` } });
    try {
      expect(seen.at(-1)).toEqual({
        path: '/api/v1/namespaces/kube-system/configmaps',
        authorization: 'Bearer sa-token-1',
      });
      expect((await login('user-alice'))?.user.name).toBe('alice');
      expect(seen.at(-1)).toEqual({ path: '/apis/authentication.k8s.io/v1/tokenreviews', authorization: 'Bearer sa-token-1' });
      expect((await authz.authorizer.authorize(attrs('alice'))).decision).toBe('Allow');
      expect(seen.at(-1)).toEqual({
        path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        authorization: 'Bearer sa-token-1',
      });

      // The kubelet rotates the projected token: within the minute the cached one is still sent.
      await writeFile(join(saDir, 'token'), 'sa-token-2\n');
      clock += 30_000;
      await login('user-bob');
      expect(seen.at(-1)?.authorization).toBe('Bearer sa-token-1');

      // Past client-go's period (less its 10 s leeway) the file is read again.
      clock += 30_000;
      expect((await login('user-carol'))?.user.name).toBe('carol');
      expect(seen.at(-1)).toEqual({ path: '/apis/authentication.k8s.io/v1/tokenreviews', authorization: 'Bearer sa-token-2' });
      expect((await authz.authorizer.authorize(attrs('bob'))).decision).not.toBe('Allow');
      expect(seen.at(-1)?.authorization).toBe('Bearer sa-token-2');

      // A token file gone keeps the token last read (client-go's "Unable to rotate token").
      await rm(join(saDir, 'token'));
      clock += 120_000;
      await login('user-dave');
      expect(seen.at(-1)?.authorization).toBe('Bearer sa-token-2');
    } finally {
      authn.close();
      authz.close();
    }
  });
});
