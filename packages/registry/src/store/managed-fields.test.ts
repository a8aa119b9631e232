import { FakeClock, type KubeObject, type ManagedFieldsEntry, StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigMap } from '../builtins/configmap.ts';
import { defineResource } from '../define-resource.ts';
import { ScaleREST } from './scale.ts';
import { Store } from './store.ts';

/** managedFields on every write, and server-side apply, through the Store (kube's field manager in front of storage). */

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({
    spec: z.object({ replicas: z.int().min(0), color: z.string().optional() }),
    status: z.object({ replicas: z.int().optional(), phase: z.string().optional() }).optional(),
  }),
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
});

const ctx = { namespace: 'ns' };
let clock: FakeClock;
let storage: MemoryStorage;
let cms: Store;
let widgets: Store;

beforeEach(() => {
  clock = new FakeClock(Date.UTC(2026, 0, 1));
  storage = new MemoryStorage({ compaction: false });
  cms = new Store(ConfigMap, { storage, clock });
  widgets = new Store(Widget, { storage, clock });
});
afterEach(() => storage.close());

const cm = (name: string, data: Record<string, string>, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', ...meta },
  data,
});

const entries = (obj: KubeObject): ManagedFieldsEntry[] => obj.metadata.managedFields ?? [];
const managers = (obj: KubeObject): string[] =>
  entries(obj).map((e) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`);

async function statusOf(p: Promise<unknown>): Promise<StatusError['status']> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err.status;
    throw err;
  }
  throw new Error('expected a StatusError');
}

describe('managedFields on Update operations', () => {
  it('create records the creator: manager, operation, apiVersion, time from the clock, FieldsV1', async () => {
    const { object } = await cms.create(ctx, cm('a', { x: '1' }, { labels: { l: 'v' } }), { fieldManager: 'kubectl-create' });
    expect(object.metadata.managedFields).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:x': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } },
      },
    ]);
  });

  it('a nameless manager is "unknown"; the group is in apiVersion', async () => {
    const { object } = await widgets.create(ctx, {
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { replicas: 1 },
    });
    expect(entries(object)).toMatchObject([{ manager: 'unknown', operation: 'Update', apiVersion: 'example.kapi.dev/v1' }]);
  });

  it('updates and patches move the fields they change to their manager, with the time of the change', async () => {
    await cms.create(ctx, cm('a', { x: '1', y: '1' }), { fieldManager: 'one' });
    clock.advance(5000);
    const updated = await cms.patch(ctx, 'a', { data: { y: '2' } }, 'merge', { fieldManager: 'two' });
    expect(managers(updated.object)).toEqual(['one/Update', 'two/Update']);
    const [one, two] = entries(updated.object);
    expect(one?.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:x': {} } });
    expect(one?.time).toBe('2026-01-01T00:00:00Z');
    expect(two?.fieldsV1).toEqual({ 'f:data': { 'f:y': {} } });
    expect(two?.time).toBe('2026-01-01T00:00:05Z');
  });

  it('a write that changes nothing keeps the entries and the resourceVersion', async () => {
    const created = await cms.create(ctx, cm('a', { x: '1' }), { fieldManager: 'one' });
    clock.advance(5000);
    const same = await cms.update(ctx, 'a', created.object, { fieldManager: 'two' });
    expect(same.object.metadata.resourceVersion).toBe(created.object.metadata.resourceVersion);
    expect(same.object.metadata.managedFields).toEqual(created.object.metadata.managedFields);
    const patched = await cms.patch(ctx, 'a', { data: { x: '1' } }, 'strategic', { fieldManager: 'three' });
    expect(patched.object.metadata.resourceVersion).toBe(created.object.metadata.resourceVersion);
  });

  it('an update sending back a copy of the entries it read keeps the stored entries themselves', async () => {
    const created = await cms.create(ctx, cm('a', { x: '1' }), { fieldManager: 'one' });
    const [stored] = entries(created.object);
    // The body as a client sends it: parsed from JSON, so an equal copy of the entries, not the stored objects.
    const sent = JSON.parse(JSON.stringify({ ...created.object, data: { x: '2' } })) as KubeObject;
    const same = await cms.update(ctx, 'a', sent, { fieldManager: 'one' });
    expect(same.object.metadata.resourceVersion).not.toBe(created.object.metadata.resourceVersion);
    expect(entries(same.object)[0]).toBe(stored);
    // A second later only the time moves: a new entry, its fieldsV1 still the stored one.
    clock.advance(1000);
    const later = await cms.update(ctx, 'a', JSON.parse(JSON.stringify({ ...same.object, data: { x: '3' } })), { fieldManager: 'one' });
    const [moved] = entries(later.object);
    expect(moved).not.toBe(stored);
    expect(moved?.time).toBe('2026-01-01T00:00:01Z');
    expect(moved?.fieldsV1).toBe(stored?.fieldsV1);
    // A copy that differs from the live entries is decoded as sent (the client's own edit counts).
    const edited = JSON.parse(JSON.stringify({ ...later.object, data: { x: '4' } })) as KubeObject;
    (edited.metadata.managedFields as ManagedFieldsEntry[])[0] = { ...(moved as ManagedFieldsEntry), manager: 'renamed' };
    const renamed = await cms.update(ctx, 'a', edited, { fieldManager: 'one' });
    expect(managers(renamed.object)).toEqual(['one/Update', 'renamed/Update']);
  });

  it('an empty managedFields in the request resets tracking; invalid ones are ignored', async () => {
    const created = await cms.create(ctx, cm('a', { x: '1' }), { fieldManager: 'one' });
    const reset = await cms.update(
      ctx,
      'a',
      { ...created.object, metadata: { ...created.object.metadata, managedFields: [] } },
      { fieldManager: 'two' },
    );
    // Nothing changed, so nobody is recorded after the reset.
    expect(reset.object.metadata.managedFields).toBeUndefined();
    const again = await cms.update(ctx, 'a', { ...reset.object, data: { x: '2' } }, { fieldManager: 'two' });
    expect(managers(again.object)).toEqual(['two/Update']);
    const invalid = await cms.update(
      ctx,
      'a',
      { ...again.object, data: { x: '3' }, metadata: { ...again.object.metadata, managedFields: [{ manager: 'x', operation: 'Delete' }] } },
      { fieldManager: 'three' },
    );
    // The live entries stay the base: two loses .data.x to three.
    expect(managers(invalid.object)).toEqual(['three/Update']);
  });

  it("entries of the wrong types in a request are refused as kube's decoder refuses them, on every kind of write", async () => {
    const created = await cms.create(ctx, cm('a', { x: '1' }), { fieldManager: 'one' });
    const bad = { manager: 'm', operation: 'Update', apiVersion: 'v1', time: 'now', fieldsType: 'FieldsV1', fieldsV1: {} };
    const timeError =
      'metadata.managedFields[0].time: Invalid value: "now": parsing time "now" as "2006-01-02T15:04:05Z07:00": cannot parse "now" as "2006"';
    const refused = async (p: Promise<unknown>, message: string) => {
      const status = await statusOf(p);
      expect(status.code).toBe(422);
      expect(status.reason).toBe('Invalid');
      expect(status.message).toContain(message);
    };
    await refused(cms.create(ctx, cm('b', { x: '1' }, { managedFields: [bad] })), `ConfigMap "b" is invalid: ${timeError}`);
    await refused(
      cms.create(ctx, cm('b', { x: '1' }, { managedFields: 'x' })),
      'metadata.managedFields: Invalid value: "x": must be a list of objects',
    );
    const withEntries = (managedFields: unknown) => ({
      ...created.object,
      metadata: { ...created.object.metadata, managedFields },
      data: { x: '2' },
    });
    await refused(cms.update(ctx, 'a', withEntries([bad])), timeError);
    await refused(cms.update(ctx, 'a', withEntries(['x'])), 'metadata.managedFields[0]: Invalid value: "x": must be an object');
    await refused(
      cms.update(ctx, 'a', withEntries([{ ...bad, time: undefined, manager: 5 }])),
      'metadata.managedFields[0].manager: Invalid value: 5: must be a string',
    );
    await refused(cms.patch(ctx, 'a', { metadata: { managedFields: [bad] } }, 'merge'), timeError);
    await refused(cms.patch(ctx, 'a', [{ op: 'add', path: '/metadata/managedFields/0/time', value: 7 }], 'json'), 'must be a string');
    // Nothing was written by any of them.
    expect((await cms.get(ctx, 'a')).metadata.resourceVersion).toBe(created.object.metadata.resourceVersion);
    expect(await cms.list(ctx).then((l) => l.items.map((o) => o.metadata.name))).toEqual(['a']);
    // Well-typed entries kube cannot decode as field sets (fieldsV1 is raw JSON to its decoder) are set aside instead.
    const ignored = await cms.update(ctx, 'a', withEntries([{ ...bad, time: undefined, fieldsV1: 'x' }]), { fieldManager: 'two' });
    expect(managers(ignored.object)).toEqual(['one/Update', 'two/Update']);
    // null decodes as an empty entry in Go: `[null]` resets tracking as `[{}]` does.
    const reset = await cms.update(ctx, 'a', { ...ignored.object, metadata: { ...ignored.object.metadata, managedFields: [null] } });
    expect(reset.object.metadata.managedFields).toBeUndefined();
  });

  it('the status subresource records its manager with subresource status, and never from the request', async () => {
    await widgets.create(
      ctx,
      { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1 } },
      { fieldManager: 'user' },
    );
    clock.advance(1000);
    const cur = await widgets.get(ctx, 'w');
    const res = await widgets.update(ctx, 'w', { ...cur, status: { replicas: 1 } }, { subresource: 'status', fieldManager: 'ctl' });
    expect(managers(res.object)).toEqual(['user/Update', 'ctl/Update/status']);
    expect(entries(res.object)[1]?.fieldsV1).toEqual({ 'f:status': { '.': {}, 'f:replicas': {} } });
    // The main resource ignores status: an update of spec and status records only spec.
    const main = await widgets.patch(ctx, 'w', { spec: { replicas: 2 }, status: { replicas: 9 } }, 'merge', { fieldManager: 'other' });
    expect(main.object.status).toEqual({ replicas: 1 });
    expect(entries(main.object).find((e) => e.manager === 'other')?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('keeps at most ten Update managers, the oldest merged into ancient-changes', async () => {
    await cms.create(ctx, cm('a', { k0: '0' }), { fieldManager: 'm00' });
    for (let i = 1; i <= 11; i++) {
      clock.advance(1000);
      await cms.patch(ctx, 'a', { data: { [`k${i}`]: `${i}` } }, 'merge', { fieldManager: `m${String(i).padStart(2, '0')}` });
    }
    const obj = await cms.get(ctx, 'a');
    const names = entries(obj).map((e) => e.manager);
    expect(names).toHaveLength(10);
    expect(names).toContain('ancient-changes');
    expect(names).not.toContain('m00');
    expect(names).not.toContain('m01');
    expect(entries(obj).find((e) => e.manager === 'ancient-changes')?.fieldsV1).toEqual({
      'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {}, 'f:k2': {} },
    });
  });
});

describe('server-side apply', () => {
  const applied = (data: Record<string, string>, meta: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', ...meta },
    data,
  });

  it('creates the object when it is missing, owned by the applier', async () => {
    const res = await cms.patch(ctx, 'a', applied({ x: '1' }), 'apply', { fieldManager: 'kubectl' });
    expect(res.created).toBe(true);
    expect(res.object.data).toEqual({ x: '1' });
    expect(res.object.metadata.managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:x': {} } },
      },
    ]);
  });

  it('conflicts with another manager over a different value: 409 with kube causes; force takes the field', async () => {
    await cms.create(ctx, cm('a', { a: '1' }), { fieldManager: 'mgr' });
    const st = await statusOf(cms.patch(ctx, 'a', applied({ a: '2' }), 'apply', { fieldManager: 'kubectl' }));
    expect(st.code).toBe(409);
    expect(st.reason).toBe('Conflict');
    expect(st.message).toBe('Apply failed with 1 conflict: conflict with "mgr" using v1: .data.a');
    expect(st.details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "mgr" using v1', field: '.data.a' }]);
    const forced = await cms.patch(ctx, 'a', applied({ a: '2' }), 'apply', { fieldManager: 'kubectl', force: true });
    expect(forced.object.data).toEqual({ a: '2' });
    // mgr keeps the map itself it created (`.data`), as in kube; the field is kubectl's now.
    expect(managers(forced.object)).toEqual(['kubectl/Apply', 'mgr/Update']);
    expect(entries(forced.object)[1]?.fieldsV1).toEqual({ 'f:data': {} });
  });

  it('shares fields applied with the same value, and removes a field its only applier stops applying', async () => {
    await cms.patch(ctx, 'a', applied({ a: '1', b: '1' }), 'apply', { fieldManager: 'one' });
    const shared = await cms.patch(ctx, 'a', applied({ a: '1' }), 'apply', { fieldManager: 'two' });
    // An apply that changes nothing records its manager without a time (kube's managedFieldsUpdater), so it sorts first.
    expect(managers(shared.object)).toEqual(['two/Apply', 'one/Apply']);
    expect(entries(shared.object)[0]?.time).toBeUndefined();
    const dropped = await cms.patch(ctx, 'a', applied({ a: '1' }), 'apply', { fieldManager: 'one' });
    expect(dropped.object.data).toEqual({ a: '1' });
    const droppedA = await cms.patch(ctx, 'a', applied({}), 'apply', { fieldManager: 'one' });
    // two still applies .data.a: it stays.
    expect(droppedA.object.data).toEqual({ a: '1' });
  });

  it('a no-op apply keeps the resourceVersion', async () => {
    const first = await cms.patch(ctx, 'a', applied({ a: '1' }), 'apply', { fieldManager: 'one' });
    clock.advance(3000);
    const again = await cms.patch(ctx, 'a', applied({ a: '1' }), 'apply', { fieldManager: 'one' });
    expect(again.object.metadata.resourceVersion).toBe(first.object.metadata.resourceVersion);
    expect(again.object.metadata.managedFields).toEqual(first.object.metadata.managedFields);
  });

  it('a patch of another kind or version, or with managedFields, is a 400 as kube says it', async () => {
    expect((await statusOf(cms.patch(ctx, 'a', { ...applied({}), kind: 'Secret' }, 'apply', { fieldManager: 'm' }))).message).toBe(
      'invalid object type: /v1, Kind=Secret',
    );
    expect((await statusOf(cms.patch(ctx, 'a', { ...applied({}), apiVersion: 'v2' }, 'apply', { fieldManager: 'm' }))).message).toBe(
      'invalid object type: /v2, Kind=ConfigMap',
    );
    expect((await statusOf(cms.patch(ctx, 'a', applied({}, { managedFields: [] }), 'apply', { fieldManager: 'm' }))).message).toBe(
      'metadata.managedFields must be nil',
    );
    expect((await statusOf(cms.patch(ctx, 'a', applied({}, { name: 'b' }), 'apply', { fieldManager: 'm' }))).message).toBe(
      'the name of the object (b) does not match the name on the URL (a)',
    );
  });

  // kube (fieldvalidation_test.go: "unknown fields were treated as errors in apply-patch"): the typed patch object
  // refuses an undeclared field whatever fieldValidation says; kube answers it 500, kapi 400 (see field-manager.ts).
  it('undeclared fields in an apply configuration are refused under Strict, Warn and Ignore alike', async () => {
    const config = { ...applied({ a: '1' }), foo: 1, metadata: { name: 'a', bogus: true } };
    for (const fieldValidation of ['Strict', 'Warn', 'Ignore'] as const) {
      const st = await statusOf(cms.patch(ctx, 'a', config, 'apply', { fieldManager: 'm', fieldValidation }));
      expect(st.code).toBe(400);
      expect(st.message).toBe(
        'failed to create typed patch object (/a; /v1, Kind=ConfigMap): errors:\n' +
          '  .metadata.bogus: field not declared in schema\n' +
          '  .foo: field not declared in schema',
      );
    }
    const one = { ...applied({ a: '1' }), foo: 1 };
    expect((await statusOf(cms.patch(ctx, 'a', one, 'apply', { fieldManager: 'm' }))).message).toBe(
      'failed to create typed patch object (/a; /v1, Kind=ConfigMap): .foo: field not declared in schema',
    );
    const wrong = await statusOf(cms.patch(ctx, 'a', applied({ a: 1 as unknown as string }), 'apply', { fieldManager: 'm' }));
    expect(wrong.message).toBe(
      'failed to create typed patch object (/a; /v1, Kind=ConfigMap): .data.a: expected string, got &value.valueUnstructured{Value:1}',
    );
    expect((await statusOf(cms.get(ctx, 'a'))).code).toBe(404);
  });

  it('a configuration the schema cannot type is a 400', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u1' };
    const w = {
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'ns', ownerReferences: [ref, ref] },
      spec: { replicas: 1 },
    };
    const st = await statusOf(widgets.patch(ctx, 'w', w, 'apply', { fieldManager: 'm' }));
    expect(st.code).toBe(400);
    expect(st.message).toBe(
      'failed to create typed patch object (ns/w; example.kapi.dev/v1, Kind=Widget): .metadata.ownerReferences: duplicate entries for key [uid="u1"]',
    );
    const set = { ...w, metadata: { name: 'w', namespace: 'ns', finalizers: ['example.com/a', 'example.com/a'] } };
    const dup = await statusOf(widgets.patch(ctx, 'w', set, 'apply', { fieldManager: 'm' }));
    expect([dup.code, dup.message]).toEqual([
      400,
      'failed to create typed patch object (ns/w; example.kapi.dev/v1, Kind=Widget): .metadata.finalizers: duplicate entries for key [="example.com/a"]',
    ]);
  });

  it('dryRun answers the result and stores nothing', async () => {
    const res = await cms.patch(ctx, 'a', applied({ a: '1' }), 'apply', { fieldManager: 'm', dryRun: true });
    expect(res.object.data).toEqual({ a: '1' });
    expect((await statusOf(cms.get(ctx, 'a'))).code).toBe(404);
  });

  it('status apply by a controller never conflicts with the spec applier, and the main resource ignores status', async () => {
    const w = (extra: Record<string, unknown>) => ({
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      ...extra,
    });
    await widgets.patch(ctx, 'w', w({ spec: { replicas: 1 } }), 'apply', { fieldManager: 'user' });
    const st = await widgets.patch(ctx, 'w', w({ status: { phase: 'Ready' } }), 'apply', { fieldManager: 'ctl', subresource: 'status' });
    expect(st.object.status).toEqual({ phase: 'Ready' });
    expect(managers(st.object)).toEqual(['ctl/Apply/status', 'user/Apply']);
    // The user applies status too: reset on the main resource, so neither a conflict nor a change.
    const main = await widgets.patch(ctx, 'w', w({ spec: { replicas: 2 }, status: { phase: 'Nope' } }), 'apply', { fieldManager: 'user' });
    expect(main.object.status).toEqual({ phase: 'Ready' });
    expect(main.object.spec).toEqual({ replicas: 2 });
    // A status apply to a missing object is a 404 (no create through a subresource).
    expect(
      (
        await statusOf(
          widgets.patch(ctx, 'x', { ...w({}), metadata: { name: 'x' } }, 'apply', { fieldManager: 'c', subresource: 'status' }),
        )
      ).code,
    ).toBe(404);
  });
});

describe("kubectl's migration from client-side apply", () => {
  const LAST = 'kubectl.kubernetes.io/last-applied-configuration';
  it('kubectl may take what its last-applied annotation set, and the annotation follows its applies', async () => {
    const last = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'ns' },
      data: { p: '1', q: '2' },
    });
    await cms.create(ctx, cm('a', { p: '1', q: '2' }, { annotations: { [LAST]: last } }), { fieldManager: 'kubectl-client-side-apply' });
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { p: '1', q: '3' } };
    // Another manager conflicts over q; kubectl does not, since client-side apply set it.
    const st = await statusOf(cms.patch(ctx, 'a', config, 'apply', { fieldManager: 'other' }));
    expect(st.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.q');
    const res = await cms.patch(ctx, 'a', config, 'apply', { fieldManager: 'kubectl' });
    expect(res.object.data).toEqual({ p: '1', q: '3' });
    expect(res.object.metadata.annotations?.[LAST]).toBe(
      '{"apiVersion":"v1","data":{"p":"1","q":"3"},"kind":"ConfigMap","metadata":{"name":"a","namespace":"ns"}}\n',
    );
  });
});

describe('the scale subresource', () => {
  it('records the replicas it sets as its manager (subresource scale, the parent version), taking them from the applier', async () => {
    const w = { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1, color: 'red' } };
    await widgets.patch(ctx, 'w', w, 'apply', { fieldManager: 'a' });
    clock.advance(1000);
    const scale = new ScaleREST(widgets);
    await scale.patchScale(ctx, 'w', { spec: { replicas: 3 } }, 'merge', { fieldManager: 'kubectl' });
    const obj = await widgets.get(ctx, 'w');
    expect(managers(obj)).toEqual(['a/Apply', 'kubectl/Update/scale']);
    expect(entries(obj)[1]).toMatchObject({ apiVersion: 'example.kapi.dev/v1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
    const st = await statusOf(widgets.patch(ctx, 'w', w, 'apply', { fieldManager: 'a' }));
    expect(st.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using example.kapi.dev/v1: .spec.replicas',
    );
  });
});

describe('apply on the scale subresource', () => {
  it('owns the replicas as an Apply through scale, conflicts with their other manager, force takes them', async () => {
    const w = { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1, color: 'red' } };
    await widgets.patch(ctx, 'w', w, 'apply', { fieldManager: 'a' });
    const scale = new ScaleREST(widgets);
    const applyScale = (replicas: number, force = false) =>
      scale.patchScale(ctx, 'w', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w' }, spec: { replicas } }, 'apply', {
        fieldManager: 'hpa',
        force,
      });
    const st = await statusOf(applyScale(4));
    expect(st.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.replicas');
    expect((await applyScale(4, true)).spec.replicas).toBe(4);
    const obj = await widgets.get(ctx, 'w');
    expect(managers(obj)).toEqual(['a/Apply', 'hpa/Apply/scale']);
    expect(entries(obj)[1]).toMatchObject({ apiVersion: 'example.kapi.dev/v1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
    expect(entries(obj)[0]?.fieldsV1).toEqual({ 'f:spec': { 'f:color': {} } });
    const wrong = await statusOf(
      scale.patchScale(ctx, 'w', { apiVersion: 'v1', kind: 'Scale', spec: { replicas: 1 } }, 'apply', { fieldManager: 'x' }),
    );
    expect(wrong.message).toBe('invalid object type: /v1, Kind=Scale');
    // Typed as a Scale (kube's scale field manager): an undeclared field is refused, nothing is written.
    const undeclared = await statusOf(
      scale.patchScale(
        ctx,
        'w',
        { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w' }, spec: { replicas: 2, size: 2 } },
        'apply',
        { fieldManager: 'hpa' },
      ),
    );
    expect([undeclared.code, undeclared.message]).toEqual([
      400,
      'failed to create typed patch object (/w; autoscaling/v1, Kind=Scale): .spec.size: field not declared in schema',
    ]);
    expect((await widgets.get(ctx, 'w')).spec).toEqual({ replicas: 4, color: 'red' });
  });
});

describe('apply on the scale subresource of a kind that keeps the count elsewhere', () => {
  const Sized = defineResource({
    group: 'example.kapi.dev',
    kind: 'Sized',
    plural: 'sizeds',
    namespaced: true,
    versions: [{ name: 'v1' }],
    schema: z.object({ spec: z.object({ size: z.int().min(0) }), status: z.object({ count: z.int().optional() }).optional() }),
    subresources: { status: true, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.count' } },
  });

  // kube merges a scale apply into the Scale (ScaleHandler maps the parent's managers of the count onto it): the
  // conflict is at the Scale's .spec.replicas; the ownership recorded is the parent's path.
  it('a conflict names the Scale path; force records the parent path through scale', async () => {
    const sized = new Store(Sized, { storage, clock });
    const config = { apiVersion: 'example.kapi.dev/v1', kind: 'Sized', metadata: { name: 's' }, spec: { size: 1 } };
    await sized.patch(ctx, 's', config, 'apply', { fieldManager: 'a' });
    const scale = new ScaleREST(sized);
    const applyScale = (force: boolean) =>
      scale.patchScale(ctx, 's', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 's' }, spec: { replicas: 3 } }, 'apply', {
        fieldManager: 'hpa',
        force,
      });
    const st = await statusOf(applyScale(false));
    expect(st.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.replicas');
    expect(st.details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.replicas' }]);
    expect((await applyScale(true)).spec.replicas).toBe(3);
    const obj = await sized.get(ctx, 's');
    expect(obj.spec).toEqual({ size: 3 });
    expect(managers(obj)).toEqual(['hpa/Apply/scale']);
    expect(entries(obj)[0]?.fieldsV1).toEqual({ 'f:spec': { 'f:size': {} } });
  });
});

// Two versions naming the count differently: v1 (storage) spec.replicas, v1beta1 spec.size.
const rename = (spec: Record<string, unknown>, from: string, to: string) => {
  const { [from]: value, ...rest } = spec;
  return value === undefined ? rest : { ...rest, [to]: value };
};
const Gizmo = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
  versions: [
    { name: 'v1', storage: true, schema: z.object({ spec: z.object({ replicas: z.int(), color: z.string().optional() }) }) },
    {
      name: 'v1beta1',
      schema: z.object({ spec: z.object({ size: z.int(), color: z.string().optional() }) }),
      toHub: (o) => ({ ...o, spec: rename((o.spec ?? {}) as Record<string, unknown>, 'size', 'replicas') }),
      fromHub: (o) => ({ ...o, spec: rename((o.spec ?? {}) as Record<string, unknown>, 'replicas', 'size') }),
    },
  ],
});

describe('managers of different versions', () => {
  it('are compared in their own version: a v1beta1 apply of size conflicts with the v1 manager of replicas', async () => {
    const gizmos = new Store(Gizmo, { storage, clock });
    await gizmos.create(
      ctx,
      { apiVersion: 'example.kapi.dev/v1', kind: 'Gizmo', metadata: { name: 'g' }, spec: { replicas: 1 } },
      {
        fieldManager: 'v1-writer',
      },
    );
    const config = { apiVersion: 'example.kapi.dev/v1beta1', kind: 'Gizmo', metadata: { name: 'g' }, spec: { size: 2, color: 'red' } };
    const st = await statusOf(gizmos.patch(ctx, 'g', config, 'apply', { fieldManager: 'beta', version: 'v1beta1' }));
    expect(st.message).toBe('Apply failed with 1 conflict: conflict with "v1-writer" using example.kapi.dev/v1: .spec.replicas');
    const forced = await gizmos.patch(ctx, 'g', config, 'apply', { fieldManager: 'beta', version: 'v1beta1', force: true });
    expect(forced.object.spec).toEqual({ size: 2, color: 'red' });
    expect(entries(forced.object).map((e) => [e.manager, e.apiVersion, e.fieldsV1])).toEqual([
      ['beta', 'example.kapi.dev/v1beta1', { 'f:spec': { 'f:color': {}, 'f:size': {} } }],
      // The creator keeps the struct it made, in its version.
      ['v1-writer', 'example.kapi.dev/v1', { 'f:spec': {} }],
    ]);
  });
});
