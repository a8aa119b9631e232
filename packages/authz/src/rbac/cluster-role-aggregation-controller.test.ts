import { FakeClock } from '@kapi/apimachinery';
import { Store } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClusterRoleResource } from './cluster-role.ts';
import { ClusterRoleAggregationController, type ClusterRoleClient } from './cluster-role-aggregation-controller.ts';
import type { ClusterRole, PolicyRule } from './types.ts';

const AGG = 'rbac.authorization.k8s.io/aggregate-to-';
const ctx = {};

let memory: MemoryStorage;
let store: Store<ClusterRole>;
let controller: ClusterRoleAggregationController;
/** Successful writes of the controller. */
let writes: string[];
let errors: unknown[];

beforeEach(() => {
  memory = new MemoryStorage({ compaction: false });
  store = new Store(ClusterRoleResource, { storage: memory, clock: new FakeClock() });
  writes = [];
  errors = [];
  // The real Store, its writes counted.
  const client: ClusterRoleClient = {
    list: (c, o) => store.list(c, o),
    watch: (c, o) => store.watch(c, o),
    update: async (c, name, obj) => {
      const res = await store.update(c, name, obj);
      writes.push(name);
      return res;
    },
  };
  controller = new ClusterRoleAggregationController({ clusterRoles: client, clock: new FakeClock(), onError: (e) => errors.push(e) });
});
afterEach(async () => {
  controller.stop();
  await memory.close();
});

const clusterRole = (name: string, body: { labels?: Record<string, string>; rules?: PolicyRule[]; aggregateFrom?: string[] } = {}) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name, ...(body.labels ? { labels: body.labels } : {}) },
  ...(body.rules ? { rules: body.rules } : {}),
  ...(body.aggregateFrom
    ? { aggregationRule: { clusterRoleSelectors: body.aggregateFrom.map((to) => ({ matchLabels: { [AGG + to]: 'true' } })) } }
    : {}),
});

/** Until `check` passes: the controller works in the background (a generous bound for loaded machines). */
const eventually = (check: () => unknown) => vi.waitFor(check, { timeout: 10_000, interval: 10 });

const rule = (verbs: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups: [''], resources });
const rulesOf = async (name: string) => (await store.get(ctx, name)).rules ?? [];

/** kube's bootstrap shape: edit is aggregated into admin, view into edit. */
async function adminEditView(): Promise<void> {
  await store.create(ctx, clusterRole('admin', { aggregateFrom: ['admin'] }));
  await store.create(ctx, clusterRole('edit', { aggregateFrom: ['edit'], labels: { [`${AGG}admin`]: 'true' } }));
  await store.create(ctx, clusterRole('view', { aggregateFrom: ['view'], labels: { [`${AGG}edit`]: 'true' } }));
}

