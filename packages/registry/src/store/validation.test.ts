import { FakeClock, type KubeObject, StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import { listMap, listSet } from '../kube-extensions.ts';
import type { ResourceDefinition } from '../resource-definition.ts';
import { Store } from './store.ts';

/** ObjectMeta's owner references and the schema's map and set lists, checked by the Store on every write. */

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({
    spec: z.object({
      ports: listMap(z.array(z.object({ port: z.int(), name: z.string().optional() })), ['port']).optional(),
      tags: listSet(z.array(z.string())).optional(),
    }),
  }),
});

const ns = { namespace: 'default' };
const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u1' };

function widget(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default', ...meta }, spec };
}

async function failure(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error('expected a failure');
}

/** A Store of `def` over a fresh MemoryStorage for each test of the describe block that asks for it. */
function storeFor(def: ResourceDefinition): () => Store {
  let storage: MemoryStorage;
  let store: Store;
  beforeEach(() => {
    storage = new MemoryStorage({ compaction: false });
    store = new Store(def, { storage, clock: new FakeClock() });
  });
  afterEach(() => storage.close());
  return () => store;
}

describe('Store validation of owner references and list invariants', () => {
  let storage: MemoryStorage;
  let store: Store;

  beforeEach(() => {
    storage = new MemoryStorage({ compaction: false });
    store = new Store(Widget, { storage, clock: new FakeClock() });
  });
  afterEach(() => storage.close());

  it('refuses an incomplete owner reference on create', async () => {
    const err = await failure(store.create(ns, widget({}, { ownerReferences: [{ ...owner, uid: '' }] })));
    expect(err.status.code).toBe(422);
    expect(err.message).toBe('Widget.example.kapi.dev "w1" is invalid: metadata.ownerReferences.uid: Invalid value: "": must not be empty');
  });

  it('refuses a second controller on update and patch', async () => {
    const created = await store.create(ns, widget({}, { ownerReferences: [{ ...owner, controller: true }] }));
    const second = { ...owner, kind: 'ReplicaSet', name: 'rs', uid: 'u2', controller: true };
    const refs = [{ ...owner, controller: true }, second];
    const message = `Widget.example.kapi.dev "w1" is invalid: metadata.ownerReferences: Invalid value: ${JSON.stringify(refs)}: Only one reference can have Controller set to true. Found "true" in references for Deployment/web and ReplicaSet/rs`;
    const update = await failure(
      store.update(ns, 'w1', { ...created.object, metadata: { ...created.object.metadata, ownerReferences: refs } }),
    );
    expect(update.status.code).toBe(422);
    expect(update.message).toBe(message);
    const patch = await failure(store.patch(ns, 'w1', { metadata: { ownerReferences: refs } }, 'merge'));
    expect(patch.message).toBe(message);
  });

  it('refuses duplicate map keys and set items on create, update and after a patch', async () => {
    const dupPorts = { ports: [{ port: 80 }, { port: 80, name: 'again' }] };
    const create = await failure(store.create(ns, widget(dupPorts)));
    expect(create.status.code).toBe(422);
    expect(create.message).toBe(
      'Widget.example.kapi.dev "w1" is invalid: spec.ports[1]: Duplicate value: map[string]interface {}{"port":80}',
    );
    expect(create.status.details?.causes).toEqual([
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: map[string]interface {}{"port":80}', field: 'spec.ports[1]' },
    ]);

    const created = await store.create(ns, widget({ ports: [{ port: 80 }], tags: ['a'] }));
    const update = await failure(store.update(ns, 'w1', { ...created.object, spec: { tags: ['a', 'b', 'a'] } }));
    expect(update.message).toBe('Widget.example.kapi.dev "w1" is invalid: spec.tags[2]: Duplicate value: "a"');

    // A JSON patch can add an item with a key already there (a merge patch by key cannot).
    const json = await failure(store.patch(ns, 'w1', [{ op: 'add', path: '/spec/ports/-', value: { port: 80, name: 'x' } }], 'json'));
    expect(json.message).toBe(
      'Widget.example.kapi.dev "w1" is invalid: spec.ports[1]: Duplicate value: map[string]interface {}{"port":80}',
    );
    const merge = await failure(store.patch(ns, 'w1', { spec: { tags: ['b', 'b'] } }, 'merge'));
    expect(merge.message).toBe('Widget.example.kapi.dev "w1" is invalid: spec.tags[1]: Duplicate value: "b"');
  });

  it('ratchets list uniqueness on update: an object stored with duplicates may still be updated', async () => {
    // Written before the rule existed (straight to storage).
    await storage.create(store.keys.key('default', 'w1'), {
      ...widget({ tags: ['a', 'a'] }),
      metadata: { name: 'w1', namespace: 'default', uid: 'u' },
    });
    const labelled = await store.patch(ns, 'w1', { metadata: { labels: { a: 'b' } } }, 'merge');
    expect(labelled.object.metadata.labels).toEqual({ a: 'b' });
    // Once clean, the rule holds again.
    await store.patch(ns, 'w1', { spec: { tags: ['a'] } }, 'merge');
    const err = await failure(store.patch(ns, 'w1', { spec: { tags: ['a', 'a'] } }, 'merge'));
    expect(err.message).toBe('Widget.example.kapi.dev "w1" is invalid: spec.tags[1]: Duplicate value: "a"');
  });

  it('warns of finalizers added without a domain, on create and update, as for custom resources', async () => {
    const created = await store.create(ns, widget({}, { finalizers: ['cleanup', 'example.com/ok'] }));
    expect(created.warnings).toEqual([
      'metadata.finalizers: "cleanup": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers',
    ]);
    const patched = await store.patch(
      ns,
      'w1',
      { metadata: { finalizers: ['cleanup', 'example.com/ok', 'finalizers.example.com'] } },
      'merge',
    );
    expect(patched.warnings).toEqual([
      'metadata.finalizers: "finalizers.example.com": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers',
    ]);
    const updated = await store.update(ns, 'w1', { ...patched.object, metadata: { ...patched.object.metadata, labels: { a: 'b' } } });
    expect(updated.warnings).toEqual([]);
  });
});

