import { FakeClock, StatusError } from '@kapi/apimachinery';
import { Store, toOpenAPISchema, toTable } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RoleBindingResource } from './role-binding.ts';
import type { RoleBinding } from './types.ts';

let memory: MemoryStorage;
let store: Store<RoleBinding>;
const clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
beforeEach(() => {
  memory = new MemoryStorage({ compaction: false });
  store = new Store(RoleBindingResource, { storage: memory, clock });
});
afterEach(() => memory.close());

const ctx = { namespace: 'ns' };
const RBAC = 'rbac.authorization.k8s.io';
const binding = (name: string, body: object = {}) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name, namespace: 'ns' },
  roleRef: { apiGroup: RBAC, kind: 'Role', name: 'reader' },
  ...body,
});

async function refused(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  expect((err as StatusError).code).toBe(422);
  return err as StatusError;
}
const causes = async (p: Promise<unknown>) => ((await refused(p)).status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);

describe('RoleBinding', () => {
  it('is namespaced rbac.authorization.k8s.io/v1 without short names', () => {
    expect(RoleBindingResource.groupResource).toEqual({ group: RBAC, resource: 'rolebindings' });
    expect(RoleBindingResource.namespaced).toBe(true);
    expect(RoleBindingResource.shortNames).toEqual([]);
  });

  it("defaults roleRef's and subjects' apiGroup as rbac/v1 does", async () => {
    const { object } = await store.create(
      ctx,
      binding('b', {
        roleRef: { kind: 'ClusterRole', name: 'view' },
        subjects: [
          { kind: 'User', name: 'alice' },
          { kind: 'Group', name: 'devs' },
          { kind: 'ServiceAccount', name: 'default', namespace: 'ns' },
        ],
      }),
    );
    expect(object.roleRef).toEqual({ apiGroup: RBAC, kind: 'ClusterRole', name: 'view' });
    expect(object.subjects).toEqual([
      { kind: 'User', apiGroup: RBAC, name: 'alice' },
      { kind: 'Group', apiGroup: RBAC, name: 'devs' },
      // Defaulted to "", which Go's omitempty leaves out.
      { kind: 'ServiceAccount', name: 'default', namespace: 'ns' },
    ]);
    expect(object.metadata.generation).toBeUndefined();
  });

  it("leaves a subject's empty apiGroup and namespace out, as Go's omitempty does, in what it stores and returns", async () => {
    const subjects = [
      { kind: 'ServiceAccount', apiGroup: '', name: 'default', namespace: 'ns' },
      { kind: 'ServiceAccount', apiGroup: '', name: 'builder', namespace: '' },
      { kind: 'User', apiGroup: '', name: 'alice', namespace: '' },
    ];
    const want = [
      { kind: 'ServiceAccount', name: 'default', namespace: 'ns' },
      { kind: 'ServiceAccount', name: 'builder' },
      { kind: 'User', apiGroup: RBAC, name: 'alice' },
    ];
    expect((await store.create(ctx, binding('b', { subjects }), { dryRun: true })).object.subjects).toEqual(want);
    expect((await store.create(ctx, binding('b', { subjects }))).object.subjects).toEqual(want);
    expect((await store.get(ctx, 'b')).subjects).toEqual(want);
    const updated = await store.update(ctx, 'b', binding('b', { subjects: [...subjects].reverse() }));
    expect(updated.object.subjects).toEqual([...want].reverse());
    const patched = await store.patch(ctx, 'b', { subjects }, 'merge');
    expect(patched.object.subjects).toEqual(want);
  });

  it('leaves out an empty subjects list (omitempty), on create and update', async () => {
    expect('subjects' in (await store.create(ctx, binding('empty', { subjects: [] }))).object).toBe(false);
    expect('subjects' in (await store.get(ctx, 'empty'))).toBe(false);
    const withOne = await store.update(ctx, 'empty', binding('empty', { subjects: [{ kind: 'User', name: 'a' }] }));
    expect(withOne.object.subjects).toHaveLength(1);
    expect('subjects' in (await store.update(ctx, 'empty', binding('empty', { subjects: [] }))).object).toBe(false);
  });

  it('takes names with colons, and refers to roles that have them', async () => {
    const { object } = await store.create(
      ctx,
      binding('system:controller:x', { roleRef: { apiGroup: RBAC, kind: 'Role', name: 'system:r' } }),
    );
    expect(object.metadata.name).toBe('system:controller:x');
    expect(await causes(store.create(ctx, binding('b', { roleRef: { apiGroup: RBAC, kind: 'Role', name: 'a/b' } })))).toEqual([
      `roleRef.name: Invalid value: "a/b": may not contain '/'`,
    ]);
  });

  it("refuses a bad roleRef in kube's words", async () => {
    expect(await causes(store.create(ctx, binding('b', { roleRef: { apiGroup: 'example.com', kind: 'Pod', name: '' } })))).toEqual([
      'roleRef.apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"',
      'roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"',
      'roleRef.name: Required value',
    ]);
    // Without a roleRef: the defaulted apiGroup, and kube's zero-valued kind and name.
    const { roleRef: _, ...noRef } = binding('b');
    expect(await causes(store.create(ctx, noRef))).toEqual([
      'roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole"',
      'roleRef.name: Required value',
    ]);
  });

  it("reads null as Go's zero value before defaulting, as kube decodes it", async () => {
    const { object } = await store.create(
      ctx,
      binding('b', {
        roleRef: { apiGroup: null, kind: 'Role', name: 'r' },
        subjects: [{ kind: 'User', apiGroup: null, name: 'u', namespace: null }],
      }),
    );
    expect(object.roleRef).toEqual({ apiGroup: RBAC, kind: 'Role', name: 'r' });
    expect(object.subjects).toEqual([{ kind: 'User', apiGroup: RBAC, name: 'u' }]);
    expect((await store.create(ctx, binding('c', { subjects: null }))).object.subjects).toBeUndefined();
    expect(await causes(store.create(ctx, binding('d', { roleRef: null })))).toEqual([
      'roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole"',
      'roleRef.name: Required value',
    ]);
  });

  it("refuses bad subjects in kube's words", async () => {
    const subjects = [
      { kind: 'ServiceAccount', name: 'Not_A_Subdomain', namespace: 'ns' },
      { kind: 'ServiceAccount', apiGroup: 'v1', name: 'sa' },
      { kind: 'User', apiGroup: 'example.com', name: 'alice' },
      { kind: 'Group', apiGroup: 'v1', name: 'devs' },
      { kind: 'User', name: '' },
      { kind: 'Robot', name: 'r2' },
      { name: 'nobody' },
    ];
    expect(await causes(store.create(ctx, binding('b', { subjects })))).toEqual([
      `subjects[0].name: Invalid value: "Not_A_Subdomain": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'subjects[1].apiGroup: Unsupported value: "v1": supported values: ""',
      'subjects[2].apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"',
      'subjects[3].apiGroup: Unsupported value: "v1": supported values: "rbac.authorization.k8s.io"',
      'subjects[4].name: Required value',
      'subjects[5].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      'subjects[6].kind: Unsupported value: "": supported values: "ServiceAccount", "User", "Group"',
    ]);
  });

  it('never changes its roleRef, whatever else an update changes ("cannot change roleRef")', async () => {
    await store.create(ctx, binding('b', { subjects: [{ kind: 'User', name: 'alice' }] }));
    const err = await refused(
      store.update(
        ctx,
        'b',
        binding('b', { subjects: [{ kind: 'User', name: 'bob' }], roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'admin' } }),
      ),
    );
    expect(err.status.details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'roleRef',
        message:
          'Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"admin"}: cannot change roleRef',
      },
    ]);
    expect(err.message).toBe(
      'RoleBinding.rbac.authorization.k8s.io "b" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"admin"}: cannot change roleRef',
    );
    // Through a patch too; an apiGroup left out is defaulted first, so it is no change.
    expect(await causes(store.patch(ctx, 'b', { roleRef: { name: 'writer' } }, 'merge'))).toEqual([
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"writer"}: cannot change roleRef',
    ]);
    const { object } = await store.update(
      ctx,
      'b',
      binding('b', { roleRef: { kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'bob' }] }),
    );
    expect(object.subjects).toEqual([{ kind: 'User', apiGroup: RBAC, name: 'bob' }]);
    expect(object.roleRef).toEqual({ apiGroup: RBAC, kind: 'Role', name: 'reader' });
  });

  it("reports an update's errors twice, as kube's strategy does", async () => {
    await store.create(ctx, binding('b'));
    expect(await causes(store.update(ctx, 'b', binding('b', { subjects: [{ kind: 'Robot', name: 'r' }] })))).toEqual([
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ]);
  });

  it('creates on update and updates without a resourceVersion', async () => {
    expect((await store.update(ctx, 'b', binding('b'))).created).toBe(true);
    expect((await store.update(ctx, 'b', binding('b', { subjects: [{ kind: 'Group', name: 'g' }] }))).created).toBe(false);
  });

  it("prints kube's table: Name, Role, Age, and with -o wide Users, Groups, ServiceAccounts", async () => {
    const { object } = await store.create(
      ctx,
      binding('b', {
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'system:view' },
        subjects: [
          { kind: 'User', name: 'alice' },
          { kind: 'ServiceAccount', name: 'default', namespace: 'ns' },
          { kind: 'User', name: 'bob' },
          { kind: 'Group', name: 'devs' },
          { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
        ],
      }),
    );
    const table = toTable(RoleBindingResource, object, { clock: { now: () => Date.parse('2026-03-01T12:00:00Z') } });
    expect(table.columnDefinitions?.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Role', 'string', 0],
      ['Age', 'string', 0],
      ['Users', 'string', 1],
      ['Groups', 'string', 1],
      ['ServiceAccounts', 'string', 1],
    ]);
    expect(table.columnDefinitions?.[3]?.description).toBe('Users in the roleBinding');
    expect(table.rows[0]?.cells).toEqual(['b', 'ClusterRole/system:view', '120m', 'alice, bob', 'devs', 'ns/default, ci/builder']);
  });

  it('publishes subjects as an atomic list of atomic structs and roleRef as an atomic struct', () => {
    const props = toOpenAPISchema(RoleBindingResource, 'v1').properties as Record<
      string,
      Record<string, unknown> & { items?: Record<string, unknown> }
    >;
    expect(props.subjects?.['x-kubernetes-list-type']).toBe('atomic');
    expect(props.subjects?.items?.['x-kubernetes-map-type']).toBe('atomic');
    expect(props.roleRef?.['x-kubernetes-map-type']).toBe('atomic');
  });
});
