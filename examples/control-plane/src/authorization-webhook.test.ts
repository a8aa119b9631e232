import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCA } from '../../../packages/authn/src/test-support/test-ca.ts';
import { type ControlPlane, startControlPlane } from './control-plane.ts';

/**
 * `--authorization-mode=RBAC,Webhook` with a YAML kubeconfig (kube's --authorization-webhook-config-file) naming a real
 * HTTPS SubjectAccessReview webhook: RBAC has no opinion on the users below, so the webhook decides; its decisions and
 * round trips are counted in kube's metrics.
 */

const T = 30_000;

describe('the example control plane with a SubjectAccessReview webhook', () => {
  let tmp: string;
  let hook: Server;
  let cp: ControlPlane;
  const reviews: { apiVersion: string; spec: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'kapi-authz-webhook-'));
    const ca = await makeTestCA('sar-webhook-ca');
    hook = createServer(await ca.issue('CN=webhook', 'server'), (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c;
      });
      req.on('end', () => {
        const review = JSON.parse(body);
        reviews.push(review);
        const user = review.spec.user;
        const status =
          user === 'hooked'
            ? { allowed: true, reason: 'hooked may' }
            : user === 'blocked'
              ? { allowed: false, denied: true, reason: 'blocked by hook' }
              : {};
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status }));
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(hook.address() as AddressInfo).port}/authorize`;
    const config = join(tmp, 'authz-webhook.yaml');
    await writeFile(
      config,
      `apiVersion: v1
kind: Config
clusters:
- name: sar
  cluster:
    server: ${url}
    certificate-authority-data: ${Buffer.from(ca.pem).toString('base64')}
users:
- name: apiserver
  user: {}
contexts:
- name: webhook
  context: {cluster: sar, user: apiserver}
current-context: webhook
`,
    );
    const dataDir = join(tmp, 'data');
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await writeFile(
      join(dataDir, 'tokens.csv'),
      'admin-token-01234567,kapi-admin,kapi-admin,"system:masters"\nhooked-token,hooked,1\nblocked-token,blocked,2\n',
    );
    cp = await startControlPlane({
      port: 0,
      dataDir,
      insecureHTTP: true,
      storage: 'memory',
      authorizationModes: ['RBAC', 'Webhook'],
      authorizationWebhookConfigFile: config,
    });
  }, T);
  afterAll(async () => {
    await cp?.stop();
    hook?.closeAllConnections();
    await new Promise((r) => hook?.close(r));
    await rm(tmp, { recursive: true, force: true });
  }, T);

  const get = (token: string, path: string) => fetch(`${cp.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('lets the webhook allow and deny what RBAC has no opinion on, in kube v1beta1 reviews by default', async () => {
    expect((await get('hooked-token', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    const denied = await get('blocked-token', '/api/v1/namespaces/default/configmaps');
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { message: string }).message).toBe(
      'configmaps is forbidden: User "blocked" cannot list resource "configmaps" in API group "" in the namespace "default": blocked by hook',
    );
    expect(reviews.map((r) => [r.apiVersion, r.spec.user, (r.spec.resourceAttributes as { verb: string }).verb])).toEqual([
      ['authorization.k8s.io/v1beta1', 'hooked', 'list'],
      ['authorization.k8s.io/v1beta1', 'blocked', 'list'],
    ]);
    // Cached: the same request again is not sent.
    expect((await get('hooked-token', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    expect(reviews).toHaveLength(2);
  });

  it('counts the decisions per mode and the webhook round trips', async () => {
    const metrics = await (await get('admin-token-01234567', '/metrics')).text();
    const lines = metrics.split('\n');
    expect(lines).toContain('apiserver_authorization_decisions_total{type="Webhook",name="default",decision="allowed"} 2');
    expect(lines).toContain('apiserver_authorization_decisions_total{type="Webhook",name="default",decision="denied"} 1');
    // The admin's own requests are decided by system:masters, which is not a mode and not counted.
    expect(lines.filter((l) => l.startsWith('apiserver_authorization_decisions_total{'))).toHaveLength(2);
    expect(lines).toContain('apiserver_authorization_webhook_evaluations_total{name="default",result="success"} 2');
  });
});