describe('Store decoding of ObjectMeta', () => {
  const store = storeFor(Widget);

  // kube's decoder refuses these (its Go types), alone; the Store would overwrite the ones the server sets before
  // validation looked.
  it('refuses fields of the wrong types on create, update and patch, and keeps nothing of such a write', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ creationTimestamp: 'yesterday' }, 'metadata.creationTimestamp: Invalid value: "yesterday": parsing time "yesterday"'],
      [{ deletionTimestamp: 5 }, 'metadata.deletionTimestamp: Invalid value: 5: must be a string'],
      [{ uid: 5 }, 'metadata.uid: Invalid value: 5: must be a string'],
      [{ resourceVersion: 7 }, 'metadata.resourceVersion: Invalid value: 7: must be a string'],
      [{ generation: 'x' }, 'metadata.generation: Invalid value: "x": must be an integer'],
      [{ deletionGracePeriodSeconds: 1.5 }, 'metadata.deletionGracePeriodSeconds: Invalid value: 1.5: must be an integer'],
      // The type error alone (one error has no brackets): not with what validation says of the rest (a bad annotation key).
      [
        { labels: 'x', annotations: { 'not a name!': 'v' } },
        'is invalid: metadata.labels: Invalid value: "x": must be a map of string keys to string values',
      ],
    ];
    for (const [meta, message] of bad) {
      const err = await failure(store().create(ns, widget({}, { name: 'w2', ...meta })));
      expect([err.status.code, err.status.message]).toEqual([422, expect.stringContaining(message)]);
    }
    const created = await store().create(ns, widget({}, { creationTimestamp: '2000-01-01T00:00:00Z' }));
    // A well-typed one is taken as kube takes it: set by the server.
    expect(created.object.metadata.creationTimestamp).not.toBe('2000-01-01T00:00:00Z');
    for (const [meta, message] of bad) {
      const put = await failure(store().update(ns, 'w1', { ...created.object, metadata: { ...created.object.metadata, ...meta } }));
      expect([put.status.code, put.status.message]).toEqual([422, expect.stringContaining(message)]);
      const patched = await failure(store().patch(ns, 'w1', { metadata: meta }, 'merge'));
      expect([patched.status.code, patched.status.message]).toEqual([422, expect.stringContaining(message)]);
    }
    expect((await store().get(ns, 'w1')).metadata.resourceVersion).toBe(created.object.metadata.resourceVersion);
    expect((await store().list(ns)).items).toHaveLength(1);
  });
});

