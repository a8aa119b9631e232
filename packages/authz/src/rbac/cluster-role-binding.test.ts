import { FakeClock, StatusError } from '@kapi/apimachinery';
import { Store, toTable } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterRoleBindingResource } from './cluster-role-binding.ts';
import { rbacResources } from './rbac-resources.ts';
import type { ClusterRoleBinding } from './types.ts';

let memory: MemoryStorage;
let store: Store<ClusterRoleBinding>;
const clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
beforeEach(() => {
  memory = new MemoryStorage({ compaction: false });
  store = new Store(ClusterRoleBindingResource, { storage: memory, clock });
});
afterEach(() => memory.close());

const ctx = {};
const RBAC = 'rbac.authorization.k8s.io';
const binding = (name: string, body: object = {}) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'cluster-admin' },
  ...body,
});

async function causes(p: Promise<unknown>): Promise<string[]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  expect((err as StatusError).code).toBe(422);
  return ((err as StatusError).status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}

describe('ClusterRoleBinding', () => {
  it('is cluster-scoped rbac.authorization.k8s.io/v1 without short names, one of rbacResources', () => {
    expect(ClusterRoleBindingResource.groupResource).toEqual({ group: RBAC, resource: 'clusterrolebindings' });
    expect(ClusterRoleBindingResource.namespaced).toBe(false);
    expect(ClusterRoleBindingResource.shortNames).toEqual([]);
    expect(rbacResources.map((d) => [d.kind, d.storageVersion.name])).toEqual([
      ['Role', 'v1'],
      ['ClusterRole', 'v1'],
      ['RoleBinding', 'v1'],
      ['ClusterRoleBinding', 'v1'],
    ]);
  });

  it('binds system:masters to cluster-admin under a name with colons', async () => {
    const { object } = await store.create(
      ctx,
      binding('system:masters-binding', { subjects: [{ kind: 'Group', name: 'system:masters' }] }),
    );
    expect(object.subjects).toEqual([{ kind: 'Group', apiGroup: RBAC, name: 'system:masters' }]);
  });

  it('refers only to ClusterRoles', async () => {
    expect(await causes(store.create(ctx, binding('b', { roleRef: { apiGroup: RBAC, kind: 'Role', name: 'r' } })))).toEqual([
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    ]);
  });

  it('needs the namespace of a service account subject', async () => {
    expect(await causes(store.create(ctx, binding('b', { subjects: [{ kind: 'ServiceAccount', name: 'default' }] })))).toEqual([
      'subjects[0].namespace: Required value',
    ]);
  });

  it('never changes its roleRef', async () => {
    await store.create(ctx, binding('b'));
    expect(await causes(store.update(ctx, 'b', binding('b', { roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' } })))).toEqual([
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}: cannot change roleRef',
    ]);
  });

  it("prints kube's table", async () => {
    const { object } = await store.create(
      ctx,
      binding('b', {
        subjects: [
          { kind: 'Group', name: 'system:masters' },
          { kind: 'ServiceAccount', name: 'admin', namespace: 'kube-system' },
        ],
      }),
    );
    const table = toTable(ClusterRoleBindingResource, object, { clock: { now: () => Date.parse('2026-03-01T10:00:05Z') } });
    expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
    expect(table.columnDefinitions?.[5]?.description).toBe('ServiceAccounts in the clusterRoleBinding');
    expect(table.rows[0]?.cells).toEqual(['b', 'ClusterRole/cluster-admin', '5s', '', 'system:masters', 'kube-system/admin']);
  });
});
