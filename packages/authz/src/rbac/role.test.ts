import { FakeClock, StatusError } from '@kapi/apimachinery';
import { Store, toOpenAPISchema, toTable } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RoleResource } from './role.ts';
import type { Role } from './types.ts';

let memory: MemoryStorage;
let store: Store<Role>;
const clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
beforeEach(() => {
  memory = new MemoryStorage({ compaction: false });
  store = new Store(RoleResource, { storage: memory, clock });
});
afterEach(() => memory.close());

const ctx = { namespace: 'ns' };
const role = (name: string, rules: unknown[] = [], extra: object = {}) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name, namespace: 'ns', ...extra },
  rules,
});

async function refused(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return err as StatusError;
}

/** The causes of a 422 as `field: message`. */
async function causes(p: Promise<unknown>): Promise<string[]> {
  const err = await refused(p);
  expect(err.code).toBe(422);
  expect(err.status.reason).toBe('Invalid');
  return (err.status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}

describe('Role', () => {
  it('is served and stored as rbac.authorization.k8s.io/v1, namespaced, without short names', () => {
    expect(RoleResource.groupResource).toEqual({ group: 'rbac.authorization.k8s.io', resource: 'roles' });
    expect(RoleResource.namespaced).toBe(true);
    expect(RoleResource.shortNames).toEqual([]);
    expect(RoleResource.versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1', true, true]]);
  });

  it('stores rules as given, without a generation', async () => {
    const rules = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['a'] }];
    const { object } = await store.create(ctx, role('reader', rules));
    expect(object.rules).toEqual(rules);
    expect(object.metadata.generation).toBeUndefined();
    const updated = await store.update(ctx, 'reader', { ...role('reader', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]) });
    expect(updated.object.metadata.generation).toBeUndefined();
  });

  it('takes path-segment names: colons and capitals, not "/", "%", "." or ".."', async () => {
    for (const name of ['system:controller:bootstrap-signer', 'Mixed_Case@x']) {
      const { object } = await store.create(ctx, role(name));
      expect(object.metadata.name).toBe(name);
      expect((await store.get(ctx, name)).metadata.name).toBe(name);
    }
    expect(await causes(store.create(ctx, role('a/b')))).toEqual([`metadata.name: Invalid value: "a/b": may not contain '/'`]);
    expect(await causes(store.create(ctx, role('50%')))).toEqual([`metadata.name: Invalid value: "50%": may not contain '%'`]);
    expect(await causes(store.create(ctx, role('..')))).toEqual([`metadata.name: Invalid value: "..": may not be '..'`]);
    expect(await causes(store.create(ctx, role('.')))).toEqual([`metadata.name: Invalid value: ".": may not be '.'`]);
  });

  it("refuses each broken rule in kube's words", async () => {
    const err = await refused(
      store.create(
        ctx,
        role('bad', [
          {},
          { verbs: ['get'], resources: ['pods'] },
          { verbs: ['get'], apiGroups: [''] },
          { verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] },
          { verbs: ['get'], apiGroups: [''], nonResourceURLs: ['/x'] },
          { verbs: [], apiGroups: [''], resources: ['pods'], resourceNames: ['a', 'b'] },
        ]),
      ),
    );
    expect(err.status.details?.causes).toEqual([
      { reason: 'FieldValueRequired', field: 'rules[0].verbs', message: 'Required value: verbs must contain at least one value' },
      {
        reason: 'FieldValueRequired',
        field: 'rules[0].apiGroups',
        message: 'Required value: resource rules must supply at least one api group',
      },
      {
        reason: 'FieldValueRequired',
        field: 'rules[0].resources',
        message: 'Required value: resource rules must supply at least one resource',
      },
      {
        reason: 'FieldValueRequired',
        field: 'rules[1].apiGroups',
        message: 'Required value: resource rules must supply at least one api group',
      },
      {
        reason: 'FieldValueRequired',
        field: 'rules[2].resources',
        message: 'Required value: resource rules must supply at least one resource',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'rules[3].nonResourceURLs',
        message: 'Invalid value: []string{"/healthz", "/api/*"}: namespaced rules cannot apply to non-resource URLs',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'rules[4].nonResourceURLs',
        message: 'Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'rules[4].nonResourceURLs',
        message: 'Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs',
      },
      { reason: 'FieldValueRequired', field: 'rules[5].verbs', message: 'Required value: verbs must contain at least one value' },
    ]);
    expect(err.message).toMatch(/^Role\.rbac\.authorization\.k8s\.io "bad" is invalid: \[rules\[0\]\.verbs: Required value: verbs must/);
    expect(err.status.details).toMatchObject({ group: 'rbac.authorization.k8s.io', kind: 'Role', name: 'bad' });
  });

  it("reports an update's rule errors twice, as kube's strategy does (the message once)", async () => {
    await store.create(ctx, role('r', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]));
    const err = await refused(store.update(ctx, 'r', role('r', [{ apiGroups: [''], resources: ['pods'] }])));
    expect(err.status.details?.causes?.map((c) => c.field)).toEqual(['rules[0].verbs', 'rules[0].verbs']);
    expect(err.message).toBe(
      'Role.rbac.authorization.k8s.io "r" is invalid: rules[0].verbs: Required value: verbs must contain at least one value',
    );
  });

  it("reads null as Go's zero value, as kube decodes it (kube itself writes rules: null)", async () => {
    const { object } = await store.create(ctx, { ...role('empty'), rules: null });
    expect(object.rules).toBeUndefined();
    expect(
      await causes(store.create(ctx, role('r', [{ verbs: null, apiGroups: [''], resources: ['pods'], resourceNames: null }]))),
    ).toEqual(['rules[0].verbs: Required value: verbs must contain at least one value']);
  });

  it('creates on update and updates without a resourceVersion', async () => {
    const created = await store.update(ctx, 'new', role('new', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]));
    expect(created.created).toBe(true);
    const { object } = await store.update(ctx, 'new', role('new', []));
    expect(object.rules).toEqual([]);
  });

  it("prints kube's default table: Name and the creation time", async () => {
    const { object } = await store.create(ctx, role('system:r'));
    const table = toTable(RoleResource, object, { clock: { now: () => Date.parse('2026-03-02T10:00:00Z') } });
    expect(table.columnDefinitions?.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Created At', 'date', '', 0],
    ]);
    expect(table.rows[0]?.cells).toEqual(['system:r', '2026-03-01T10:00:00Z']);
    // Without a (readable) creation time: Go's zero time, as kube prints it.
    const noTime = toTable(RoleResource, { ...object, metadata: { name: 'x', creationTimestamp: 'garbage' } });
    expect(noTime.rows[0]?.cells).toEqual(['x', '0001-01-01T00:00:00Z']);
  });

  it('publishes rules and their lists as atomic (kube: +listType=atomic)', () => {
    const rules = toOpenAPISchema(RoleResource, 'v1').properties?.rules as Record<string, unknown> & { items: { properties: object } };
    expect(rules['x-kubernetes-list-type']).toBe('atomic');
    for (const [name, field] of Object.entries(rules.items.properties))
      expect([name, (field as Record<string, unknown>)['x-kubernetes-list-type']]).toEqual([name, 'atomic']);
  });
});

describe("Go's omitempty on rbac/v1 lists", () => {
  it("drops a rule's empty apiGroups, resources, resourceNames and nonResourceURLs on create and update; keeps verbs", async () => {
    const { object } = await store.create(
      ctx,
      role('r', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [], nonResourceURLs: [] }]),
    );
    expect(object.rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    const updated = await store.update(ctx, 'r', {
      ...object,
      rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: [] }],
    });
    expect(updated.object.rules).toEqual([{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
  });
});
