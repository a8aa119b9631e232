import { request } from 'node:http';
import type { AuthorizationAttributes, Authorizer } from '@kapi/authz';
import { afterEach, describe, expect, it } from 'vitest';
import { compose } from './compose.ts';
import type { Filter } from './context.ts';
import { withImpersonation } from './impersonation.ts';
import { type Listening, listen } from './serve.ts';

let srv: Listening | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const asAlice: Filter = async (ctx, next) => {
  ctx.user = { name: 'alice', groups: ['system:authenticated'] };
  await next();
};

/** Allows `impersonate` on the listed "resource/name" (or "resource/subresource/name") pairs; records every check. */
function allowing(...allowed: string[]): Authorizer & { seen: AuthorizationAttributes[] } {
  const seen: AuthorizationAttributes[] = [];
  return {
    seen,
    authorize: async (a) => {
      seen.push(a);
      const key = [a.resource, a.subresource, a.name].filter(Boolean).join('/');
      return allowed.includes(key) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
    },
  };
}

async function serve(authorizer: Authorizer, filters: Filter[] = [asAlice]): Promise<void> {
  srv = await listen(
    compose([...filters, withImpersonation({ authorizer })], async (ctx) => {
      const left = Object.keys(ctx.req.headers).filter((h) => h.startsWith('impersonate-'));
      ctx.res.end(JSON.stringify({ user: ctx.user, left }));
    }),
  );
}

/** Raw headers (name, value, name, value, …) so a header can repeat, as kubectl sends Impersonate-Group. */
function get(raw: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${srv?.url}/api/v1/pods`, { headers: ['Host', 'localhost', ...raw] }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('withImpersonation', () => {
  it('switches to the impersonated user, groups, uid and extra once each is authorized, and drops the headers', async () => {
    const authz = allowing(
      'users/bob',
      'groups/dev',
      'groups/ops',
      'uids/1234',
      'userextras/scopes.example.com/foo/read',
      'userextras/scopes.example.com/foo/write',
    );
    await serve(authz);
    const r = await get([
      'Impersonate-User',
      'bob',
      'Impersonate-Group',
      'dev',
      'Impersonate-Group',
      'ops',
      'Impersonate-Uid',
      '1234',
      'Impersonate-Extra-Scopes.example.com%2Ffoo',
      'read',
      'Impersonate-Extra-Scopes.example.com%2Ffoo',
      'write',
    ]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      user: {
        name: 'bob',
        uid: '1234',
        groups: ['dev', 'ops', 'system:authenticated'],
        extra: { 'scopes.example.com/foo': ['read', 'write'] },
      },
      left: [],
    });
    const checks = authz.seen.map((a) => [
      a.user.name,
      a.verb,
      a.apiGroup,
      a.apiVersion,
      a.resource,
      a.subresource,
      a.name,
      a.resourceRequest,
    ]);
    expect(checks).toEqual([
      ['alice', 'impersonate', '', '', 'users', '', 'bob', true],
      ['alice', 'impersonate', '', '', 'groups', '', 'dev', true],
      ['alice', 'impersonate', '', '', 'groups', '', 'ops', true],
      ['alice', 'impersonate', 'authentication.k8s.io', 'v1', 'userextras', 'scopes.example.com/foo', 'read', true],
      ['alice', 'impersonate', 'authentication.k8s.io', 'v1', 'userextras', 'scopes.example.com/foo', 'write', true],
      ['alice', 'impersonate', 'authentication.k8s.io', 'v1', 'uids', '', '1234', true],
    ]);
  });

  it('answers the first refusal with kube’s 403', async () => {
    await serve(allowing('users/bob'));
    let r = await get(['Impersonate-User', 'root']);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'users "root" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
      reason: 'Forbidden',
      details: { name: 'root', kind: 'users' },
      code: 403,
    });
    r = await get(['Impersonate-User', 'bob', 'Impersonate-Extra-Scopes', 'admin']);
    expect(r.body.message).toBe(
      'userextras.authentication.k8s.io "admin" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
    );
    r = await get(['Impersonate-User', 'bob', 'Impersonate-Group', 'system:masters']);
    expect(r.body.message).toBe(
      'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
  });

  it('a Deny is a 403 carrying its reason; an authorizer error is a 403 too, never a 500 (kube: err or not Allow)', async () => {
    await serve({
      authorize: async (a) => {
        if (a.name === 'root') return { decision: 'Deny', reason: 'root is never impersonated' };
        if (a.name === 'bob') return { decision: 'Allow', reason: '' };
        throw new Error('policy engine down');
      },
    });
    let r = await get(['Impersonate-User', 'root']);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      reason: 'Forbidden',
      message:
        'users "root" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: root is never impersonated',
    });
    r = await get(['Impersonate-User', 'carol']);
    expect(r.status).toBe(403);
    expect(r.body.message).toBe(
      'users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    // bob may be impersonated, the group may not: the first refusal ends the request.
    r = await get(['Impersonate-User', 'bob', 'Impersonate-Group', 'admins']);
    expect(r.status).toBe(403);
    expect(r.body.message).toBe(
      'groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
  });

  it('groups, uid or extra without a user is kube’s 500', async () => {
    await serve(allowing());
    let r = await get(['Impersonate-Group', 'g1']);
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({
      reason: 'InternalError',
      message: 'Internal error occurred: requested [{Group  g1    }] without impersonating a user',
    });
    r = await get(['Impersonate-Uid', 'u1', 'Impersonate-Extra-K', 'v']);
    expect(r.body.message).toBe(
      'Internal error occurred: requested [{UserExtra  v  authentication.k8s.io/v1  k} {UID  u1  authentication.k8s.io/v1  }] without impersonating a user',
    );
  });

  it('service accounts: authorized on serviceaccounts in their namespace, with their groups', async () => {
    const authz = allowing('serviceaccounts/builder');
    await serve(authz);
    const r = await get(['Impersonate-User', 'system:serviceaccount:ci:builder']);
    expect(r.body.user).toEqual({
      name: 'system:serviceaccount:ci:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'],
    });
    expect(authz.seen[0]).toMatchObject({ resource: 'serviceaccounts', namespace: 'ci', name: 'builder', apiGroup: '' });
    // Not a valid service account name: an ordinary user.
    authz.seen.length = 0;
    await get(['Impersonate-User', 'system:serviceaccount:Bad_NS:x']);
    expect(authz.seen[0]).toMatchObject({ resource: 'users', name: 'system:serviceaccount:Bad_NS:x' });
  });

  it('system:anonymous gets system:unauthenticated; an explicit system:unauthenticated group is kept alone', async () => {
    await serve(allowing('users/system:anonymous', 'users/carol', 'groups/system:unauthenticated'));
    expect((await get(['Impersonate-User', 'system:anonymous'])).body.user).toEqual({
      name: 'system:anonymous',
      groups: ['system:unauthenticated'],
    });
    expect((await get(['Impersonate-User', 'carol', 'Impersonate-Group', 'system:unauthenticated'])).body.user).toEqual({
      name: 'carol',
      groups: ['system:unauthenticated'],
    });
  });

  it('without impersonation headers the request goes on unchanged; with them but no user it is a 500', async () => {
    await serve(allowing());
    expect((await get([])).body.user).toEqual({ name: 'alice', groups: ['system:authenticated'] });
    await srv?.close();
    await serve(allowing('users/bob'), []);
    const r = await get(['Impersonate-User', 'bob']);
    expect(r.status).toBe(500);
    expect(r.body.message).toBe('Internal error occurred: no user found for request');
  });
});
