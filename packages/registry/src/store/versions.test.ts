import { type KubeObject, StatusError, type WatchEvent } from '@kapi/apimachinery';
import { MemoryStorage, type Watch } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import { Store } from './store.ts';
import type { WriteAdmission } from './types.ts';

// A kind served in two versions: v1 (storage, the hub) names the count spec.replicas, v1beta1 names it spec.size.
type Spec = Record<string, unknown>;
const specOf = (o: KubeObject): Spec => (o.spec ?? {}) as Spec;
const rename = (spec: Spec, from: string, to: string): Spec => {
  const { [from]: value, ...rest } = spec;
  return value === undefined ? rest : { ...rest, [to]: value };
};

const Gizmo = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
  versions: [
    {
      name: 'v1',
      storage: true,
      schema: z.object({
        spec: z.object({ replicas: z.int().min(0), color: z.string().optional() }),
        status: z.object({ ready: z.boolean().optional() }).optional(),
      }),
    },
    {
      name: 'v1beta1',
      schema: z.object({
        spec: z.object({ size: z.int().min(0), color: z.string().optional() }),
        status: z.object({ ready: z.boolean().optional() }).optional(),
      }),
      toHub: (o) => ({ ...o, spec: rename(specOf(o), 'size', 'replicas') }),
      fromHub: (o) => ({ ...o, spec: rename(specOf(o), 'replicas', 'size') }),
    },
  ],
});

const V1 = 'example.kapi.dev/v1';
const V1BETA1 = 'example.kapi.dev/v1beta1';
const ns = { namespace: 'default' };

function gizmo(apiVersion: string, name: string, spec: Spec): KubeObject {
  return { apiVersion, kind: 'Gizmo', metadata: { name, namespace: 'default' }, spec };
}

async function failure(p: Promise<unknown> | (() => unknown)): Promise<StatusError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error('expected a failure');
}

