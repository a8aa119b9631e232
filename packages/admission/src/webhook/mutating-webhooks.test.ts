import { FakeClock, type KubeObject, StatusError } from '@kapi/apimachinery';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MutatingWebhook, MutatingWebhookConfiguration } from '../admissionregistration/types.ts';
import { AdmissionChain } from '../chain.ts';
import { noopAdmissionMetrics } from '../metrics.ts';
import { admissionPlugin } from '../plugin-factory.ts';
import { MutatingWebhooks, type MutatingWebhooksOptions } from './mutating-webhooks.ts';
import { AdmissionWebhookServer, jsonPatch } from './test-support/admission-webhook-server.ts';
import { hookFor, mutatingConfig, namespaces, widget, widgetAttrs } from './test-support/fixtures.ts';

let server: AdmissionWebhookServer;
let plugins: MutatingWebhooks[] = [];

beforeAll(async () => {
  server = await AdmissionWebhookServer.start(['mutator.webhooks.svc']);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  for (const p of plugins) p.close();
  plugins = [];
  server.received.length = 0;
  server.reply = () => ({ response: { allowed: true } });
});

function plugin(configs: MutatingWebhookConfiguration[], over: Partial<MutatingWebhooksOptions> = {}): MutatingWebhooks {
  const p = new MutatingWebhooks({ configurations: () => configs, namespaces: namespaces(), ...over });
  plugins.push(p);
  return p;
}
const hook = (name: string, path: string, over: Partial<MutatingWebhook> = {}) => hookFor<MutatingWebhook>(server, name, path, over);

async function rejection(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return err as StatusError;
}

