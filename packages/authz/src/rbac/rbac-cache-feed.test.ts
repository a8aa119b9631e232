import { realClock } from '@kapi/apimachinery';
import { listAndWatch, Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterRoleResource } from './cluster-role.ts';
import { ClusterRoleBindingResource } from './cluster-role-binding.ts';
import { RBACAuthorizer } from './rbac-authorizer.ts';
import { RBACCache, type RBACCacheFeed } from './rbac-cache.ts';
import { RoleResource } from './role.ts';
import { RoleBindingResource } from './role-binding.ts';

const G = 'rbac.authorization.k8s.io';
const V = `${G}/v1`;

describe('RBACCache fed by listAndWatch from the RBAC Stores', () => {
  const memory = new MemoryStorage({ compaction: false });
  const abort = new AbortController();
  afterEach(async () => {
    abort.abort();
    await memory.close();
  });

  it('follows creates, updates and deletes; synced after the four lists', async () => {
    const roles = new Store(RoleResource, { storage: memory });
    const clusterRoles = new Store(ClusterRoleResource, { storage: memory });
    const roleBindings = new Store(RoleBindingResource, { storage: memory });
    const clusterRoleBindings = new Store(ClusterRoleBindingResource, { storage: memory });
    await clusterRoles.create(
      {},
      { apiVersion: V, kind: 'ClusterRole', metadata: { name: 'view' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] },
    );

    const cache = new RBACCache();
    const feed = (store: Parameters<typeof listAndWatch>[0], kind: RBACCacheFeed) =>
      void listAndWatch(store, {
        onEvent: (type, obj) => kind.apply(type, obj),
        onList: (items) => kind.listed(items),
        signal: abort.signal,
        clock: realClock,
        retryAfterMs: 10,
        onError: () => {},
      });
    feed(roles, cache.roles);
    feed(clusterRoles, cache.clusterRoles);
    feed(roleBindings, cache.roleBindings);
    feed(clusterRoleBindings, cache.clusterRoleBindings);
    await cache.whenSynced();
    expect(cache.getClusterRole('view')?.rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);

    const rbac = new RBACAuthorizer(cache);
    const bob = { name: 'bob', groups: ['system:authenticated'] };
    const getPods = {
      user: bob,
      verb: 'get',
      resourceRequest: true,
      namespace: 'dev',
      apiGroup: '',
      apiVersion: 'v1',
      resource: 'pods',
      subresource: '',
      name: 'p',
      path: '',
    };
    const until = async (want: string) => {
      for (let i = 0; i < 200 && (await rbac.authorize(getPods)).decision !== want; i++) await new Promise((r) => setTimeout(r, 5));
      return (await rbac.authorize(getPods)).decision;
    };

    await roleBindings.create(
      { namespace: 'dev' },
      {
        apiVersion: V,
        kind: 'RoleBinding',
        metadata: { name: 'b', namespace: 'dev' },
        subjects: [{ kind: 'User', apiGroup: G, name: 'bob' }],
        roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' },
      },
    );
    expect(await until('Allow')).toBe('Allow');
    const stored = await roleBindings.get({ namespace: 'dev' }, 'b');
    await roleBindings.update({ namespace: 'dev' }, 'b', { ...stored, subjects: [{ kind: 'User', apiGroup: G, name: 'alice' }] });
    expect(await until('NoOpinion')).toBe('NoOpinion');
    await clusterRoleBindings.create(
      {},
      {
        apiVersion: V,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'c' },
        subjects: [{ kind: 'Group', apiGroup: G, name: 'system:authenticated' }],
        roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' },
      },
    );
    expect(await until('Allow')).toBe('Allow');
    await clusterRoleBindings.delete({}, 'c');
    expect(await until('NoOpinion')).toBe('NoOpinion');
    expect(cache.clusterRoleBindings.size).toBe(0);
    expect(cache.roleBindings.size).toBe(1);
  });
});
