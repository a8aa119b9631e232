import { FakeClock, StatusError } from '@kapi/apimachinery';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ValidatingWebhook, ValidatingWebhookConfiguration } from '../admissionregistration/types.ts';
import type { AdmissionMetrics } from '../metrics.ts';
import { AdmissionWebhookServer } from './test-support/admission-webhook-server.ts';
import { hookFor, namespaces, validatingConfig, widget, widgetAttrs } from './test-support/fixtures.ts';
import { ValidatingWebhooks, type ValidatingWebhooksOptions } from './validating-webhooks.ts';

let server: AdmissionWebhookServer;
let plugins: ValidatingWebhooks[] = [];

beforeAll(async () => {
  server = await AdmissionWebhookServer.start();
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

function plugin(configs: ValidatingWebhookConfiguration[], over: Partial<ValidatingWebhooksOptions> = {}): ValidatingWebhooks {
  const p = new ValidatingWebhooks({
    configurations: () => configs,
    namespaces: namespaces({ default: {}, prod: { env: 'prod' } }),
    ...over,
  });
  plugins.push(p);
  return p;
}
const hook = (name: string, path: string, over: Partial<ValidatingWebhook> = {}) => hookFor<ValidatingWebhook>(server, name, path, over);
const paths = () => server.received.map((r) => r.path.split('?')[0]).sort();

async function rejection(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return err as StatusError;
}

/** Records the webhook metrics. */
function recordingMetrics(): AdmissionMetrics & { log: string[] } {
  const log: string[] = [];
  const noop = (): void => {};
  return {
    log,
    observeStep: noop,
    observeController: noop,
    policyCheck: noop,
    observeWebhook: (name, type, op, rejected) => log.push(`observe ${name} ${type} ${op} ${rejected}`),
    webhookRequest: (name, type, op, code, rejected) => log.push(`request ${name} ${type} ${op} ${code} ${rejected}`),
    webhookRejection: (name, type, op, errorType, code) => log.push(`rejection ${name} ${type} ${op} ${errorType} ${code}`),
    webhookFailOpen: (name, type) => log.push(`failopen ${name} ${type}`),
  };
}

describe('ValidatingAdmissionWebhook', () => {
  it("refuses with the webhook's status: its code, reason and message behind kube's prefix", async () => {
    server.reply = () => ({ response: { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'widgets need an owner' } } });
    const metrics = recordingMetrics();
    const err = await rejection(
      plugin([validatingConfig('c', [hook('owner.example.com', '/owner')])], { metrics }).validate(widgetAttrs()),
    );
    expect(err.status).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 403,
      reason: 'Forbidden',
      message: 'admission webhook "owner.example.com" denied the request: widgets need an owner',
    });
    expect(metrics.log).toEqual([
      'rejection owner.example.com validate CREATE no_error 403',
      'observe owner.example.com validate CREATE true',
      'request owner.example.com validate CREATE 403 true',
    ]);
  });

  it('gives a denial without a code 400, and one without a message kube\'s "without explanation"', async () => {
    server.reply = () => ({ response: { allowed: false, status: { message: 'no' } } });
    const p = plugin([validatingConfig('c', [hook('deny.example.com', '/deny')])]);
    expect((await rejection(p.validate(widgetAttrs()))).status).toMatchObject({
      code: 400,
      message: 'admission webhook "deny.example.com" denied the request: no',
    });
    server.reply = () => ({ response: { allowed: false } });
    expect((await rejection(p.validate(widgetAttrs()))).message).toBe(
      'admission webhook "deny.example.com" denied the request without explanation',
    );
  });

  it('calls the matching webhooks in parallel', async () => {
    // Each webhook answers only once both requests have arrived: called one after the other, neither would answer.
    server.reply = async () => {
      await server.receivedCount(2);
      return { response: { allowed: true } };
    };
    await plugin([validatingConfig('c', [hook('one.example.com', '/one'), hook('two.example.com', '/two')])]).validate(widgetAttrs());
    expect(paths()).toEqual(['/one', '/two']);
  });

  it('selects by namespace labels, and reports a namespace that does not exist', async () => {
    const p = plugin([validatingConfig('c', [hook('prod.example.com', '/prod', { namespaceSelector: { matchLabels: { env: 'prod' } } })])]);
    await p.validate(widgetAttrs());
    expect(server.received).toHaveLength(0);
    await p.validate(widgetAttrs({ namespace: 'prod' }));
    expect(paths()).toEqual(['/prod']);
    const err = await rejection(p.validate(widgetAttrs({ namespace: 'missing' })));
    expect(err.status).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "missing" not found' });
    // A cluster-scoped request is never exempted by a namespace selector.
    await p.validate(widgetAttrs({ namespace: '' }));
    expect(paths()).toEqual(['/prod', '/prod']);
  });

  it("selects by the object's or the old object's labels", async () => {
    const p = plugin([
      validatingConfig('c', [
        hook('tier.example.com', '/tier', { objectSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }] } }),
      ]),
    ]);
    await p.validate(widgetAttrs({ object: widget('w1', { tier: 'silver' }) }));
    expect(server.received).toHaveLength(0);
    await p.validate(widgetAttrs({ object: widget('w1', { tier: 'gold' }) }));
    await p.validate(widgetAttrs({ operation: 'UPDATE', object: widget('w1'), oldObject: widget('w1', { tier: 'gold' }) }));
    expect(paths()).toEqual(['/tier', '/tier']);
  });

  it('calls a webhook only when its matchConditions hold, and applies failurePolicy to a condition that errs', async () => {
    const conditions = [
      { name: 'not-alice', expression: "request.userInfo.username != 'alice'" },
      { name: 'big', expression: 'object.spec.size > 2' },
    ];
    const p = plugin([validatingConfig('c', [hook('cond.example.com', '/cond', { matchConditions: conditions })])]);
    await p.validate(widgetAttrs({ object: widget('w1', {}, { size: 5 }) }));
    await p.validate(widgetAttrs({ userInfo: { name: 'bob', groups: [] }, object: widget('w1', {}, { size: 1 }) }));
    expect(server.received).toHaveLength(0);
    await p.validate(widgetAttrs({ userInfo: { name: 'bob', groups: [] }, object: widget('w1', {}, { size: 5 }) }));
    expect(paths()).toEqual(['/cond']);

    // `object.spec.missing` errs: under Fail the request is refused (403), under Ignore the webhook is skipped.
    const erring = [{ name: 'errs', expression: 'object.spec.missing > 2' }];
    const fail = plugin([validatingConfig('c', [hook('errs.example.com', '/errs', { matchConditions: erring })])]);
    const err = await rejection(fail.validate(widgetAttrs()));
    expect(err.code).toBe(403);
    expect(err.message).toMatch(/^widgets\.example\.kapi\.dev "w1" is forbidden: .*no such key: missing/);
    const ignore = plugin([
      validatingConfig('c', [hook('errs.example.com', '/errs', { matchConditions: erring, failurePolicy: 'Ignore' })]),
    ]);
    await ignore.validate(widgetAttrs());
    expect(paths()).toEqual(['/cond']);
  });

  it("times out under Fail with kube's error, and fails open under Ignore", async () => {
    server.reply = () => undefined;
    const clock = new FakeClock();
    const metrics = recordingMetrics();
    const p = plugin(
      [
        validatingConfig('c', [
          hook('hang.example.com', '/hang', { timeoutSeconds: 1 }),
          hook('hang-ok.example.com', '/hang-ok', { timeoutSeconds: 1, failurePolicy: 'Ignore' }),
        ]),
      ],
      { clock, metrics },
    );
    const attrs = widgetAttrs();
    const pending = rejection(p.validate(attrs));
    await server.receivedCount(2);
    clock.advance(1000);
    const err = await pending;
    expect(err.status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: `Internal error occurred: failed calling webhook "hang.example.com": failed to call webhook: Post "${server.url}/hang?timeout=1s": context deadline exceeded`,
    });
    expect(attrs.annotations['failed-open.validating.webhook.admission.k8s.io/round_0_index_1']).toBe('hang-ok.example.com');
    expect(metrics.log).toContain('failopen hang-ok.example.com validate');
    expect(metrics.log).toContain('rejection hang.example.com validate CREATE calling_webhook_error 400');
  });

  it("passes an error answer's Status message on as a failed call", async () => {
    server.reply = () => ({
      code: 503,
      body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'overloaded', code: 503 }),
    });
    const err = await rejection(plugin([validatingConfig('c', [hook('busy.example.com', '/busy')])]).validate(widgetAttrs()));
    expect(err.message).toBe('Internal error occurred: failed calling webhook "busy.example.com": failed to call webhook: overloaded');
  });

  it('refuses a validating webhook that answers with a patch', async () => {
    server.reply = () => ({ response: { allowed: true, patchType: 'JSONPatch', patch: Buffer.from('[]').toString('base64') } });
    const err = await rejection(plugin([validatingConfig('c', [hook('patch.example.com', '/patch')])]).validate(widgetAttrs()));
    expect(err.message).toBe(
      'Internal error occurred: failed calling webhook "patch.example.com": received invalid webhook response: validating webhook may not return response.patch',
    );
  });

  it('refuses a dry run for a webhook with side effects and passes warnings and audit annotations on', async () => {
    const err = await rejection(
      plugin([validatingConfig('c', [hook('fx.example.com', '/fx', { sideEffects: 'Some' })])]).validate(widgetAttrs({ dryRun: true })),
    );
    expect(err.status).toMatchObject({ code: 400, message: 'admission webhook "fx.example.com" does not support dry run' });
    expect(server.received).toHaveLength(0);

    server.reply = () => ({ response: { allowed: true, warnings: ['w1 is big'], auditAnnotations: { size: 'big' } } });
    const attrs = widgetAttrs({ dryRun: true });
    await plugin([validatingConfig('c', [hook('nofx.example.com', '/nofx')])]).validate(attrs);
    expect(attrs.warnings).toEqual(['w1 is big']);
    expect(attrs.annotations).toEqual({ 'nofx.example.com/size': 'big' });
  });

  it('matches rules by operation and subresource', async () => {
    const p = plugin([
      validatingConfig('c', [
        hook('status.example.com', '/status', {
          rules: [{ operations: ['UPDATE'], apiGroups: ['example.kapi.dev'], apiVersions: ['*'], resources: ['widgets/status'] }],
        }),
      ]),
    ]);
    await p.validate(widgetAttrs({ operation: 'UPDATE', oldObject: widget() }));
    await p.validate(widgetAttrs({ subresource: 'status' }));
    expect(server.received).toHaveLength(0);
    await p.validate(widgetAttrs({ operation: 'UPDATE', subresource: 'status', oldObject: widget() }));
    expect(server.received[0]?.review.request).toMatchObject({ subResource: 'status', requestSubResource: 'status', operation: 'UPDATE' });
  });

  it('keeps its connection to a webhook alive across requests', async () => {
    const before = server.connections;
    const p = plugin([validatingConfig('c', [hook('alive.example.com', '/alive')])]);
    for (let i = 0; i < 3; i++) await p.validate(widgetAttrs());
    expect(server.received).toHaveLength(3);
    expect(server.connections - before).toBe(1);
  });

  it('sends a request again on a new connection when a kept-alive one was dropped', async () => {
    const before = server.connections;
    server.reply = () => (server.received.length === 2 ? 'reset' : { response: { allowed: true } });
    const p = plugin([validatingConfig('c', [hook('drop.example.com', '/drop')])]);
    await p.validate(widgetAttrs());
    await p.validate(widgetAttrs());
    expect(server.received).toHaveLength(3);
    expect(server.connections - before).toBe(2);
  });

  it("waits for its sources to sync, and refuses with kube's 403 when they do not in time", async () => {
    const clock = new FakeClock();
    let synced!: () => void;
    const whenSynced = new Promise<void>((r) => {
      synced = r;
    });
    const p = plugin([validatingConfig('c', [hook('ready.example.com', '/ready')])], { clock, whenReady: () => whenSynced });
    const early = rejection(p.validate(widgetAttrs()));
    await Promise.resolve();
    clock.advance(10_000);
    expect((await early).status).toMatchObject({
      code: 403,
      message: 'widgets.example.kapi.dev "w1" is forbidden: not yet ready to handle request',
    });
    synced();
    await p.validate(widgetAttrs());
    expect(paths()).toEqual(['/ready']);
  });
});
