/**
 * The cost of one admission webhook call: ValidatingAdmissionWebhook's validate() with one matching webhook (an
 * AdmissionReview v1 built, POSTed over a kept-alive HTTPS connection verified with the caBundle, the answer parsed
 * and checked) next to a bare HTTPS POST of the same review to the same server over a kept-alive connection. Both
 * run one call at a time; the server (the tests' webhook, on 127.0.0.1) parses each body and answers allowed.
 * Figures are calls/s (best of alternating rounds); ratio = webhook / bare.
 * Run: `npm run bench` in packages/admission.
 */
import { Agent, request } from 'node:https';
import { bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import type { ValidatingWebhook } from '../src/admissionregistration/types.ts';
import { createAdmissionReview, newReviewUID } from '../src/webhook/admission-review.ts';
import { AdmissionWebhookServer } from '../src/webhook/test-support/admission-webhook-server.ts';
import { hookFor, namespaces, validatingConfig, widgetAttrs } from '../src/webhook/test-support/fixtures.ts';
import { ValidatingWebhooks } from '../src/webhook/validating-webhooks.ts';

const ROUNDS = 7;
const CALLS = 2_000;

const server = await AdmissionWebhookServer.start();
const webhooks = new ValidatingWebhooks({
  configurations: () => [validatingConfig('bench', [hookFor<ValidatingWebhook>(server, 'bench.example.com', '/validate')])],
  namespaces: namespaces(),
});
const agent = new Agent({ keepAlive: true, ca: Buffer.from(server.caBundle, 'base64') });
const attrs = widgetAttrs();
const kind = { group: 'example.kapi.dev', version: 'v1', kind: 'Widget' };
const resource = { group: 'example.kapi.dev', version: 'v1', resource: 'widgets' };
const body = JSON.stringify(createAdmissionReview('v1', newReviewUID(), attrs, { kind, resource, subresource: '' }, attrs.object, null));

const bare = (): Promise<void> =>
  new Promise((resolve, reject) => {
    const req = request(
      `${server.url}/bare`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const run = (call: () => Promise<void>) => () => {
  server.received.length = 0;
  return timeOps(CALLS, async () => {
    for (let i = 0; i < CALLS; i++) await call();
  });
};

const [webhook, reference] = await bestOfAlternating(
  ROUNDS,
  run(() => webhooks.validate(widgetAttrs())),
  run(bare),
);
printTable({
  title: 'admission webhook call vs bare HTTPS POST (calls/s, one at a time, kept-alive)',
  referenceName: 'bare HTTPS',
  rows: [['validate, 1 webhook', webhook, reference]],
});
webhooks.close();
agent.destroy();
await server.close();
