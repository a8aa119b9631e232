import type { KubeObject, ManagedFieldsEntry } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { committedEncodingOf } from './committed-encoding.ts';
import { MemoryStorage } from './memory/memory-storage.ts';

const K = '/registry/configmaps/ns/a';
const entry = (manager: string): ManagedFieldsEntry => ({
  manager,
  operation: 'Update',
  apiVersion: 'v1',
  time: '2026-01-01T00:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:data': { 'f:k': {} } },
});

describe('stored managedFields entries', () => {
  it('a revision shares the entries it carries from a stored one, and copies the ones its caller built', async () => {
    const s = new MemoryStorage({ compaction: false });
    const first = await s.create(K, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', managedFields: [entry('x')] },
      data: { k: '1' },
    });
    const kept = first.metadata.managedFields?.[0];
    const built = entry('y');
    const next: KubeObject = { ...first, metadata: { ...first.metadata, managedFields: [built, kept as object] }, data: { k: '2' } };
    const second = await s.guaranteedUpdate(K, async () => next);
    const entries = second.metadata.managedFields ?? [];
    expect(entries[1]).toBe(kept);
    expect(entries[0]).not.toBe(built);
    expect(entries).toEqual([entry('y'), entry('x')]);
    expect(Object.isFrozen(entries[0]) && Object.isFrozen(entries[0]?.fieldsV1)).toBe(true);
    // The caller's entry was copied: changing it afterwards changes nothing stored.
    built.manager = 'z';
    expect((await s.get(K))?.metadata.managedFields?.[0]?.manager).toBe('y');
    // A write that carries only stored entries and changes nothing else is still a no-op.
    const same = await s.guaranteedUpdate(K, async (cur) => ({ ...(cur as KubeObject), metadata: { ...(cur as KubeObject).metadata } }));
    expect(same.metadata.resourceVersion).toBe(second.metadata.resourceVersion);
  });

  it('a rebuilt entry shares a stored fieldsV1 it carries, and the revision keeps its exact encoding', async () => {
    const s = new MemoryStorage({ compaction: false });
    const first = await s.create(K, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', managedFields: [entry('x'), entry('y')] },
    });
    const [x, y] = first.metadata.managedFields ?? [];
    // The field manager's "only the time moved": a new entry around the stored set.
    const retimed = { ...(y as ManagedFieldsEntry), time: '2026-01-01T00:00:01Z' };
    const second = await s.guaranteedUpdate(K, async (cur) => ({
      ...(cur as KubeObject),
      metadata: { ...(cur as KubeObject).metadata, managedFields: [x as object, retimed] },
    }));
    const [sx, sy] = second.metadata.managedFields ?? [];
    expect(sx).toBe(x);
    expect(sy).not.toBe(y);
    expect(sy?.time).toBe('2026-01-01T00:00:01Z');
    expect(sy?.fieldsV1).toBe(y?.fieldsV1);
    // Shared parts are equal to what was encoded: the text handed on is the stored revision's JSON.
    expect(committedEncodingOf(second)).toBe(JSON.stringify(second));
    // A fieldsV1 the caller built is copied (the caller may change it later), never taken as it is.
    const built = { 'f:data': { 'f:other': {} } };
    const third = await s.guaranteedUpdate(K, async (cur) => ({
      ...(cur as KubeObject),
      metadata: { ...(cur as KubeObject).metadata, managedFields: [{ ...entry('z'), fieldsV1: built }] },
    }));
    expect(third.metadata.managedFields?.[0]?.fieldsV1).toEqual(built);
    expect(third.metadata.managedFields?.[0]?.fieldsV1).not.toBe(built);
    expect(Object.isFrozen(third.metadata.managedFields?.[0]?.fieldsV1)).toBe(true);
  });

  it('an entry that is not JSON-shaped the same way is still encoded by JSON rules (undefined members dropped)', async () => {
    const s = new MemoryStorage({ compaction: false });
    const first = await s.create(K, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', managedFields: [entry('x')] } });
    const kept = first.metadata.managedFields?.[0] as object;
    const odd = { ...entry('y'), subresource: undefined };
    const second = await s.guaranteedUpdate(K, async (cur) => ({
      ...(cur as KubeObject),
      metadata: { ...(cur as KubeObject).metadata, managedFields: [kept, odd] },
    }));
    expect(second.metadata.managedFields?.[0]).toBe(kept);
    expect(Object.hasOwn(second.metadata.managedFields?.[1] as object, 'subresource')).toBe(false);
  });
});