async function take(w: Watch, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const it = w[Symbol.asyncIterator]();
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe('Store in several versions', () => {
  let storage: MemoryStorage;
  let store: Store;

  beforeEach(() => {
    storage = new MemoryStorage({ compaction: false });
    store = new Store(Gizmo, { storage });
  });
  afterEach(() => storage.close());

  it('creates in v1beta1 and reads in v1, and the other way round', async () => {
    const created = await store.create(ns, gizmo(V1BETA1, 'g1', { size: 3 }), { version: 'v1beta1' });
    expect(created.object.apiVersion).toBe(V1BETA1);
    expect(created.object.spec).toEqual({ size: 3 });
    const stored = await store.get(ns, 'g1');
    expect(stored.apiVersion).toBe(V1);
    expect(stored.spec).toEqual({ replicas: 3 });
    expect((await store.get(ns, 'g1', { version: 'v1' })).spec).toEqual({ replicas: 3 });

    const other = await store.create(ns, gizmo(V1, 'g2', { replicas: 4 }), { version: 'v1' });
    expect(other.object).toMatchObject({ apiVersion: V1, spec: { replicas: 4 } });
    const beta = await store.get(ns, 'g2', { version: 'v1beta1' });
    expect(beta).toMatchObject({ apiVersion: V1BETA1, kind: 'Gizmo', spec: { size: 4 } });
    expect(beta.metadata.resourceVersion).toBe(other.object.metadata.resourceVersion);
  });

  it('reads the storage version without converting it', async () => {
    await store.create(ns, gizmo(V1, 'g1', { replicas: 1 }), { version: 'v1' });
    // The storage's own (frozen, shared) object: no copy is made for the storage version.
    const plain = await store.get(ns, 'g1');
    const v1 = await store.get(ns, 'g1', { version: 'v1' });
    expect(v1).toEqual(plain);
    expect(Object.isFrozen(v1)).toBe(Object.isFrozen(plain));
  });

  it('lists in each version: the list and its items', async () => {
    await store.create(ns, gizmo(V1, 'g1', { replicas: 1 }), { version: 'v1' });
    await store.create(ns, gizmo(V1BETA1, 'g2', { size: 2 }), { version: 'v1beta1' });
    const beta = await store.list(ns, { version: 'v1beta1' });
    expect(beta.apiVersion).toBe(V1BETA1);
    expect(beta.kind).toBe('GizmoList');
    expect(beta.items.map((o) => [o.apiVersion, o.spec])).toEqual([
      [V1BETA1, { size: 1 }],
      [V1BETA1, { size: 2 }],
    ]);
    const v1 = await store.list(ns, { version: 'v1' });
    expect(v1.apiVersion).toBe(V1);
    expect(v1.kind).toBe('GizmoList');
    expect(v1.items.map((o) => [o.apiVersion, o.spec])).toEqual([
      [V1, { replicas: 1 }],
      [V1, { replicas: 2 }],
    ]);
  });

  it('watches in each version, bookmarks included', async () => {
    await store.create(ns, gizmo(V1, 'g1', { replicas: 1 }), { version: 'v1' });
    const opts = { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' as const, allowWatchBookmarks: true };
    const beta = store.watch(ns, { ...opts, version: 'v1beta1' });
    const v1 = store.watch(ns, { ...opts, version: 'v1' });
    const [added, bookmark] = await take(beta, 2);
    expect(added).toMatchObject({ type: 'ADDED', object: { apiVersion: V1BETA1, spec: { size: 1 } } });
    expect(bookmark).toMatchObject({ type: 'BOOKMARK', object: { apiVersion: V1BETA1, kind: 'Gizmo' } });
    const [added1, bookmark1] = await take(v1, 2);
    expect(added1).toMatchObject({ type: 'ADDED', object: { apiVersion: V1, spec: { replicas: 1 } } });
    expect(bookmark1).toMatchObject({ type: 'BOOKMARK', object: { apiVersion: V1, kind: 'Gizmo' } });

    await store.patch(ns, 'g1', { spec: { size: 5 } }, 'merge', { version: 'v1beta1' });
    await store.delete(ns, 'g1', { version: 'v1' });
    const later = await take(beta, 2);
    expect(later.map((e) => [e.type, (e.object as KubeObject).apiVersion, (e.object as KubeObject).spec])).toEqual([
      ['MODIFIED', V1BETA1, { size: 5 }],
      ['DELETED', V1BETA1, { size: 5 }],
    ]);
    const later1 = await take(v1, 2);
    expect(later1.map((e) => [e.type, (e.object as KubeObject).apiVersion, (e.object as KubeObject).spec])).toEqual([
      ['MODIFIED', V1, { replicas: 5 }],
      ['DELETED', V1, { replicas: 5 }],
    ]);
    beta.stop();
    v1.stop();
  });

  it('updates in v1beta1, with optimistic concurrency on the stored resourceVersion', async () => {
    const { object } = await store.create(ns, gizmo(V1BETA1, 'g1', { size: 1 }), { version: 'v1beta1' });
    const updated = await store.update(ns, 'g1', { ...object, spec: { size: 2 } }, { version: 'v1beta1' });
    expect(updated.object).toMatchObject({ apiVersion: V1BETA1, spec: { size: 2 }, metadata: { generation: 2 } });
    expect((await store.get(ns, 'g1')).spec).toEqual({ replicas: 2 });

    const stale = await failure(store.update(ns, 'g1', { ...object, spec: { size: 3 } }, { version: 'v1beta1' }));
    expect(stale.code).toBe(409);
    expect(stale.message).toBe(
      'Operation cannot be fulfilled on gizmos.example.kapi.dev "g1": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('applies merge, json and strategic patches to the object as the request version sees it', async () => {
    await store.create(ns, gizmo(V1, 'g1', { replicas: 1 }), { version: 'v1' });
    const merge = await store.patch(ns, 'g1', { spec: { size: 2 } }, 'merge', { version: 'v1beta1' });
    expect(merge.object).toMatchObject({ apiVersion: V1BETA1, spec: { size: 2 } });
    const json = await store.patch(ns, 'g1', [{ op: 'replace', path: '/spec/size', value: 3 }], 'json', { version: 'v1beta1' });
    expect(json.object.spec).toEqual({ size: 3 });
    const strategic = await store.patch(ns, 'g1', { spec: { size: 4, color: 'red' } }, 'strategic', { version: 'v1beta1' });
    expect(strategic.object.spec).toEqual({ size: 4, color: 'red' });
    expect((await store.get(ns, 'g1')).spec).toEqual({ replicas: 4, color: 'red' });
    // The path of the other version does not exist in this one.
    const missing = await failure(
      store.patch(ns, 'g1', [{ op: 'replace', path: '/spec/replicas', value: 9 }], 'json', { version: 'v1beta1' }),
    );
    expect(missing.code).toBe(422);
    // A patch naming a stale resourceVersion conflicts, as any update does.
    const rv = (await store.get(ns, 'g1')).metadata.resourceVersion;
    await store.patch(ns, 'g1', { spec: { size: 5 } }, 'merge', { version: 'v1beta1' });
    const stale = await failure(
      store.patch(ns, 'g1', { metadata: { resourceVersion: rv }, spec: { size: 6 } }, 'merge', { version: 'v1beta1' }),
    );
    expect(stale.code).toBe(409);
  });

  // kube-apiserver's handlers take only a body of the endpoint's group/version (RequestScope.AcceptsGroupVersion:
  // a custom resource's scope has no delegate, so "only scope.Kind is accepted"): a body of another served version
  // is refused, not converted, with the wording of apiextensions-apiserver's TestForProperValidationErrors.
  it('refuses a body of another version or kind', async () => {
    const beta = await failure(store.create(ns, gizmo(V1BETA1, 'g1', { size: 1 }), { version: 'v1' }));
    expect(beta.code).toBe(400);
    expect(beta.message).toBe(
      'the API version in the data (example.kapi.dev/v1beta1) does not match the expected API version (example.kapi.dev/v1)',
    );
    const unknown = await failure(store.create(ns, gizmo('example.kapi.dev/v2', 'g1', { size: 1 }), { version: 'v1beta1' }));
    expect(unknown.code).toBe(400);
    expect(unknown.message).toBe(
      'the API version in the data (example.kapi.dev/v2) does not match the expected API version (example.kapi.dev/v1beta1)',
    );
    const { object } = await store.create(ns, gizmo(V1, 'g1', { replicas: 1 }), { version: 'v1' });
    const update = await failure(store.update(ns, 'g1', { ...object, spec: { replicas: 2 } }, { version: 'v1beta1' }));
    expect(update.message).toBe(
      'the API version in the data (example.kapi.dev/v1) does not match the expected API version (example.kapi.dev/v1beta1)',
    );
    // Another kind: the decoder's 400 (kube's transformDecodeError) for a request body, the patcher's 422 for a patch.
    const kind = await failure(store.create(ns, { ...gizmo(V1, 'g2', { replicas: 1 }), kind: 'Widget' }, { version: 'v1' }));
    expect(kind.code).toBe(400);
    expect(kind.status.reason).toBe('BadRequest');
    expect(kind.message).toBe(
      'Widget in version "v1" cannot be handled as a Gizmo: converting (v1.Widget) to (example.Gizmo): unknown conversion',
    );
    const patched = await failure(store.patch(ns, 'g1', { kind: 'Widget' }, 'merge', { version: 'v1' }));
    expect(patched.code).toBe(422);
    expect(patched.message).toBe('Widget.example.kapi.dev "g1" is invalid: kind: Invalid value: "Widget": must be Gizmo');
    // A body without apiVersion and kind takes the endpoint's.
    const bare = await store.create(ns, { metadata: { name: 'g3' }, spec: { size: 1 } }, { version: 'v1beta1' });
    expect(bare.object).toMatchObject({ apiVersion: V1BETA1, kind: 'Gizmo', spec: { size: 1 } });
    // A version the kind does not have.
    const v2 = await failure(store.get(ns, 'g1', { version: 'v2' }));
    expect(v2.code).toBe(400);
    expect(v2.message).toBe('no kind "Gizmo" is registered for version "example.kapi.dev/v2"');
  });

  it('reports unknown fields with the request version and its paths', async () => {
    const strict = await failure(
      store.create(ns, gizmo(V1BETA1, 'g1', { size: 1, replicas: 1 }), { version: 'v1beta1', fieldValidation: 'Strict' }),
    );
    expect(strict.code).toBe(400);
    expect(strict.message).toBe(
      'Gizmo in version "v1beta1" cannot be handled as a Gizmo: strict decoding error: unknown field "spec.replicas"',
    );
    const warned = await store.create(ns, gizmo(V1BETA1, 'g1', { size: 1, replicas: 7 }), { version: 'v1beta1' });
    expect(warned.warnings).toEqual(['unknown field "spec.replicas"']);
    // Pruned before conversion: the v1 field sent to v1beta1 does not reach storage.
    expect((await store.get(ns, 'g1')).spec).toEqual({ replicas: 1 });
  });

  // kube-apiserver validates a custom resource in the version of its endpoint: the CR store decodes to the request
  // version (crdConversionRESTOptionsGetter's decoderVersion is the request version, encoderVersion the storage one)
  // and its strategy holds that version's schema validator. So a 422 names the request version's field paths.
  it('reports validation errors with the request version field paths', async () => {
    const beta = await failure(store.create(ns, gizmo(V1BETA1, 'g1', { size: -1 }), { version: 'v1beta1' }));
    expect(beta.code).toBe(422);
    expect(beta.message).toMatch(/^Gizmo.example.kapi.dev "g1" is invalid: spec.size: Invalid value: -1: /);
    const v1 = await failure(store.create(ns, gizmo(V1, 'g1', { replicas: -1 }), { version: 'v1' }));
    expect(v1.message).toMatch(/^Gizmo.example.kapi.dev "g1" is invalid: spec.replicas: Invalid value: -1: /);
    const missing = await failure(store.create(ns, gizmo(V1BETA1, 'g1', {}), { version: 'v1beta1' }));
    expect(missing.message).toMatch(/^Gizmo.example.kapi.dev "g1" is invalid: spec.size: Required/);

    await store.create(ns, gizmo(V1BETA1, 'g1', { size: 1 }), { version: 'v1beta1' });
    const patched = await failure(store.patch(ns, 'g1', { spec: { size: 'x' } }, 'merge', { version: 'v1beta1' }));
    expect(patched.code).toBe(422);
    expect(patched.message).toMatch(/^Gizmo.example.kapi.dev "g1" is invalid: spec.size: /);
  });

  it('admits in the request version', async () => {
    const seen: unknown[] = [];
    const admission: WriteAdmission = {
      async mutate(obj, old) {
        seen.push(['mutate', obj.apiVersion, structuredClone(obj.spec), old?.spec ?? null]);
        (obj.spec as Spec).color = 'blue';
      },
      async validate(obj, old) {
        seen.push(['validate', obj.apiVersion, obj.spec, old?.spec ?? null]);
      },
    };
    await store.create(ns, gizmo(V1BETA1, 'g1', { size: 1 }), { version: 'v1beta1', admission });
    await store.patch(ns, 'g1', { spec: { size: 2 } }, 'merge', { version: 'v1beta1', admission });
    expect(seen).toEqual([
      ['mutate', V1BETA1, { size: 1 }, null],
      ['validate', V1BETA1, { size: 1, color: 'blue' }, null],
      ['mutate', V1BETA1, { size: 2, color: 'blue' }, { size: 1, color: 'blue' }],
      ['validate', V1BETA1, { size: 2, color: 'blue' }, { size: 1, color: 'blue' }],
    ]);
    expect((await store.get(ns, 'g1')).spec).toEqual({ replicas: 2, color: 'blue' });

    const deleting: unknown[] = [];
    const res = await store.delete(ns, 'g1', {
      version: 'v1beta1',
      validateDeletion: async (current) => {
        deleting.push([current.apiVersion, current.spec]);
      },
    });
    expect(deleting).toEqual([[V1BETA1, { size: 2, color: 'blue' }]]);
    expect(res.object).toMatchObject({ apiVersion: V1BETA1, spec: { size: 2 } });
  });

  it('answers dryRun, delete and deletecollection in the request version', async () => {
    const dry = await store.create(ns, gizmo(V1BETA1, 'g0', { size: 9 }), { version: 'v1beta1', dryRun: true });
    expect(dry.object).toMatchObject({ apiVersion: V1BETA1, spec: { size: 9 } });
    await store.create(ns, gizmo(V1, 'g1', { replicas: 1 }), { version: 'v1' });
    await store.create(ns, gizmo(V1, 'g2', { replicas: 2 }), { version: 'v1' });
    const one = await store.delete(ns, 'g1', { version: 'v1beta1' });
    expect(one).toMatchObject({ deleted: true, object: { apiVersion: V1BETA1, spec: { size: 1 } } });
    const all = await store.deleteCollection(ns, { version: 'v1beta1' });
    expect(all.apiVersion).toBe(V1BETA1);
    expect(all.kind).toBe('GizmoList');
    expect(all.items.map((o) => [o.apiVersion, o.spec])).toEqual([[V1BETA1, { size: 2 }]]);
    expect((await store.list(ns)).items).toEqual([]);
  });
});
