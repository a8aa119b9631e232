import { MemoryStorage } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineResource } from '../define-resource.ts';
import { Store } from './store.ts';

// A kind whose deletion needs work first (kube's CRD Delete) adds a finalizer of its own when a delete starts.
const CLEANUP = 'cleanup.example.kapi.dev';
const Thing = defineResource({
  group: 'example.kapi.dev',
  kind: 'Thing',
  plural: 'things',
  namespaced: false,
  versions: [{ name: 'v1' }],
  schema: z.object({ spec: z.looseObject({}).optional() }),
  strategy: {
    prepareForDelete(obj) {
      if (obj.metadata.deletionTimestamp) return;
      obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), CLEANUP];
      obj.metadata.annotations = { ...obj.metadata.annotations, 'example.kapi.dev/deleting': 'true' };
    },
  },
});

describe('Strategy.prepareForDelete', () => {
  it('keeps the object terminating with what the hook added, and a later delete while terminating leaves it to the finalizer', async () => {
    const store = new Store(Thing, { storage: new MemoryStorage() });
    await store.create({}, { apiVersion: 'example.kapi.dev/v1', kind: 'Thing', metadata: { name: 'a' } });
    const first = await store.delete({}, 'a');
    expect(first.deleted).toBe(false);
    expect(first.object.metadata.finalizers).toEqual([CLEANUP]);
    expect(first.object.metadata.deletionTimestamp).toBeDefined();
    expect(first.object.metadata.annotations).toEqual({ 'example.kapi.dev/deleting': 'true' });
    // Already terminating: the hook adds nothing and the finalizer still keeps it.
    const again = await store.delete({}, 'a');
    expect(again.deleted).toBe(false);
    expect(again.object.metadata.finalizers).toEqual([CLEANUP]);
    // The finalizer's owner removes it: the object goes.
    const current = await store.get({}, 'a');
    await store.update({}, 'a', { ...current, metadata: { ...current.metadata, finalizers: [] } });
    await expect(store.get({}, 'a')).rejects.toMatchObject({ status: { code: 404 } });
  });

  it('a dry-run delete shows the object as the hook leaves it and stores nothing', async () => {
    const store = new Store(Thing, { storage: new MemoryStorage() });
    const { object: created } = await store.create({}, { apiVersion: 'example.kapi.dev/v1', kind: 'Thing', metadata: { name: 'a' } });
    const dry = await store.delete({}, 'a', { dryRun: true });
    expect(dry).toMatchObject({ deleted: false, object: { metadata: { finalizers: [CLEANUP] } } });
    const stored = await store.get({}, 'a');
    expect(stored.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(stored.metadata.finalizers).toBeUndefined();
  });
});
