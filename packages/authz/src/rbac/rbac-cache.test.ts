import { describe, expect, it } from 'vitest';
import { RBACCache } from './rbac-cache.ts';
import type { ClusterRoleBinding, RoleBinding, Subject } from './types.ts';

const ref = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
const crb = (name: string, subjects: Subject[]): ClusterRoleBinding => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name },
  subjects,
  roleRef: ref,
});
const rb = (namespace: string, name: string, subjects: Subject[]): RoleBinding => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name, namespace },
  subjects,
  roleRef: ref,
});
const user = (kind: string, name: string, namespace?: string): Subject => ({
  kind,
  name,
  ...(kind === 'ServiceAccount' ? {} : { apiGroup: 'rbac.authorization.k8s.io' }),
  ...(namespace ? { namespace } : {}),
});
const names = (bs: Iterable<{ metadata: { name?: string } }>) => [...bs].map((b) => b.metadata.name).sort();

describe('RBACCache', () => {
  it('indexes ClusterRoleBindings by user, group and service account', () => {
    const cache = new RBACCache();
    cache.clusterRoleBindings.apply('ADDED', crb('to-bob', [user('User', 'bob')]));
    cache.clusterRoleBindings.apply('ADDED', crb('to-devs', [user('Group', 'devs')]));
    cache.clusterRoleBindings.apply('ADDED', crb('to-sa', [user('ServiceAccount', 'builder', 'ci')]));
    cache.clusterRoleBindings.apply('ADDED', crb('to-sa-without-ns', [user('ServiceAccount', 'builder')]));
    cache.clusterRoleBindings.apply('ADDED', crb('to-both', [user('User', 'bob'), user('Group', 'devs')]));
    expect(names(cache.clusterRoleBindingsFor({ name: 'bob', groups: [] }))).toEqual(['to-bob', 'to-both']);
    expect(names(cache.clusterRoleBindingsFor({ name: 'bob', groups: ['devs'] }))).toEqual(['to-bob', 'to-both', 'to-devs']);
    expect(names(cache.clusterRoleBindingsFor({ name: 'alice', groups: ['devs', 'other'] }))).toEqual(['to-both', 'to-devs']);
    // A service account subject without a namespace names nobody in a ClusterRoleBinding.
    expect(names(cache.clusterRoleBindingsFor({ name: 'system:serviceaccount:ci:builder', groups: [] }))).toEqual(['to-sa']);
    expect(names(cache.clusterRoleBindingsFor({ name: 'carol', groups: [] }))).toEqual([]);
  });

  it('gives a binding that names the user several ways once', () => {
    const cache = new RBACCache();
    cache.clusterRoleBindings.apply('ADDED', crb('all', [user('Group', 'a'), user('Group', 'b'), user('User', 'bob')]));
    cache.clusterRoleBindings.apply('ADDED', crb('b-only', [user('Group', 'b')]));
    const got = (u: { name: string; groups: string[] }) => [...cache.clusterRoleBindingsFor(u)].map((b) => b.metadata.name);
    expect(got({ name: 'bob', groups: ['a', 'b'] })).toEqual(['all', 'b-only']);
    expect(got({ name: 'carol', groups: ['b', 'a', 'b'] })).toEqual(['all', 'b-only']);
    expect(got({ name: 'carol', groups: ['a', 'a'] })).toEqual(['all']);
  });

  it('indexes RoleBindings by namespace, then subject; a service account without a namespace is in the binding namespace', () => {
    const cache = new RBACCache();
    cache.roleBindings.apply('ADDED', rb('ci', 'sa-local', [user('ServiceAccount', 'builder')]));
    cache.roleBindings.apply('ADDED', rb('ci', 'sa-other', [user('ServiceAccount', 'builder', 'prod')]));
    cache.roleBindings.apply('ADDED', rb('dev', 'bob', [user('User', 'bob')]));
    expect(names(cache.roleBindingsFor({ name: 'system:serviceaccount:ci:builder', groups: [] }, 'ci'))).toEqual(['sa-local']);
    expect(names(cache.roleBindingsFor({ name: 'system:serviceaccount:prod:builder', groups: [] }, 'ci'))).toEqual(['sa-other']);
    expect(names(cache.roleBindingsFor({ name: 'bob', groups: [] }, 'dev'))).toEqual(['bob']);
    expect(names(cache.roleBindingsFor({ name: 'bob', groups: [] }, 'ci'))).toEqual([]);
    expect(names(cache.roleBindingsFor({ name: 'bob', groups: [] }, 'nowhere'))).toEqual([]);
  });

  it('MODIFIED re-indexes by the new subjects; DELETED drops the binding from every index', () => {
    const cache = new RBACCache();
    cache.clusterRoleBindings.apply('ADDED', crb('b', [user('User', 'bob'), user('Group', 'devs')]));
    cache.clusterRoleBindings.apply('MODIFIED', crb('b', [user('User', 'alice')]));
    expect(names(cache.clusterRoleBindingsFor({ name: 'bob', groups: ['devs'] }))).toEqual([]);
    expect(names(cache.clusterRoleBindingsFor({ name: 'alice', groups: [] }))).toEqual(['b']);
    cache.clusterRoleBindings.apply('DELETED', crb('b', []));
    expect(names(cache.clusterRoleBindingsFor({ name: 'alice', groups: [] }))).toEqual([]);
    expect(cache.clusterRoleBindings.size).toBe(0);

    cache.roleBindings.apply('ADDED', rb('ns', 'x', [user('Group', 'g')]));
    cache.roleBindings.apply('MODIFIED', rb('ns', 'x', [user('Group', 'h')]));
    expect(names(cache.roleBindingsFor({ name: 'u', groups: ['g'] }, 'ns'))).toEqual([]);
    expect(names(cache.roleBindingsFor({ name: 'u', groups: ['h'] }, 'ns'))).toEqual(['x']);
    cache.roleBindings.apply('DELETED', rb('ns', 'x', [user('Group', 'h')]));
    expect(names(cache.roleBindingsFor({ name: 'u', groups: ['h'] }, 'ns'))).toEqual([]);
    expect(cache.roleBindings.size).toBe(0);
  });

  it('holds Roles by namespace and name and ClusterRoles by name, replaced on MODIFIED and dropped on DELETED', () => {
    const cache = new RBACCache();
    const role = (ns: string, name: string, verb: string) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name, namespace: ns },
      rules: [{ verbs: [verb] }],
    });
    cache.roles.apply('ADDED', role('a', 'r', 'get'));
    cache.roles.apply('ADDED', role('b', 'r', 'list'));
    expect(cache.getRole('a', 'r')?.rules?.[0]?.verbs).toEqual(['get']);
    expect(cache.getRole('b', 'r')?.rules?.[0]?.verbs).toEqual(['list']);
    expect(cache.getRole('', 'r')).toBeUndefined();
    cache.roles.apply('MODIFIED', role('a', 'r', 'watch'));
    expect(cache.getRole('a', 'r')?.rules?.[0]?.verbs).toEqual(['watch']);
    cache.roles.apply('DELETED', role('a', 'r', 'watch'));
    expect(cache.getRole('a', 'r')).toBeUndefined();
    expect(cache.roles.size).toBe(1);

    cache.clusterRoles.apply('ADDED', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'view' } });
    expect(cache.getClusterRole('view')?.metadata.name).toBe('view');
    cache.clusterRoles.apply('DELETED', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'view' } });
    expect(cache.getClusterRole('view')).toBeUndefined();
  });

  it('a relist given its items drops what was deleted while no watch was open', () => {
    const cache = new RBACCache();
    cache.clusterRoleBindings.apply('ADDED', crb('gone', [user('User', 'bob')]));
    cache.clusterRoleBindings.apply('ADDED', crb('kept', [user('User', 'bob')]));
    cache.clusterRoleBindings.listed([crb('kept', [user('User', 'bob')]), crb('new', [user('User', 'bob')])]);
    expect(names(cache.clusterRoleBindingsFor({ name: 'bob', groups: [] }))).toEqual(['kept', 'new']);
    expect(cache.clusterRoleBindings.size).toBe(2);
  });

  it('is synced once all four kinds were listed', async () => {
    const cache = new RBACCache();
    let synced = false;
    void cache.whenSynced().then(() => {
      synced = true;
    });
    cache.roles.listed();
    cache.clusterRoles.listed();
    cache.roleBindings.listed();
    await Promise.resolve();
    expect(cache.synced).toBe(false);
    expect(synced).toBe(false);
    cache.clusterRoleBindings.listed();
    expect(cache.synced).toBe(true);
    await cache.whenSynced();
    expect(synced).toBe(true);
  });

  it('ignores events for objects without a name, and deletions of unknown objects', () => {
    const cache = new RBACCache();
    cache.clusterRoleBindings.apply('ADDED', { apiVersion: 'v1', kind: 'X', metadata: {} });
    cache.clusterRoleBindings.apply('DELETED', crb('unknown', []));
    expect(cache.clusterRoleBindings.size).toBe(0);
  });

  it('finds a user bindings among thousands without looking at the others', () => {
    const cache = new RBACCache();
    for (let i = 0; i < 2000; i++)
      cache.clusterRoleBindings.apply('ADDED', crb(`b${i}`, [user('User', `u${i}`), user('Group', `g${i % 100}`)]));
    expect(names(cache.clusterRoleBindingsFor({ name: 'u7', groups: ['g7'] }))).toHaveLength(20);
    expect(names(cache.clusterRoleBindingsFor({ name: 'u7', groups: [] }))).toEqual(['b7']);
  });
});