describe('MutatingAdmissionWebhook', () => {
  it('sends an AdmissionReview v1 and applies the JSONPatch answer to the object in place', async () => {
    server.reply = () => ({
      response: {
        allowed: true,
        patchType: 'JSONPatch',
        patch: jsonPatch([
          { op: 'add', path: '/metadata/labels/team', value: 'blue' },
          { op: 'replace', path: '/spec/size', value: 3 },
        ]),
      },
    });
    const attrs = widgetAttrs();
    const object = attrs.object;
    await plugin([mutatingConfig('labels', [hook('labels.example.com', '/mutate')])]).admit(attrs);

    expect(attrs.object).toBe(object);
    expect(attrs.object).toEqual({
      ...widget(),
      metadata: { name: 'w1', namespace: 'default', labels: { team: 'blue' } },
      spec: { size: 3 },
    });
    expect(server.received).toHaveLength(1);
    const { path, review } = server.received[0] as (typeof server.received)[0];
    expect(path).toBe('/mutate?timeout=10s');
    expect(review.apiVersion).toBe('admission.k8s.io/v1');
    expect(review.kind).toBe('AdmissionReview');
    expect(review.request.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(review.request).toMatchObject({
      kind: { group: 'example.kapi.dev', version: 'v1', kind: 'Widget' },
      resource: { group: 'example.kapi.dev', version: 'v1', resource: 'widgets' },
      requestKind: { group: 'example.kapi.dev', version: 'v1', kind: 'Widget' },
      requestResource: { group: 'example.kapi.dev', version: 'v1', resource: 'widgets' },
      name: 'w1',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] },
      object: widget(),
      oldObject: null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    });
    expect(JSON.parse(attrs.annotations['mutation.webhook.admission.k8s.io/round_0_index_0'] as string)).toEqual({
      configuration: 'labels',
      webhook: 'labels.example.com',
      mutated: true,
    });
    expect(JSON.parse(attrs.annotations['patch.webhook.admission.k8s.io/round_0_index_0'] as string)).toMatchObject({
      configuration: 'labels',
      webhook: 'labels.example.com',
      patchType: 'JSONPatch',
    });
  });

  it('calls webhooks in order of configuration name, each seeing the changes of the ones before', async () => {
    server.reply = ({ path, review }) => {
      const labels = (review.request.object as KubeObject).metadata.labels ?? {};
      const step = path.startsWith('/first') ? 'first' : 'second';
      return {
        response: {
          allowed: true,
          patchType: 'JSONPatch',
          patch: jsonPatch([{ op: 'add', path: `/metadata/labels/${step}`, value: String(Object.keys(labels).length) }]),
        },
      };
    };
    const attrs = widgetAttrs();
    await plugin([
      mutatingConfig('b-config', [hook('second.example.com', '/second')]),
      mutatingConfig('a-config', [hook('first.example.com', '/first')]),
    ]).admit(attrs);
    expect(attrs.object?.metadata.labels).toEqual({ first: '0', second: '1' });
  });

  it('refuses a patch that changes the kind of the object', async () => {
    server.reply = () => ({
      response: { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'replace', path: '/kind', value: 'Gadget' }]) },
    });
    const err = await rejection(plugin([mutatingConfig('c', [hook('kind.example.com', '/kind')])]).admit(widgetAttrs()));
    expect(err.code).toBe(500);
    expect(err.message).toBe(
      'Internal error occurred: admission webhook "kind.example.com" changed the object\'s apiVersion/kind from example.kapi.dev/v1/Widget to example.kapi.dev/v1/Gadget',
    );
  });

  it("passes a denial on with the webhook's code and message", async () => {
    server.reply = () => ({ response: { allowed: false, status: { code: 422, message: 'size must be even', reason: 'Invalid' } } });
    const err = await rejection(plugin([mutatingConfig('c', [hook('even.example.com', '/even')])]).admit(widgetAttrs()));
    expect(err.status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'admission webhook "even.example.com" denied the request: size must be even',
    });
  });

  it("times out under failurePolicy Fail with kube's error, and is skipped under Ignore", async () => {
    server.reply = () => undefined; // never answers
    const clock = new FakeClock();
    const fail = plugin([mutatingConfig('c', [hook('slow.example.com', '/slow', { timeoutSeconds: 2 })])], { clock });
    const pending = rejection(fail.admit(widgetAttrs()));
    await server.receivedCount(1);
    clock.advance(2000);
    const err = await pending;
    expect(err.code).toBe(500);
    expect(err.reason).toBe('InternalError');
    expect(err.message).toBe(
      `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${server.url}/slow?timeout=2s": context deadline exceeded`,
    );

    const failOpen: string[] = [];
    const ignore = plugin([mutatingConfig('c', [hook('slow.example.com', '/slow', { timeoutSeconds: 2, failurePolicy: 'Ignore' })])], {
      clock,
      metrics: { ...noopAdmissionMetrics, webhookFailOpen: (name) => failOpen.push(name) },
    });
    const attrs = widgetAttrs();
    const passing = ignore.admit(attrs);
    await server.receivedCount(2);
    clock.advance(2000);
    await passing;
    expect(attrs.object).toEqual(widget());
    expect(failOpen).toEqual(['slow.example.com']);
    expect(attrs.annotations['failed-open.mutation.webhook.admission.k8s.io/round_0_index_0']).toBe('slow.example.com');
  });

  it('reinvokes an IfNeeded webhook when a later webhook changed the object', async () => {
    const calls: string[] = [];
    server.reply = ({ path, review }) => {
      const obj = review.request.object as KubeObject;
      calls.push(`${path.split('?')[0]}:${JSON.stringify(obj.metadata.labels ?? {})}`);
      if (path.startsWith('/late') && !obj.metadata.labels?.late)
        return {
          response: {
            allowed: true,
            patchType: 'JSONPatch',
            patch: jsonPatch([{ op: 'add', path: '/metadata/labels/late', value: 'yes' }]),
          },
        };
      return { response: { allowed: true } };
    };
    const webhooks = plugin([
      mutatingConfig('a', [hook('early.example.com', '/early', { reinvocationPolicy: 'IfNeeded' })]),
      mutatingConfig('b', [hook('late.example.com', '/late', { reinvocationPolicy: 'IfNeeded' })]),
      mutatingConfig('c', [hook('never.example.com', '/never', { reinvocationPolicy: 'Never' })]),
    ]);
    await new AdmissionChain([webhooks]).admit(widgetAttrs());
    // First pass: all three; second pass: only the IfNeeded webhook that ran before the change.
    expect(calls).toEqual(['/early:{}', '/late:{}', '/never:{"late":"yes"}', '/early:{"late":"yes"}']);
  });

  it('reinvokes IfNeeded webhooks when an in-tree plugin after them changed the object', async () => {
    const calls: string[] = [];
    server.reply = ({ path }) => {
      calls.push(path.split('?')[0] as string);
      return { response: { allowed: true } };
    };
    const webhooks = plugin([mutatingConfig('a', [hook('again.example.com', '/again', { reinvocationPolicy: 'IfNeeded' })])]);
    let changedByWebhookPass = false;
    const later = admissionPlugin({
      name: 'Later',
      admit: async (attrs) => {
        if (attrs.object && !attrs.object.metadata.labels?.later) {
          attrs.object.metadata.labels = { ...attrs.object.metadata.labels, later: 'x' };
          // kube's in-tree plugins never ask for a second pass; this one does, so the webhook sees the change since its call.
          attrs.reinvocation?.setShouldReinvoke();
          changedByWebhookPass = true;
        }
      },
    });
    await new AdmissionChain([webhooks, later]).admit(widgetAttrs());
    expect(changedByWebhookPass).toBe(true);
    expect(calls).toEqual(['/again', '/again']);
  });

  it('sends the object in the version the rule matched (matchPolicy Equivalent) and converts the patch back', async () => {
    server.reply = ({ review }) => {
      expect(review.request.object).toMatchObject({ apiVersion: 'example.kapi.dev/v1', spec: { size: 5 } });
      return { response: { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'replace', path: '/spec/size', value: 6 }]) } };
    };
    // v2 names the field `replicas` instead of v1's `size`.
    const toVersion = async (obj: KubeObject, version: string): Promise<KubeObject> => {
      const { spec, ...rest } = obj as KubeObject & { spec: Record<string, number> };
      const value = spec.size ?? spec.replicas;
      return { ...rest, apiVersion: `example.kapi.dev/${version}`, spec: version === 'v1' ? { size: value } : { replicas: value } };
    };
    const attrs = widgetAttrs({
      kind: { group: 'example.kapi.dev', version: 'v2', kind: 'Widget' },
      resource: { group: 'example.kapi.dev', version: 'v2', resource: 'widgets' },
      object: { apiVersion: 'example.kapi.dev/v2', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { replicas: 5 } },
      versions: { served: ['v2', 'v1'], convert: toVersion },
    });
    await plugin([mutatingConfig('c', [hook('v1only.example.com', '/v1')])]).admit(attrs);
    expect(attrs.object).toEqual({
      apiVersion: 'example.kapi.dev/v2',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'default' },
      spec: { replicas: 6 },
    });
    expect(server.received[0]?.review.request).toMatchObject({
      kind: { version: 'v1' },
      resource: { version: 'v1' },
      requestKind: { version: 'v2' },
      requestResource: { version: 'v2' },
    });

    // matchPolicy Exact does not match the other version.
    server.received.length = 0;
    await plugin([mutatingConfig('c', [hook('v1only.example.com', '/v1', { matchPolicy: 'Exact' })])]).admit(attrs);
    expect(server.received).toHaveLength(0);
  });

  it('speaks AdmissionReview v1beta1 to a webhook that lists only it (a patch without patchType is a JSON patch)', async () => {
    server.reply = () => ({
      apiVersion: 'admission.k8s.io/v1beta1',
      response: {
        uid: 'not-checked-in-v1beta1',
        allowed: true,
        patch: jsonPatch([{ op: 'add', path: '/metadata/labels/old', value: 'api' }]),
      },
    });
    const attrs = widgetAttrs();
    await plugin([mutatingConfig('c', [hook('beta.example.com', '/beta', { admissionReviewVersions: ['v1beta1'] })])]).admit(attrs);
    expect(server.received[0]?.review.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(attrs.object?.metadata.labels).toEqual({ old: 'api' });
  });

  it('refuses a v1 answer with another uid (a webhook that cannot be called)', async () => {
    server.reply = () => ({ response: { uid: 'someone-else', allowed: true } });
    const err = await rejection(plugin([mutatingConfig('c', [hook('uid.example.com', '/uid')])]).admit(widgetAttrs()));
    expect(err.message).toMatch(
      /^Internal error occurred: failed calling webhook "uid\.example\.com": received invalid webhook response: expected response\.uid="[0-9a-f-]+", got "someone-else"$/,
    );
  });

  it('reaches clientConfig.service through the service resolver, verifying the service name against the certificate', async () => {
    server.reply = () => ({
      response: { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'add', path: '/metadata/labels/svc', value: 'ok' }]) },
    });
    const svcHook = hook('svc.example.com', '', {
      clientConfig: { service: { namespace: 'webhooks', name: 'mutator', path: '/svc', port: 8443 }, caBundle: server.caBundle },
    });
    const attrs = widgetAttrs();
    await plugin([mutatingConfig('c', [svcHook])], { services: { 'webhooks/mutator:8443': server.url } }).admit(attrs);
    expect(attrs.object?.metadata.labels).toEqual({ svc: 'ok' });
    expect(server.received[0]).toMatchObject({ path: '/svc?timeout=10s', servername: 'mutator.webhooks.svc' });

    const err = await rejection(plugin([mutatingConfig('c', [svcHook])]).admit(widgetAttrs()));
    expect(err.message).toBe(
      'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://mutator.webhooks.svc:8443/svc?timeout=10s": service "mutator" in namespace "webhooks" (port 8443) is not known to this server',
    );
    // The default port is named as kube names it (net.JoinHostPort), and received as the Host header.
    const defaultPort = hook('svc443.example.com', '', {
      clientConfig: { service: { namespace: 'webhooks', name: 'mutator', path: '/svc' }, caBundle: server.caBundle },
    });
    const err443 = await rejection(plugin([mutatingConfig('c', [defaultPort])]).admit(widgetAttrs()));
    expect(err443.message).toContain('Post "https://mutator.webhooks.svc:443/svc?timeout=10s": service "mutator"');
  });

  it('does not trust a server whose certificate the caBundle did not sign', async () => {
    const other = await server.otherCABundle();
    const err = await rejection(
      plugin([mutatingConfig('c', [hook('ca.example.com', '/ca', { clientConfig: { url: `${server.url}/ca`, caBundle: other } })])]).admit(
        widgetAttrs(),
      ),
    );
    expect(err.message).toBe(
      `Internal error occurred: failed calling webhook "ca.example.com": failed to call webhook: Post "${server.url}/ca?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );
  });

  it("refuses a dry run with kube's 400 for a webhook with side effects, without calling it", async () => {
    for (const sideEffects of ['Unknown', 'Some'] as const) {
      const err = await rejection(
        plugin([mutatingConfig('c', [hook('effects.example.com', '/effects', { sideEffects })])]).admit(widgetAttrs({ dryRun: true })),
      );
      expect(err.status).toMatchObject({
        code: 400,
        reason: 'BadRequest',
        message: 'admission webhook "effects.example.com" does not support dry run',
      });
    }
    expect(server.received).toHaveLength(0);
    await plugin([mutatingConfig('c', [hook('noeffects.example.com', '/none', { sideEffects: 'NoneOnDryRun' })])]).admit(
      widgetAttrs({ dryRun: true }),
    );
    expect(server.received[0]?.review.request.dryRun).toBe(true);
  });

  it('passes warnings and audit annotations on (annotation keys prefixed by the webhook name)', async () => {
    server.reply = () => ({ response: { allowed: true, warnings: ['size is deprecated'], auditAnnotations: { decision: 'kept' } } });
    const attrs = widgetAttrs();
    await plugin([mutatingConfig('c', [hook('warn.example.com', '/warn')])]).admit(attrs);
    expect(attrs.warnings).toEqual(['size is deprecated']);
    expect(attrs.annotations['warn.example.com/decision']).toBe('kept');
  });

  it('never calls webhooks for writes of webhook configurations', async () => {
    const attrs = widgetAttrs({
      kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'MutatingWebhookConfiguration' },
      resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations' },
      namespace: '',
    });
    await plugin([
      mutatingConfig('c', [
        hook('all.example.com', '/all', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }),
      ]),
    ]).admit(attrs);
    expect(server.received).toHaveLength(0);
  });
});
