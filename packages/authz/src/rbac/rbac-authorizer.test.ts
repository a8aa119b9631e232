import type { UserInfo } from '@kapi/authn';
import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from '../authorizer.ts';
import type { RBACPolicySource } from './policy-source.ts';
import { RBACAuthorizer } from './rbac-authorizer.ts';
import { RBACCache } from './rbac-cache.ts';
import {
  addClusterRole,
  addClusterRoleBinding,
  addRole,
  addRoleBinding,
  clusterRoleRef,
  Group,
  roleRef,
  SA,
  User,
} from './test-support/rbac-policy.ts';
import { RBAC_GROUP as G } from './types.ts';

const V = `${G}/v1`;

function policy(): RBACCache {
  const cache = new RBACCache();
  addClusterRole(cache, 'cluster-admin', [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ]);
  addClusterRole(cache, 'view', [
    { verbs: ['get', 'list', 'watch'], apiGroups: ['', 'apps'], resources: ['pods', 'deployments', 'pods/log'] },
  ]);
  addClusterRole(cache, 'health', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz/*'] }]);
  addRole(cache, 'dev', 'pod-deleter', [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'], resourceNames: ['scratch'] }]);
  addClusterRoleBinding(cache, 'admins', [Group('admins')], clusterRoleRef('cluster-admin'));
  addClusterRoleBinding(cache, 'health-for-all', [Group('system:authenticated')], clusterRoleRef('health'));
  addClusterRoleBinding(cache, 'ci-viewer', [SA('builder', 'ci')], clusterRoleRef('view'));
  addRoleBinding(cache, 'dev', 'viewers', [User('nobody'), User('bob')], clusterRoleRef('view'));
  addRoleBinding(cache, 'dev', 'deleter', [User('bob')], roleRef('pod-deleter'));
  addRoleBinding(cache, 'dev', 'sa-local', [SA('deployer')], clusterRoleRef('view'));
  return cache;
}

function res(user: UserInfo, verb: string, resource: string, over: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return {
    user,
    verb,
    resourceRequest: true,
    namespace: 'dev',
    apiGroup: '',
    apiVersion: 'v1',
    resource,
    subresource: '',
    name: '',
    path: '',
    ...over,
  };
}
const url = (user: UserInfo, path: string, verb = 'get'): AuthorizationAttributes => ({
  ...res(user, verb, ''),
  resourceRequest: false,
  namespace: '',
  path,
});

const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };

describe('RBACAuthorizer', () => {
  it('allows by a RoleBinding, with kube reason text', async () => {
    const a = new RBACAuthorizer(policy());
    expect(await a.authorize(res(bob, 'list', 'pods'))).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by RoleBinding "viewers/dev" of ClusterRole "view" to User "bob"',
    });
    expect(await a.authorize(res(bob, 'delete', 'pods', { name: 'scratch' }))).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by RoleBinding "deleter/dev" of Role "pod-deleter" to User "bob"',
    });
  });

  it('allows by a ClusterRoleBinding to a group, in any namespace and cluster-wide', async () => {
    const a = new RBACAuthorizer(policy());
    const admin = { name: 'alice', groups: ['admins', 'system:authenticated'] };
    const want = {
      decision: 'Allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "admins" of ClusterRole "cluster-admin" to Group "admins"',
    };
    expect(await a.authorize(res(admin, 'delete', 'nodes', { namespace: '' }))).toEqual(want);
    expect(await a.authorize(res(admin, 'create', 'widgets', { apiGroup: 'example.kapi.dev', namespace: 'x' }))).toEqual(want);
    expect(await a.authorize(url(admin, '/metrics'))).toEqual(want);
    expect(await a.authorize(url(bob, '/readyz/etcd'))).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "health-for-all" of ClusterRole "health" to Group "system:authenticated"',
    });
  });

  it('service accounts: namespaced subjects, and a RoleBinding subject without a namespace defaults to the binding one', async () => {
    const a = new RBACAuthorizer(policy());
    const builder = { name: 'system:serviceaccount:ci:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ci'] };
    expect(await a.authorize(res(builder, 'get', 'deployments', { apiGroup: 'apps', namespace: 'prod' }))).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "ci-viewer" of ClusterRole "view" to ServiceAccount "builder/ci"',
    });
    const deployer = { name: 'system:serviceaccount:dev:deployer', groups: [] };
    expect(await a.authorize(res(deployer, 'get', 'pods', { subresource: 'log', name: 'p' }))).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by RoleBinding "sa-local/dev" of ClusterRole "view" to ServiceAccount "deployer/dev"',
    });
    const otherDeployer = { name: 'system:serviceaccount:prod:deployer', groups: [] };
    expect(await a.authorize(res(otherDeployer, 'get', 'pods'))).toEqual({ decision: 'NoOpinion', reason: '' });
  });

  it('has no opinion, with an empty reason, when no rule allows', async () => {
    const a = new RBACAuthorizer(policy());
    expect(await a.authorize(res(bob, 'delete', 'pods', { name: 'precious' }))).toEqual({ decision: 'NoOpinion', reason: '' });
    expect(await a.authorize(res(bob, 'list', 'pods', { namespace: 'prod' }))).toEqual({ decision: 'NoOpinion', reason: '' });
    expect(await a.authorize(url(bob, '/readyz'))).toEqual({ decision: 'NoOpinion', reason: '' });
    expect(await a.authorize(res({ name: 'stranger', groups: [] }, 'get', 'pods'))).toEqual({ decision: 'NoOpinion', reason: '' });
  });

  it('reports bindings to missing roles in kube words, and still allows by the others', async () => {
    const cache = policy();
    addClusterRoleBinding(cache, 'dangling', [User('bob')], clusterRoleRef('gone'));
    const a = new RBACAuthorizer(cache);
    expect(await a.authorize(res(bob, 'list', 'secrets'))).toEqual({
      decision: 'NoOpinion',
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    });
    expect((await a.authorize(res(bob, 'list', 'pods'))).decision).toBe('Allow');

    addRoleBinding(cache, 'dev', 'dangling-role', [User('bob')], roleRef('gone-role'));
    addClusterRoleBinding(cache, 'odd', [User('bob')], { apiGroup: G, kind: 'Foo', name: 'x' });
    expect(await a.authorize(res(bob, 'list', 'secrets'))).toEqual({
      decision: 'NoOpinion',
      reason:
        'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, unsupported role reference kind: "Foo", role.rbac.authorization.k8s.io "gone-role" not found]',
    });
  });

  it('a ClusterRoleBinding to a Role names a role that cannot exist', async () => {
    const cache = policy();
    addClusterRoleBinding(cache, 'x', [User('carl')], roleRef('pod-deleter'));
    const a = new RBACAuthorizer(cache);
    expect(await a.authorize(res({ name: 'carl', groups: [] }, 'delete', 'pods', { name: 'scratch' }))).toEqual({
      decision: 'NoOpinion',
      reason: 'RBAC: role.rbac.authorization.k8s.io "pod-deleter" not found',
    });
  });

  it('follows the cache: a deleted binding no longer allows, a modified role changes what is allowed', async () => {
    const cache = policy();
    const a = new RBACAuthorizer(cache);
    cache.roleBindings.apply('DELETED', {
      apiVersion: V,
      kind: 'RoleBinding',
      metadata: { name: 'viewers', namespace: 'dev' },
      roleRef: clusterRoleRef('view'),
    });
    expect((await a.authorize(res(bob, 'list', 'pods'))).decision).toBe('NoOpinion');
    cache.roles.apply('MODIFIED', {
      apiVersion: V,
      kind: 'Role',
      metadata: { name: 'pod-deleter', namespace: 'dev' },
      rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }],
    });
    expect((await a.authorize(res(bob, 'list', 'pods'))).reason).toBe(
      'RBAC: allowed by RoleBinding "deleter/dev" of Role "pod-deleter" to User "bob"',
    );
  });

  it('rulesFor: cluster-wide rules plus the namespace ones, split into resource and URL rules, never incomplete', async () => {
    const a = new RBACAuthorizer(policy());
    const dev = await a.rulesFor(bob, 'dev');
    expect(dev.incomplete).toBe(false);
    expect(dev.error).toBeUndefined();
    expect(dev.nonResourceRules).toEqual([{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz/*'] }]);
    expect(dev.resourceRules).toEqual([
      { verbs: ['get', 'list', 'watch'], apiGroups: ['', 'apps'], resources: ['pods', 'deployments', 'pods/log'] },
      { verbs: ['delete'], apiGroups: [''], resources: ['pods'], resourceNames: ['scratch'] },
    ]);
    const cluster = await a.rulesFor(bob, '');
    expect(cluster.resourceRules).toEqual([]);
    expect(cluster.nonResourceRules).toHaveLength(1);
  });

  it('rulesFor reports resolution errors beside the rules it could resolve', async () => {
    const cache = policy();
    addClusterRoleBinding(cache, 'dangling', [User('bob')], clusterRoleRef('gone'));
    const r = await new RBACAuthorizer(cache).rulesFor(bob, '');
    expect(r.error?.message).toBe('clusterrole.rbac.authorization.k8s.io "gone" not found');
    expect(r.nonResourceRules).toHaveLength(1);
  });

  it('looks only at the bindings naming the user, and stops at the first allowing rule', async () => {
    const cache = new RBACCache();
    for (let i = 0; i < 1000; i++) {
      addClusterRole(cache, `r${i}`, [{ verbs: ['get'], apiGroups: [''], resources: [`res${i}`] }]);
      addClusterRoleBinding(cache, `b${i}`, [User(`u${i}`), Group(`g${i % 10}`)], clusterRoleRef(`r${i}`));
    }
    const looked: string[] = [];
    const spy: RBACPolicySource = {
      getRole: (ns, name) => cache.getRole(ns, name),
      getClusterRole: (name) => {
        looked.push(name);
        return cache.getClusterRole(name);
      },
      clusterRoleBindingsFor: (u) => cache.clusterRoleBindingsFor(u),
      roleBindingsFor: (u, ns) => cache.roleBindingsFor(u, ns),
    };
    const a = new RBACAuthorizer(spy);
    const u5 = { name: 'u5', groups: ['g5'] };
    expect((await a.authorize(res(u5, 'get', 'res5'))).decision).toBe('Allow');
    expect(looked).toEqual(['r5']);
    looked.length = 0;
    expect((await a.authorize(res(u5, 'get', 'nothing'))).decision).toBe('NoOpinion');
    expect(looked).toHaveLength(100);
    expect(new Set(looked).size).toBe(100);
    expect(looked.every((n) => Number(n.slice(1)) % 10 === 5)).toBe(true);
  });
});