describe('ClusterRoleAggregationController', () => {
  it('gives an aggregated role the rules of the roles its selectors match, through chains of aggregation', async () => {
    await adminEditView();
    await store.create(
      ctx,
      clusterRole('system:aggregate-to-view', { labels: { [`${AGG}view`]: 'true' }, rules: [rule(['get'], ['pods'])] }),
    );
    controller.start();
    await eventually(async () => expect(await rulesOf('admin')).toEqual([rule(['get'], ['pods'])]));
    expect(await rulesOf('view')).toEqual([rule(['get'], ['pods'])]);
    expect(await rulesOf('edit')).toEqual([rule(['get'], ['pods'])]);

    // A new role labelled aggregate-to-edit is picked up within moments, by edit and by admin.
    await store.create(
      ctx,
      clusterRole('gizmo-editor', { labels: { [`${AGG}edit`]: 'true' }, rules: [rule(['create', 'delete'], ['gizmos'])] }),
    );
    await eventually(async () => expect(await rulesOf('admin')).toEqual([rule(['create', 'delete'], ['gizmos']), rule(['get'], ['pods'])]));
    // Matching roles are taken by name: gizmo-editor before view.
    expect(await rulesOf('edit')).toEqual([rule(['create', 'delete'], ['gizmos']), rule(['get'], ['pods'])]);
    expect(await rulesOf('view')).toEqual([rule(['get'], ['pods'])]);
    expect(errors).toEqual([]);
  });

  it("drops a role's rules when its label is removed, its rules change, or it is deleted", async () => {
    await adminEditView();
    await store.create(ctx, clusterRole('a', { labels: { [`${AGG}edit`]: 'true' }, rules: [rule(['get'], ['a'])] }));
    await store.create(ctx, clusterRole('b', { labels: { [`${AGG}edit`]: 'true' }, rules: [rule(['get'], ['b'])] }));
    controller.start();
    await eventually(async () => expect(await rulesOf('admin')).toEqual([rule(['get'], ['a']), rule(['get'], ['b'])]));

    await store.patch(ctx, 'a', { metadata: { labels: { [`${AGG}edit`]: null } } }, 'merge');
    await eventually(async () => expect(await rulesOf('admin')).toEqual([rule(['get'], ['b'])]));
    expect(await rulesOf('edit')).toEqual([rule(['get'], ['b'])]);

    await store.patch(ctx, 'b', { rules: [rule(['list'], ['b'])] }, 'merge');
    await eventually(async () => expect(await rulesOf('edit')).toEqual([rule(['list'], ['b'])]));

    await store.delete(ctx, 'b');
    await eventually(async () => expect(await rulesOf('admin')).toEqual([]));
    expect(await rulesOf('edit')).toEqual([]);
  });

  it('takes selectors in order and each rule once, and never aggregates a role into itself', async () => {
    await store.create(
      ctx,
      clusterRole('agg', { aggregateFrom: ['second', 'first'], labels: { [`${AGG}first`]: 'true' }, rules: [rule(['own'], ['x'])] }),
    );
    await store.create(
      ctx,
      clusterRole('z-first', { labels: { [`${AGG}first`]: 'true' }, rules: [rule(['get'], ['z']), rule(['get'], ['shared'])] }),
    );
    await store.create(
      ctx,
      clusterRole('y-second', { labels: { [`${AGG}second`]: 'true', [`${AGG}first`]: 'true' }, rules: [rule(['get'], ['y'])] }),
    );
    await store.create(
      ctx,
      clusterRole('x-second', { labels: { [`${AGG}second`]: 'true' }, rules: [rule(['get'], ['shared']), rule(['get'], ['x'])] }),
    );
    controller.start();
    await eventually(async () =>
      expect(await rulesOf('agg')).toEqual([
        // selector "second": x-second, y-second
        rule(['get'], ['shared']),
        rule(['get'], ['x']),
        rule(['get'], ['y']),
        // selector "first": y-second again (nothing new), z-first (shared already taken); agg itself is skipped
        rule(['get'], ['z']),
      ]),
    );
  });

  it("overwrites a user's edit of an aggregated role's rules, as kube's controller does", async () => {
    await adminEditView();
    await store.create(ctx, clusterRole('viewer', { labels: { [`${AGG}view`]: 'true' }, rules: [rule(['get'], ['pods'])] }));
    controller.start();
    await eventually(async () => expect(await rulesOf('view')).toEqual([rule(['get'], ['pods'])]));
    await store.patch(ctx, 'view', { rules: [rule(['*'], ['*'])] }, 'merge');
    await eventually(async () => expect(await rulesOf('view')).toEqual([rule(['get'], ['pods'])]));
    expect(errors).toEqual([]);
  });

  it('writes nothing when the aggregated rules are already right', async () => {
    await adminEditView();
    await store.create(ctx, clusterRole('viewer', { labels: { [`${AGG}view`]: 'true' }, rules: [rule(['get'], ['pods'])] }));
    controller.start();
    await eventually(async () => expect(await rulesOf('admin')).toEqual([rule(['get'], ['pods'])]));
    // view, edit, admin: one write each.
    await eventually(() => expect([...writes].sort()).toEqual(['admin', 'edit', 'view']));
    // Changes that alter no aggregated role: each looks at every aggregated role again, none is written.
    await store.create(ctx, clusterRole('unrelated', { rules: [rule(['get'], ['secrets'])] }));
    await store.patch(ctx, 'viewer', { metadata: { annotations: { note: 'x' } } }, 'merge');
    // Rules given in another form that is the same (empty lists left out) are the same.
    await store.patch(ctx, 'view', { rules: [{ ...rule(['get'], ['pods']), resourceNames: [] }] }, 'merge');
    // Then a change that does alter one; the worker takes keys in order, so the looks above came first.
    await store.create(ctx, clusterRole('admin-extra', { labels: { [`${AGG}admin`]: 'true' }, rules: [rule(['escalate'], ['roles'])] }));
    await eventually(async () => expect(await rulesOf('admin')).toEqual([rule(['escalate'], ['roles']), rule(['get'], ['pods'])]));
    expect([...writes].sort()).toEqual(['admin', 'admin', 'edit', 'view']);
    expect(errors).toEqual([]);
  });

  it('syncs a role after the aggregated roles it takes rules from: view, edit, admin, each written once', async () => {
    // kube's bootstrap shape, listed admin first: each of the three also has rules of its own to take.
    await adminEditView();
    for (const to of ['admin', 'edit', 'view'])
      await store.create(ctx, clusterRole(`system:aggregate-to-${to}`, { labels: { [AGG + to]: 'true' }, rules: [rule(['get'], [to])] }));
    controller.start();
    // Matching roles by name: edit (with view's rule) before system:aggregate-to-admin.
    await eventually(async () =>
      expect(await rulesOf('admin')).toEqual([rule(['get'], ['edit']), rule(['get'], ['view']), rule(['get'], ['admin'])]),
    );
    expect(await rulesOf('edit')).toEqual([rule(['get'], ['edit']), rule(['get'], ['view'])]);
    expect(writes).toEqual(['view', 'edit', 'admin']);
    expect(errors).toEqual([]);
  });

  it('ends a cycle of aggregated roles waiting for each other: each is synced', async () => {
    await store.create(ctx, clusterRole('a', { aggregateFrom: ['a'], labels: { [`${AGG}b`]: 'true' }, rules: [] }));
    await store.create(ctx, clusterRole('b', { aggregateFrom: ['b'], labels: { [`${AGG}a`]: 'true' }, rules: [] }));
    await store.create(ctx, clusterRole('x', { labels: { [`${AGG}a`]: 'true' }, rules: [rule(['get'], ['x'])] }));
    controller.start();
    await eventually(async () => expect(await rulesOf('b')).toEqual([rule(['get'], ['x'])]));
    expect(await rulesOf('a')).toEqual([rule(['get'], ['x'])]);
    expect(errors).toEqual([]);
  });

  it('a controller started over roles already aggregated writes nothing (no sync sees a half-listed cache)', async () => {
    await adminEditView();
    await store.create(ctx, clusterRole('viewer', { labels: { [`${AGG}view`]: 'true' }, rules: [rule(['get'], ['pods'])] }));
    controller.start();
    await eventually(() => expect([...writes].sort()).toEqual(['admin', 'edit', 'view']));
    controller.stop();
    writes.length = 0;
    // As after a restart of the server: a fresh list in which admin comes first, before the roles it aggregates.
    controller.start();
    await store.create(ctx, clusterRole('admin-extra', { labels: { [`${AGG}admin`]: 'true' }, rules: [rule(['escalate'], ['roles'])] }));
    await eventually(async () => expect(await rulesOf('admin')).toEqual([rule(['escalate'], ['roles']), rule(['get'], ['pods'])]));
    // Only the write the new role asked for; before, admin was first emptied from a cache holding admin alone.
    expect(writes).toEqual(['admin']);
    expect(errors).toEqual([]);
  });

  it('starts again after a stop, from a fresh list; a registry Store is its client as it is', async () => {
    await adminEditView();
    const direct = new ClusterRoleAggregationController({ clusterRoles: store, clock: new FakeClock(), onError: (e) => errors.push(e) });
    try {
      direct.start();
      direct.stop();
      expect(direct.running).toBe(false);
      await store.create(ctx, clusterRole('viewer', { labels: { [`${AGG}view`]: 'true' }, rules: [rule(['get'], ['pods'])] }));
      direct.start();
      expect(direct.running).toBe(true);
      await eventually(async () => expect(await rulesOf('admin')).toEqual([rule(['get'], ['pods'])]));
      expect(errors).toEqual([]);
    } finally {
      direct.stop();
    }
  });
});
