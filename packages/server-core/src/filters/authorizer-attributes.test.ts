import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { RequestInfoResolver } from '../request-info.ts';
import { authorizerAttributesFrom } from './authorizer-attributes.ts';
import { createRequestContext } from './context.ts';

const ctxFor = (method: string, url: string) => {
  const ctx = createRequestContext({ url, method, headers: {} } as IncomingMessage, {} as ServerResponse);
  ctx.requestInfo = new RequestInfoResolver().resolve(method, url);
  return ctx;
};

describe('authorizerAttributesFrom', () => {
  it('copies the RequestInfo and the user, as kube’s GetAuthorizerAttributes', () => {
    const ctx = ctxFor('PUT', '/apis/apps/v1/namespaces/ns/deployments/d/scale');
    ctx.user = { name: 'bob', groups: ['g'] };
    expect(authorizerAttributesFrom(ctx)).toEqual({
      user: { name: 'bob', groups: ['g'] },
      verb: 'update',
      resourceRequest: true,
      path: '/apis/apps/v1/namespaces/ns/deployments/d/scale',
      apiGroup: 'apps',
      apiVersion: 'v1',
      resource: 'deployments',
      subresource: 'scale',
      namespace: 'ns',
      name: 'd',
    });
  });

  it('uses an empty user when there is none, and an explicit user when given', () => {
    const ctx = ctxFor('GET', '/healthz');
    expect(authorizerAttributesFrom(ctx).user).toEqual({ name: '', groups: [] });
    expect(authorizerAttributesFrom(ctx, { name: 'x', groups: [] }).user.name).toBe('x');
    expect(authorizerAttributesFrom(ctx)).toMatchObject({ resourceRequest: false, verb: 'get', path: '/healthz' });
  });

  it('throws kube’s error without RequestInfo', () => {
    const ctx = createRequestContext({ url: '/', headers: {} } as IncomingMessage, {} as ServerResponse);
    expect(() => authorizerAttributesFrom(ctx)).toThrow('no RequestInfo found in the context');
  });
});
