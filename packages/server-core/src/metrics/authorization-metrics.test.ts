import { TokenFileAuthenticator, withAuthenticatedGroup } from '@kapi/authn';
import { AlwaysDenyAuthorizer, type Authorizer, unionAuthorizer } from '@kapi/authz';
import { ConfigMap, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { type Listening, listen } from '../filters/serve.ts';
import { GenericAPIServer } from '../server/generic-api-server.ts';
import { APIServerMetrics } from './apiserver-metrics.ts';
import { AuthorizationMetrics, authorizerLabelsForMode, instrumentedAuthorizer } from './authorization-metrics.ts';
import { authorizationWebhookMetrics } from './authorization-webhook-metrics.ts';

/** The value of one sample in a Prometheus text exposition, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

let running: { server: GenericAPIServer; http: Listening } | undefined;
afterEach(async () => {
  await running?.http.close();
  await running?.server.shutdown();
  running = undefined;
});

describe('authorizerLabelsForMode', () => {
  it("names a mode as kube's non-structured configuration does", () => {
    expect(authorizerLabelsForMode('RBAC')).toEqual({ type: 'RBAC', name: 'rbac' });
    expect(authorizerLabelsForMode('Node')).toEqual({ type: 'Node', name: 'node' });
    expect(authorizerLabelsForMode('AlwaysAllow')).toEqual({ type: 'AlwaysAllow', name: 'alwaysallow' });
    expect(authorizerLabelsForMode('Webhook')).toEqual({ type: 'Webhook', name: 'default' });
  });
});

describe('instrumentedAuthorizer', () => {
  it('counts each mode of a union under its own labels, and keeps rulesFor', async () => {
    const registry = new Registry();
    const metrics = new AuthorizationMetrics(registry);
    const node: Authorizer = {
      authorize: async (a) => ({ decision: a.user.name.startsWith('system:node:') ? 'Allow' : 'NoOpinion', reason: '' }),
      rulesFor: async () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
    };
    const denyBob: Authorizer = { authorize: async (a) => ({ decision: a.user.name === 'bob' ? 'Deny' : 'NoOpinion', reason: '' }) };
    const union = unionAuthorizer(
      instrumentedAuthorizer(authorizerLabelsForMode('Node'), node, metrics),
      instrumentedAuthorizer(authorizerLabelsForMode('ABAC'), denyBob, metrics),
      // kube's AlwaysDeny answers NoOpinion ("Everything is forbidden."): no terminal decision to count.
      instrumentedAuthorizer(authorizerLabelsForMode('AlwaysDeny'), new AlwaysDenyAuthorizer(), metrics),
    );
    const attrs = {
      verb: 'get',
      resourceRequest: true,
      namespace: '',
      apiGroup: '',
      apiVersion: 'v1',
      resource: 'nodes',
      subresource: '',
      name: '',
      path: '',
    };
    await union.authorize({ ...attrs, user: { name: 'system:node:a', groups: [] } });
    await union.authorize({ ...attrs, user: { name: 'bob', groups: [] } });
    await union.authorize({ ...attrs, user: { name: 'carol', groups: [] } });
    const text = await registry.metrics();
    expect(sample(text, 'apiserver_authorization_decisions_total{type="Node",name="node",decision="allowed"}')).toBe(1);
    expect(sample(text, 'apiserver_authorization_decisions_total{type="ABAC",name="abac",decision="denied"}')).toBe(1);
    expect(text).not.toContain('type="AlwaysDeny"');
    const rules = await instrumentedAuthorizer(authorizerLabelsForMode('Node'), node, metrics).rulesFor?.({ name: 'x', groups: [] }, 'ns');
    expect(rules?.incomplete).toBe(false);
  });
});

describe('authorizationWebhookMetrics', () => {
  it("registers kube's three webhook series once per registry and feeds them", async () => {
    const registry = new Registry();
    const metrics = authorizationWebhookMetrics(registry);
    expect(authorizationWebhookMetrics(registry)).toBe(metrics);
    metrics.onEvaluation('default', 'success', 0.02);
    metrics.onEvaluation('default', 'success', 0.03);
    metrics.onEvaluation('default', 'timeout', 30);
    metrics.onFailOpen('default', 'timeout');
    const text = await registry.metrics();
    expect(text).toContain('# HELP apiserver_authorization_webhook_evaluations_total Round-trips to authorization webhooks.');
    expect(text).toContain('# HELP apiserver_authorization_webhook_duration_seconds Request latency in seconds.');
    expect(text).toContain(
      '# HELP apiserver_authorization_webhook_evaluations_fail_open_total NoOpinion results due to webhook timeout or error.',
    );
    expect(sample(text, 'apiserver_authorization_webhook_evaluations_total{name="default",result="success"}')).toBe(2);
    expect(sample(text, 'apiserver_authorization_webhook_evaluations_total{name="default",result="timeout"}')).toBe(1);
    expect(sample(text, 'apiserver_authorization_webhook_duration_seconds_bucket{le="0.025",name="default",result="success"}')).toBe(1);
    expect(sample(text, 'apiserver_authorization_webhook_duration_seconds_sum{name="default",result="success"}')).toBeCloseTo(0.05);
    expect(sample(text, 'apiserver_authorization_webhook_evaluations_fail_open_total{name="default",result="timeout"}')).toBe(1);
  });
});

describe('GenericAPIServer /metrics', () => {
  it("serves the authorization filter's attempts and decisions under authorizerLabels, and webhook metrics on its registry", async () => {
    const metrics = new APIServerMetrics();
    const webhook = authorizationWebhookMetrics(metrics.registry);
    const server = new GenericAPIServer({
      storage: new MemoryStorage(),
      resources: [Namespace, ConfigMap],
      metrics,
      authentication: { authenticator: withAuthenticatedGroup(TokenFileAuthenticator.fromCSV('t,bob,1\n')) },
      authorizer: {
        authorize: async (a) => ({ decision: a.path === '/metrics' || a.verb === 'list' ? 'Allow' : 'NoOpinion', reason: '' }),
      },
      authorizerLabels: authorizerLabelsForMode('Webhook'),
    });
    await server.start();
    running = { server, http: await listen(server.handler) };
    const headers = { authorization: 'Bearer t' };
    expect((await fetch(`${running.http.url}/api/v1/namespaces/default/configmaps`, { headers })).status).toBe(200);
    expect((await fetch(`${running.http.url}/api/v1/namespaces/default/configmaps/x`, { headers })).status).toBe(403);
    webhook.onEvaluation('default', 'success', 0.01);
    const text = await (await fetch(`${running.http.url}/metrics`, { headers })).text();
    // The list, and the /metrics request itself.
    expect(sample(text, 'apiserver_authorization_decisions_total{type="Webhook",name="default",decision="allowed"}')).toBe(2);
    expect(sample(text, 'authorization_attempts_total{result="no-opinion"}')).toBe(1);
    expect(sample(text, 'apiserver_authorization_webhook_evaluations_total{name="default",result="success"}')).toBe(1);
  });
});
