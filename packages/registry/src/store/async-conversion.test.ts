import { type KubeObject, StatusError, type WatchEvent } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { convertObject } from '../convert.ts';
import { defineResource } from '../define-resource.ts';
import type { ObjectConversion } from '../object-conversion.ts';
import { Store } from './store.ts';

// A kind whose versions convert asynchronously and a batch at a time, as a CRD's conversion webhook does: v1 (storage)
// names the count spec.replicas, v1beta1 names it spec.size. Every call is recorded; `failWith` makes calls fail and
// `delays` makes later calls finish before earlier ones.
type Spec = Record<string, unknown>;
const rename = (spec: Spec, from: string, to: string): Spec => {
  const { [from]: value, ...rest } = spec;
  return value === undefined ? rest : { ...rest, [to]: value };
};

const calls: { toVersion: string; names: string[]; list: boolean }[] = [];
let failWith: ((objects: readonly KubeObject[], toVersion: string) => string | undefined) | undefined;
let delays: number[] = [];

const conversion: ObjectConversion = {
  async convert(objects, toVersion, list) {
    calls.push({ toVersion, names: objects.map((o) => o.metadata.name ?? ''), list });
    await new Promise((r) => setTimeout(r, delays.shift() ?? 0));
    const why = failWith?.(objects, toVersion);
    if (why) throw new Error(why);
    return objects.map((o) => {
      const spec = (o.spec ?? {}) as Spec;
      const to = toVersion === 'v1' ? rename(spec, 'size', 'replicas') : rename(spec, 'replicas', 'size');
      return { ...structuredClone(o), apiVersion: `example.kapi.dev/${toVersion}`, spec: to };
    });
  },
};

const Gizmo = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
  subresources: { status: true },
  versions: [
    {
      name: 'v1',
      storage: true,
      schema: z.object({ spec: z.object({ replicas: z.int().min(0) }), status: z.object({ ready: z.boolean() }).optional() }),
    },
    {
      name: 'v1beta1',
      schema: z.object({ spec: z.object({ size: z.int().min(0) }), status: z.object({ ready: z.boolean() }).optional() }),
    },
  ],
  conversion,
});

const ns = { namespace: 'default' };
const beta = (name: string, size: number): KubeObject =>
  ({ apiVersion: 'example.kapi.dev/v1beta1', kind: 'Gizmo', metadata: { name, namespace: 'default' }, spec: { size } }) as KubeObject;
const spec = (o: KubeObject) => o.spec as Spec;

async function failure(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return err as StatusError;
}

