import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '@kapi/authz';
import { AlwaysDenyAuthorizer } from '@kapi/authz';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditBackend } from '../audit/backend.ts';
import { policyAtLevel } from '../audit/policy.ts';
import type { AuditEvent } from '../audit/types.ts';
import { AuthorizationMetrics, authorizerLabelsForMode } from '../metrics/authorization-metrics.ts';
import { RequestInfoResolver } from '../request-info.ts';
import { withAudit } from './audit.ts';
import { type AuthorizationOptions, withAuthorization } from './authorization.ts';
import { compose } from './compose.ts';
import type { Filter } from './context.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const resolver = new RequestInfoResolver();
const requestInfo: Filter = async (ctx, next) => {
  ctx.requestInfo = resolver.resolve(ctx.req.method ?? 'GET', ctx.req.url ?? '/');
  await next();
};
const asBob: Filter = async (ctx, next) => {
  ctx.user = { name: 'bob', groups: ['system:authenticated'] };
  await next();
};

async function serve(
  authorizer: Authorizer,
  filters: Filter[] = [requestInfo, asBob],
  options: Omit<AuthorizationOptions, 'authorizer'> = {},
): Promise<string> {
  srv = await listen(
    compose([...filters, withAuthorization({ authorizer, ...options })], async (ctx) => {
      ctx.res.end('ok');
    }),
  );
  return srv.url;
}

const fixed = (result: AuthorizationResult): Authorizer => ({ authorize: async () => result });

describe('withAuthorization', () => {
  it('passes what the authorizer allows, with the request’s attributes', async () => {
    const seen: AuthorizationAttributes[] = [];
    const url = await serve({
      authorize: async (a) => {
        seen.push(a);
        return { decision: 'Allow', reason: '' };
      },
    });
    const r = await fetch(`${url}/api/v1/namespaces/default/configmaps/x`);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('ok');
    expect(seen).toEqual([
      {
        user: { name: 'bob', groups: ['system:authenticated'] },
        verb: 'get',
        resourceRequest: true,
        path: '/api/v1/namespaces/default/configmaps/x',
        apiGroup: '',
        apiVersion: 'v1',
        resource: 'configmaps',
        subresource: '',
        namespace: 'default',
        name: 'x',
      },
    ]);
  });

  it('answers NoOpinion and Deny with kube’s 403 Status', async () => {
    const url = await serve(new AlwaysDenyAuthorizer());
    const r = await fetch(`${url}/api/v1/namespaces/default/configmaps/x`);
    expect(r.status).toBe(403);
    expect(await r.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default": Everything is forbidden.',
      reason: 'Forbidden',
      details: { name: 'x', kind: 'configmaps' },
      code: 403,
    });
  });

  it('words group, cluster-scope, subresource and non-resource denials as kube', async () => {
    const url = await serve(fixed({ decision: 'Deny', reason: '' }));
    const message = async (method: string, path: string): Promise<string> => {
      const r = await fetch(`${url}${path}`, { method });
      expect(r.status).toBe(403);
      return ((await r.json()) as { message: string }).message;
    };
    expect(await message('GET', '/apis/apps/v1/deployments')).toBe(
      'deployments.apps is forbidden: User "bob" cannot list resource "deployments" in API group "apps" at the cluster scope',
    );
    expect(await message('PUT', '/api/v1/namespaces/default/pods/p/status')).toBe(
      'pods "p" is forbidden: User "bob" cannot update resource "pods/status" in API group "" in the namespace "default"',
    );
    expect(await message('GET', '/healthz')).toBe('forbidden: User "bob" cannot get path "/healthz"');
    expect(await message('GET', '/api/v1/watch/namespaces/ns/secrets')).toBe(
      'secrets is forbidden: User "bob" cannot watch resource "secrets" in API group "" in the namespace "ns"',
    );
  });

  it('an authorizer error without an Allow is a 500; no RequestInfo is a 500', async () => {
    let url = await serve({
      authorize: async () => {
        throw new Error('webhook unreachable');
      },
    });
    let r = await fetch(`${url}/api/v1/pods`);
    expect(r.status).toBe(500);
    expect(await r.json()).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: webhook unreachable' });
    await srv?.close();

    url = await serve(fixed({ decision: 'Allow', reason: '' }), [asBob]);
    r = await fetch(`${url}/api/v1/pods`);
    expect(r.status).toBe(500);
    expect(await r.json()).toMatchObject({ message: 'Internal error occurred: no RequestInfo found in the context' });
  });
});