describe('Store decoding of values of the wrong type', () => {
  const Gadget = defineResource({
    group: 'example.kapi.dev',
    kind: 'Gadget',
    plural: 'gadgets',
    namespaced: true,
    versions: [{ name: 'v1' }],
    schema: z.object({
      spec: z.object({ size: z.int().min(0), name: z.string().optional() }),
      status: z.object({ ready: z.int().min(0).optional() }).optional(),
    }),
    subresources: { status: true },
  });
  const store = storeFor(Gadget);
  const gadget = (name: string, rest: Record<string, unknown>): KubeObject => ({
    apiVersion: 'example.kapi.dev/v1',
    kind: 'Gadget',
    metadata: { name, namespace: 'default' },
    ...rest,
  });

  // A kind of Go types fails decoding on such a value before anything looks at the object: the status a strategy
  // drops on the main resource included, which would otherwise be accepted unseen.
  it('refuses them, alone, before a strategy drops what holds them', async () => {
    const created = await failure(store().create(ns, gadget('g1', { spec: { size: 1 }, status: 'x' })));
    expect([created.status.code, created.status.message]).toEqual([
      422,
      'Gadget.example.kapi.dev "g1" is invalid: status: Invalid value: "string": status in body must be of type object: "string"',
    ]);
    const both = await failure(store().create(ns, gadget('g1', { spec: { size: 'x', name: 5 }, status: { ready: -1 } })));
    expect(both.status.message).toBe(
      'Gadget.example.kapi.dev "g1" is invalid: [spec.size: Invalid value: "string": spec.size in body must be of type integer: "string", spec.name: Invalid value: "integer": spec.name in body must be of type string: "integer"]',
    );
    // What a well-typed value says is validation's, of what the strategies leave: the status dropped, a bad size reported.
    const ok = await store().create(ns, gadget('g1', { spec: { size: 1 }, status: { ready: -1 } }));
    expect(ok.object.status).toBeUndefined();
    const invalid = await failure(store().create(ns, gadget('g2', { spec: { size: -1 }, status: null })));
    expect(invalid.status.message).toContain('spec.size: Invalid value: -1');
    const put = await failure(store().update(ns, 'g1', { ...ok.object, status: { ready: 'x' } }));
    expect(put.status.message).toContain('status.ready: Invalid value: "string": status.ready in body must be of type integer');
    const patched = await failure(store().patch(ns, 'g1', { status: { ready: 'x' } }, 'merge'));
    expect(patched.status.code).toBe(422);
    expect((await store().get(ns, 'g1')).metadata.resourceVersion).toBe(ok.object.metadata.resourceVersion);
  });
});

describe("a kind's validate hooks on objects its schema refused", () => {
  // The hook assumes the schema's types, as kube's validation functions do on decoded objects.
  const Ruled = defineResource({
    group: 'example.kapi.dev',
    kind: 'Ruled',
    plural: 'ruleds',
    namespaced: true,
    versions: [{ name: 'v1' }],
    schema: z.object({ rules: z.array(z.object({ verbs: z.array(z.string()) })).optional() }),
    strategy: {
      validate: (_ctx, obj) => ((obj as { rules?: { verbs: string[] }[] }).rules ?? []).flatMap((r) => (r.verbs.length ? [] : [])),
      validateUpdate: (_ctx, obj) => ((obj as { rules?: { verbs: string[] }[] }).rules ?? []).flatMap(() => []),
    },
  });
  const store = storeFor(Ruled);
  const ruled = (rules: unknown) => ({
    apiVersion: 'example.kapi.dev/v1',
    kind: 'Ruled',
    metadata: { name: 'r', namespace: 'default' },
    rules,
  });

  it("answer with the schema's 422 when they fail on what the schema reported (not a 500)", async () => {
    const created = await failure(store().create(ns, ruled('x')));
    expect(created.status.code).toBe(422);
    expect(created.message).toBe(
      'Ruled.example.kapi.dev "r" is invalid: rules: Invalid value: "string": rules in body must be of type array: "string"',
    );
    await store().create(ns, ruled([{ verbs: ['get'] }]));
    const updated = await failure(store().patch(ns, 'r', { rules: 'x' }, 'merge'));
    expect(updated.status.code).toBe(422);
    expect((await failure(store().patch(ns, 'r', { rules: [5] }, 'merge'))).status.code).toBe(422);
  });
});