describe('a Store whose kind converts asynchronously (ObjectConversion)', () => {
  let memory: MemoryStorage;
  let store: Store;
  beforeEach(() => {
    memory = new MemoryStorage({ compaction: false });
    store = new Store(Gizmo, { storage: memory });
    calls.length = 0;
    failWith = undefined;
    delays = [];
  });
  afterEach(async () => {
    await memory.close();
  });

  it('stores a body of another version converted, and answers every verb in the request version', async () => {
    const created = await store.create(ns, beta('a', 2), { version: 'v1beta1' });
    expect(created.object.apiVersion).toBe('example.kapi.dev/v1beta1');
    expect(spec(created.object)).toEqual({ size: 2 });
    const stored = await store.get(ns, 'a');
    expect(stored.apiVersion).toBe('example.kapi.dev/v1');
    expect(spec(stored)).toEqual({ replicas: 2 });
    expect(spec(await store.get(ns, 'a', { version: 'v1beta1' }))).toEqual({ size: 2 });

    const rv = stored.metadata.resourceVersion;
    const updated = await store.update(
      ns,
      'a',
      { ...beta('a', 3), metadata: { ...beta('a', 3).metadata, resourceVersion: rv } },
      { version: 'v1beta1' },
    );
    expect(spec(updated.object)).toEqual({ size: 3 });
    const patched = await store.patch(ns, 'a', { spec: { size: 4 } }, 'merge', { version: 'v1beta1' });
    expect(spec(patched.object)).toEqual({ size: 4 });
    expect(spec(await store.get(ns, 'a'))).toEqual({ replicas: 4 });
    const withRV = (o: KubeObject, resourceVersion: string | undefined) => ({ ...o, metadata: { ...o.metadata, resourceVersion } });
    const status = await store.update(
      ns,
      'a',
      withRV({ ...beta('a', 9), status: { ready: true } }, patched.object.metadata.resourceVersion),
      {
        version: 'v1beta1',
        subresource: 'status',
      },
    );
    expect(status.object).toMatchObject({ spec: { size: 4 }, status: { ready: true } });
    const deleted = await store.delete(ns, 'a', { version: 'v1beta1' });
    expect(deleted.object.apiVersion).toBe('example.kapi.dev/v1beta1');
    expect(spec(deleted.object)).toEqual({ size: 4 });
  });

  it('converts a list page in one call, in order', async () => {
    for (const [i, name] of ['a', 'b', 'c'].entries())
      await store.create(ns, { ...beta(name, i), apiVersion: 'example.kapi.dev/v1', spec: { replicas: i } });
    calls.length = 0;
    const list = await store.list(ns, { version: 'v1beta1' });
    expect(calls).toEqual([{ toVersion: 'v1beta1', names: ['a', 'b', 'c'], list: true }]);
    expect(list.apiVersion).toBe('example.kapi.dev/v1beta1');
    expect(list.items.map((o) => [o.metadata.name, spec(o).size])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
  });

  it('deletes a collection answering in the request version with one conversion, and answers a dry run in it', async () => {
    for (const name of ['a', 'b']) await store.create(ns, beta(name, 1), { version: 'v1beta1' });
    const dry = await store.create(ns, beta('c', 7), { version: 'v1beta1', dryRun: true });
    expect(dry.object).toMatchObject({ apiVersion: 'example.kapi.dev/v1beta1', spec: { size: 7 } });
    calls.length = 0;
    const gone = await store.deleteCollection(ns, { version: 'v1beta1' });
    expect(gone.items.map((o) => [o.metadata.name, o.apiVersion, spec(o).size])).toEqual([
      ['a', 'example.kapi.dev/v1beta1', 1],
      ['b', 'example.kapi.dev/v1beta1', 1],
    ]);
    expect(calls.filter((c) => c.list)).toEqual([{ toVersion: 'v1beta1', names: ['a', 'b'], list: true }]);
  });

  it('refuses the synchronous convertObject for a kind that converts asynchronously, rather than skip its conversion', () => {
    expect(() => convertObject(Gizmo, beta('a', 1), 'v1')).toThrow('Gizmo converts asynchronously: use convertObjects');
  });

  it('never calls the conversion for the storage version', async () => {
    await store.create(ns, { ...beta('a', 1), apiVersion: 'example.kapi.dev/v1', spec: { replicas: 1 } });
    await store.get(ns, 'a');
    await store.list(ns);
    expect(calls).toEqual([]);
  });

  it('delivers watch events converted in their order, however long each conversion takes', async () => {
    const watch = store.watch(ns, { version: 'v1beta1', resourceVersion: '0' });
    const seen: WatchEvent[] = [];
    const done = (async () => {
      for await (const ev of watch) {
        seen.push(ev);
        if (seen.length === 4) break;
      }
    })();
    // Earlier events take longer to convert than later ones.
    delays = [60, 40, 20, 0, 0, 0, 0, 0];
    for (const name of ['a', 'b', 'c'])
      await store.create(ns, { ...beta(name, 1), apiVersion: 'example.kapi.dev/v1', spec: { replicas: 1 } });
    await store.delete(ns, 'b');
    await done;
    expect(seen.map((e) => [e.type, (e.object as KubeObject).metadata.name, (e.object as KubeObject).apiVersion])).toEqual([
      ['ADDED', 'a', 'example.kapi.dev/v1beta1'],
      ['ADDED', 'b', 'example.kapi.dev/v1beta1'],
      ['ADDED', 'c', 'example.kapi.dev/v1beta1'],
      ['DELETED', 'b', 'example.kapi.dev/v1beta1'],
    ]);
    expect(spec(seen[0]?.object as KubeObject)).toEqual({ size: 1 });
    // One conversion per event, each of one object.
    expect(calls.filter((c) => c.toVersion === 'v1beta1').map((c) => [c.names, c.list])).toEqual([
      [['a'], false],
      [['b'], false],
      [['c'], false],
      [['b'], false],
    ]);
  });

  it('ends a watch whose event fails to convert with an ERROR event carrying a 500 InternalError', async () => {
    const watch = store.watch(ns, { version: 'v1beta1', resourceVersion: '0' });
    const seen: WatchEvent[] = [];
    const done = (async () => {
      for await (const ev of watch) seen.push(ev);
    })();
    failWith = (objects) => (objects[0]?.metadata.name === 'b' ? 'conversion webhook for b failed: boom' : undefined);
    for (const name of ['a', 'b', 'c'])
      await store.create(ns, { ...beta(name, 1), apiVersion: 'example.kapi.dev/v1', spec: { replicas: 1 } });
    await done;
    expect(seen.map((e) => e.type)).toEqual(['ADDED', 'ERROR']);
    expect(seen[1]?.object).toMatchObject({
      kind: 'Status',
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: conversion webhook for b failed: boom',
    });
  });

  it("answers a failed conversion with kube's 500 Status (no reason, the converter's message), and stores nothing on a failed create, update or patch", async () => {
    failWith = () => 'conversion webhook failed: down';
    const onCreate = await failure(store.create(ns, beta('a', 1), { version: 'v1beta1' }));
    expect(onCreate.status.reason).toBeUndefined();
    expect(onCreate.status).toMatchObject({
      code: 500,
      message: 'conversion webhook failed: down',
    });
    expect((await store.list(ns)).items).toEqual([]);

    failWith = undefined;
    await store.create(ns, beta('a', 1), { version: 'v1beta1' });
    const before = await store.get(ns, 'a');
    // Fails on the conversion of the request to the storage version, then on the way back only.
    for (const to of ['v1', 'v1beta1']) {
      failWith = (_o, toVersion) => (toVersion === to ? `down to ${to}` : undefined);
      if (to === 'v1beta1') expect((await failure(store.get(ns, 'a', { version: 'v1beta1' }))).status.code).toBe(500);
      const body = { ...beta('a', 5), metadata: { ...beta('a', 5).metadata, resourceVersion: before.metadata.resourceVersion } };
      const onUpdate = await failure(store.update(ns, 'a', body, { version: 'v1beta1' }));
      expect(onUpdate.status).toMatchObject({ code: 500, message: `down to ${to}` });
      await failure(store.patch(ns, 'a', { spec: { size: 6 } }, 'merge', { version: 'v1beta1' }));
      failWith = undefined;
      expect(await store.get(ns, 'a')).toEqual(before);
    }
    failWith = () => 'down';
    expect((await failure(store.list(ns, { version: 'v1beta1' }))).status.code).toBe(500);
  });

  it("validates a body in the request's version before a conversion that fails on it", async () => {
    failWith = () => 'the webhook cannot convert this';
    const err = await failure(store.create(ns, beta('a', -1), { version: 'v1beta1' }));
    expect(err.status.code).toBe(422);
    expect(err.message).toContain('spec.size');
  });
});