/** The value of one sample in a Prometheus text exposition, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('withAuthorization metrics', () => {
  it("counts attempts by kube's result and terminal decisions under the authorizer's labels", async () => {
    const registry = new Registry();
    const metrics = new AuthorizationMetrics(registry);
    const byPath: Authorizer = {
      async authorize(a) {
        if (a.path.endsWith('/allowed')) return { decision: 'Allow', reason: '' };
        if (a.path.endsWith('/denied')) return { decision: 'Deny', reason: 'no' };
        if (a.path.endsWith('/broken')) throw new Error('down');
        return { decision: 'NoOpinion', reason: '' };
      },
    };
    const url = await serve(byPath, [requestInfo, asBob], { metrics, labels: authorizerLabelsForMode('RBAC') });
    for (const p of ['allowed', 'allowed', 'denied', 'other', 'broken']) await fetch(`${url}/api/v1/namespaces/ns/configmaps/${p}`);
    const text = await registry.metrics();
    expect(sample(text, 'authorization_attempts_total{result="allowed"}')).toBe(2);
    expect(sample(text, 'authorization_attempts_total{result="denied"}')).toBe(1);
    expect(sample(text, 'authorization_attempts_total{result="no-opinion"}')).toBe(1);
    expect(sample(text, 'authorization_attempts_total{result="error"}')).toBe(1);
    expect(sample(text, 'authorization_duration_seconds_count{result="allowed"}')).toBe(2);
    // kube counts Allow and Deny only (NoOpinion is not terminal), as "allowed"/"denied", type and name from the mode.
    expect(sample(text, 'apiserver_authorization_decisions_total{type="RBAC",name="rbac",decision="allowed"}')).toBe(2);
    expect(sample(text, 'apiserver_authorization_decisions_total{type="RBAC",name="rbac",decision="denied"}')).toBe(1);
    expect(text).not.toMatch(/apiserver_authorization_decisions_total\{[^}]*decision="(no-opinion|error)"/);
  });

  it('counts no decision without labels (an instrumented authorizer counts its own)', async () => {
    const registry = new Registry();
    const metrics = new AuthorizationMetrics(registry);
    const url = await serve(fixed({ decision: 'Allow', reason: '' }), [requestInfo, asBob], { metrics });
    await fetch(`${url}/api/v1/pods`);
    const text = await registry.metrics();
    expect(sample(text, 'authorization_attempts_total{result="allowed"}')).toBe(1);
    expect(text).not.toMatch(/^apiserver_authorization_decisions_total\{/m);
  });
});

describe('withAuthorization audit annotations', () => {
  class MemoryBackend implements AuditBackend {
    events: AuditEvent[] = [];
    processEvents(events: readonly AuditEvent[]): void {
      this.events.push(...events);
    }
    async shutdown(): Promise<void> {}
  }

  it('are kube\'s: decision allow or forbid with the reason, and reason "internal error" alone for an error', async () => {
    const backend = new MemoryBackend();
    const byPath: Authorizer = {
      async authorize(a) {
        if (a.path.endsWith('/allowed')) return { decision: 'Allow', reason: 'RBAC: allowed by RoleBinding "rb/ns"' };
        if (a.path.endsWith('/broken')) throw new Error('down');
        return { decision: 'NoOpinion', reason: 'nobody said yes' };
      },
    };
    const audit = withAudit({ backend, policy: policyAtLevel('Metadata') });
    const url = await serve(byPath, [requestInfo, asBob, audit]);
    const annotations = async (path: string): Promise<Record<string, string> | undefined> => {
      await fetch(`${url}/api/v1/namespaces/ns/configmaps/${path}`);
      return backend.events.at(-1)?.annotations;
    };
    expect(await annotations('allowed')).toEqual({
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason': 'RBAC: allowed by RoleBinding "rb/ns"',
    });
    expect(await annotations('other')).toEqual({
      'authorization.k8s.io/decision': 'forbid',
      'authorization.k8s.io/reason': 'nobody said yes',
    });
    expect(await annotations('broken')).toEqual({ 'authorization.k8s.io/reason': 'internal error' });
  });
});
