import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '@kapi/authz';
import { AlwaysDenyAuthorizer } from '@kapi/authz';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestInfoResolver } from '../request-info.ts';
import { withAuthorization } from './authorization.ts';
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

async function serve(authorizer: Authorizer, filters: Filter[] = [requestInfo, asBob]): Promise<string> {
  srv = await listen(
    compose([...filters, withAuthorization({ authorizer })], async (ctx) => {
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
