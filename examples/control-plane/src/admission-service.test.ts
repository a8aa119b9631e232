import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdmissionWebhookServer } from '../../../packages/admission/src/webhook/test-support/admission-webhook-server.ts';
import { type ControlPlane, startControlPlane } from './control-plane.ts';

/**
 * The control plane's admission webhooks find a `clientConfig.service` as kube-apiserver does without a Service
 * network: through the Service and Endpoints objects created through the API (the resolver the aggregator uses), with
 * no --admission-webhook-service entry. A real HTTPS webhook the test starts denies ConfigMap creates.
 */

const T = 60_000;
const SERVICE = { namespace: 'hooks', name: 'denier' };

interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked field by field
  body: any;
}

/** One request as the control plane's admin (its token), verifying the server with the kubeconfig's CA. */
async function call(cp: ControlPlane, method: string, path: string, body?: unknown): Promise<Reply> {
  const kubeconfig = await readFile(cp.kubeconfigPath, 'utf8');
  const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kubeconfig)?.[1] ?? '', 'base64');
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, cp.url),
      { method, ca, headers: { authorization: `Bearer ${cp.token}`, 'content-type': 'application/json', accept: 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe("the control plane's admission webhooks reached through Service and Endpoints objects", () => {
  let tmp: string;
  let cp: ControlPlane;
  let webhook: AdmissionWebhookServer;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'kapi-admission-service-'));
    webhook = await AdmissionWebhookServer.start([`${SERVICE.name}.${SERVICE.namespace}.svc`]);
    webhook.reply = () => ({ response: { allowed: false, status: { code: 403, message: 'denied through the Service' } } });
    cp = await startControlPlane({ port: 0, dataDir: join(tmp, 'data') });
  }, T);
  afterAll(async () => {
    await cp?.stop();
    await webhook?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }, T);

  it('calls the webhook at the address the Endpoints give for the Service port it names', { timeout: T }, async () => {
    const webhookPort = Number(new URL(webhook.url).port);
    const created = (r: Reply): void => expect(r.status, JSON.stringify(r.body)).toBe(201);
    created(await call(cp, 'POST', '/api/v1/namespaces', { metadata: { name: SERVICE.namespace } }));
    created(await call(cp, 'POST', '/api/v1/namespaces', { metadata: { name: 'guarded', labels: { guarded: 'yes' } } }));
    created(
      await call(cp, 'POST', `/api/v1/namespaces/${SERVICE.namespace}/services`, {
        metadata: { name: SERVICE.name },
        spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
      }),
    );
    created(
      await call(cp, 'POST', `/api/v1/namespaces/${SERVICE.namespace}/endpoints`, {
        metadata: { name: SERVICE.name },
        subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: webhookPort }] }],
      }),
    );
    created(
      await call(cp, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
        metadata: { name: 'deny-configmaps' },
        webhooks: [
          {
            name: 'deny.hooks.example.com',
            clientConfig: { service: { ...SERVICE, port: 443, path: '/deny' }, caBundle: webhook.caBundle },
            rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
            namespaceSelector: { matchLabels: { guarded: 'yes' } },
            failurePolicy: 'Fail',
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            timeoutSeconds: 5,
          },
        ],
      }),
    );

    // The configuration, the Service and its Endpoints reach admission through watch caches: poll with a dry run.
    const deadline = Date.now() + 10_000;
    let reply: Reply;
    for (;;) {
      reply = await call(cp, 'POST', '/api/v1/namespaces/guarded/configmaps?dryRun=All', { metadata: { name: 'c' } });
      if (reply.status !== 201 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(reply.status, JSON.stringify(reply.body)).toBe(403);
    expect(reply.body.message).toBe('admission webhook "deny.hooks.example.com" denied the request: denied through the Service');
    const last = webhook.received.at(-1);
    expect(last?.path).toBe('/deny?timeout=5s');
    expect(last?.servername).toBe(`${SERVICE.name}.${SERVICE.namespace}.svc`);
    // A namespace the webhook does not select is not asked.
    expect((await call(cp, 'POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'c' } })).status).toBe(201);
  });
});
