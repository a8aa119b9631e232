import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCA } from '../../../authn/src/test-support/test-ca.ts';
import type { ValidatingWebhook } from '../admissionregistration/types.ts';
import { kubeconfigAuthenticationInfoResolver, webhookAuthenticationFromConfig } from './authentication-info.ts';
import { AdmissionWebhookServer } from './test-support/admission-webhook-server.ts';
import { hookFor, namespaces, validatingConfig, widgetAttrs } from './test-support/fixtures.ts';
import { ValidatingWebhooks } from './validating-webhooks.ts';

const user = (name: string, token: string) => ({ name, user: { token } });

describe('webhook credentials from a kubeconfig (kube defaultAuthenticationInfoResolver)', () => {
  it('looks users up by host:port, then *.<suffix>, then without :443, then *, then the current context', () => {
    const r = kubeconfigAuthenticationInfoResolver({
      users: [
        user('hook.example.com:8443', 'exact'),
        user('*.svc:443', 'svc'),
        user('*.example.org', 'no-port'),
        user('*', 'star'),
        user('ctx-user', 'ctx'),
      ],
      contexts: [{ name: 'c', context: { user: 'ctx-user' } }],
      'current-context': 'c',
    });
    expect(r.clientConfigFor('hook.example.com:8443')?.token).toBe('exact');
    expect(r.clientConfigFor('mutator.webhooks.svc:443')?.token).toBe('svc');
    expect(r.clientConfigFor('a.example.org:443')?.token).toBe('no-port');
    expect(r.clientConfigFor('a.example.org:8443')?.token).toBe('star');
    const noStar = kubeconfigAuthenticationInfoResolver({
      users: [user('ctx-user', 'ctx')],
      contexts: [{ name: 'c', context: { user: 'ctx-user' } }],
      'current-context': 'c',
    });
    expect(noStar.clientConfigFor('x:1')?.token).toBe('ctx');
    expect(kubeconfigAuthenticationInfoResolver({ users: [user('other:1', 't')] }).clientConfigFor('x:1')).toBeUndefined();
  });

  describe('against a webhook that asks for a client certificate', () => {
    let server: AdmissionWebhookServer;
    let dir: string;
    let kubeconfig: string;
    beforeAll(async () => {
      const clients = await makeTestCA('webhook-clients');
      server = await AdmissionWebhookServer.start([], clients.pem);
      const cert = await clients.issue('CN=kube-apiserver', 'client');
      dir = mkdtempSync(join(tmpdir(), 'kapi-webhook-auth-'));
      writeFileSync(join(dir, 'client.key'), cert.key);
      kubeconfig = join(dir, 'kubeconfig.yaml');
      writeFileSync(
        kubeconfig,
        [
          'apiVersion: v1',
          'kind: Config',
          'users:',
          `- name: "${new URL(server.url).host}"`,
          '  user:',
          `    client-certificate-data: ${Buffer.from(cert.cert).toString('base64')}`,
          '    client-key: client.key',
          '    token: s3cret',
        ].join('\n'),
      );
    });
    afterAll(async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("presents the kubeconfig user's certificate and token named by the plugin's WebhookAdmissionConfiguration", async () => {
      const authentication = webhookAuthenticationFromConfig({
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: 'WebhookAdmissionConfiguration',
        kubeConfigFile: kubeconfig,
      });
      const p = new ValidatingWebhooks({
        configurations: () => [validatingConfig('c', [hookFor<ValidatingWebhook>(server, 'auth.example.com', '/auth')])],
        namespaces: namespaces(),
        ...(authentication ? { authentication } : {}),
      });
      try {
        await p.validate(widgetAttrs());
      } finally {
        p.close();
      }
      expect(server.received[0]).toMatchObject({ clientCN: 'kube-apiserver', authorization: 'Bearer s3cret' });
    });

    it("refuses kube's way a relative kubeConfigFile or another kind", () => {
      expect(webhookAuthenticationFromConfig(undefined)).toBeUndefined();
      expect(() =>
        webhookAuthenticationFromConfig({
          apiVersion: 'apiserver.config.k8s.io/v1',
          kind: 'WebhookAdmissionConfiguration',
          kubeConfigFile: 'rel.yaml',
        }),
      ).toThrow('kubeConfigFile: Invalid value: "rel.yaml": must be an absolute file path');
      expect(() => webhookAuthenticationFromConfig({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'Other' })).toThrow(
        'no kind "Other" is registered for version "apiserver.config.k8s.io/v1" in scheme "admission plugin config"',
      );
    });
  });
});
