import { FieldSet, type ManagedFieldsEntry, makePath } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { capUpdateManagers } from './cap-managers.ts';
import { decodeManagedFields, encodeManagedFields, isResetManagedFields, type Managed, StoredManagedFieldsCache } from './managed.ts';
import { managerIdentifier } from './manager-id.ts';

const entry = (
  manager: string,
  operation: 'Apply' | 'Update',
  time: string,
  fieldsV1: Record<string, unknown>,
  extra: Partial<ManagedFieldsEntry> = {},
) => ({ manager, operation, apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1, ...extra }) as ManagedFieldsEntry;

describe('decodeManagedFields / encodeManagedFields', () => {
  it('decodes equal FieldsV1 once: entries of other objects with the same fields share one immutable set', () => {
    const a = decodeManagedFields([entry('x', 'Update', '2026-01-01T00:00:01Z', { 'f:data': { 'f:k': {} } })]);
    const b = decodeManagedFields([entry('y', 'Update', '2026-01-01T00:00:02Z', { 'f:data': { 'f:k': {} } })]);
    const other = decodeManagedFields([entry('x', 'Update', '2026-01-01T00:00:01Z', { 'f:data': { 'f:j': {} } })]);
    const setOf = (m: Managed) => [...m.fields.values()][0]?.set;
    expect(setOf(a)).toBe(setOf(b));
    expect(setOf(other)).not.toBe(setOf(a));
    expect(setOf(other)?.has(makePath('data', 'j'))).toBe(true);
    // A member that is undefined is absent whether or not its JSON was decoded before.
    const holey = (k: string) =>
      decodeManagedFields([entry('x', 'Update', '2026-01-01T00:00:01Z', { 'f:data': { [`f:${k}`]: {}, 'f:gone': undefined } })]);
    expect(setOf(holey('k'))).toBe(setOf(a));
    expect(setOf(holey('fresh'))?.has(makePath('data', 'fresh'))).toBe(true);
    // A FieldsV1 that does not decode fails every time (nothing is remembered for it).
    const bad = () => decodeManagedFields([entry('x', 'Update', '2026-01-01T00:00:01Z', { 'f:data': 'nope' })]);
    expect(bad).toThrow(/must be an object/);
    expect(bad).toThrow(/must be an object/);
  });

  it('round-trips, sorted by operation, time, manager, apiVersion, subresource', () => {
    const entries = [
      entry('b', 'Update', '2026-01-01T00:00:02Z', { 'f:data': { 'f:b': {} } }),
      entry('a', 'Update', '2026-01-01T00:00:02Z', { 'f:data': { 'f:a': {} } }),
      entry('z', 'Apply', '2026-01-01T00:00:09Z', { 'f:data': { '.': {}, 'f:z': {} } }),
      entry('c', 'Update', '2026-01-01T00:00:01Z', { 'f:status': { 'f:x': {} } }, { subresource: 'status' }),
    ];
    const managed = decodeManagedFields(entries);
    expect([...managed.fields.keys()]).toContain(managerIdentifier({ manager: 'z', operation: 'Apply' }));
    expect(
      managed.fields.get(managerIdentifier({ manager: 'a', operation: 'Update', apiVersion: 'v1' }))?.set.has(makePath('data', 'a')),
    ).toBe(true);
    const out = encodeManagedFields(managed);
    expect(out?.map((e) => e.manager)).toEqual(['z', 'c', 'a', 'b']);
    expect(out?.[0]).toEqual(entries[2]);
    expect(out?.[1]).toEqual(entries[3]);
  });

  it('nothing managed encodes as no field at all', () => {
    expect(encodeManagedFields(decodeManagedFields([]))).toBeUndefined();
    expect(encodeManagedFields(decodeManagedFields(undefined))).toBeUndefined();
  });

  it('refuses entries kube refuses, with its words', () => {
    const bad = (e: Record<string, unknown>) => () => decodeManagedFields([e as ManagedFieldsEntry]);
    expect(bad({ manager: 'm', operation: 'Delete', apiVersion: 'v1', fieldsType: 'FieldsV1' })).toThrow(
      'operation must be `Apply` or `Update`',
    );
    expect(bad({ manager: 'm', operation: 'Update', fieldsType: 'FieldsV1' })).toThrow('apiVersion must not be empty');
    expect(bad({ manager: 'm', operation: 'Update', apiVersion: 'v1' })).toThrow('missing fieldsType in managed fields entry 0');
    expect(bad({ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV2' })).toThrow(
      'invalid fieldsType "FieldsV2" in managed fields entry 0',
    );
    expect(bad({ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'k:{bad': {} } })).toThrow(
      'error decoding versioned set',
    );
  });
});

describe('decodeManagedFields with the stored entries', () => {
  it("records a client's copy of a stored entry as the stored entry, and any other entry as sent", () => {
    const f = { 'f:data': { 'f:k': {} } };
    const stored = Object.freeze([entry('x', 'Update', '2026-01-01T00:00:01Z', f), entry('y', 'Update', '2026-01-01T00:00:02Z', f)]);
    const copy = JSON.parse(JSON.stringify(stored)) as ManagedFieldsEntry[];
    const retimed = { ...(copy[1] as ManagedFieldsEntry), time: '2026-01-01T00:00:03Z' };
    const m = decodeManagedFields([copy[0] as ManagedFieldsEntry, retimed], undefined, stored);
    const entries = [...(m.decoded?.values() ?? [])].map((d) => d.entry);
    expect(entries[0]).toBe(stored[0]);
    expect(entries[1]).toBe(retimed);
    // Other fields, or the same fields at another place, are the client's own.
    const moved = decodeManagedFields([copy[1] as ManagedFieldsEntry], undefined, stored);
    expect([...(moved.decoded?.values() ?? [])][0]?.entry).toBe(copy[1]);
    const refielded = { ...(copy[0] as ManagedFieldsEntry), fieldsV1: { 'f:data': { 'f:j': {} } } };
    expect([...(decodeManagedFields([refielded], undefined, stored).decoded?.values() ?? [])][0]?.entry).toBe(refielded);
    // A member that is no part of a managedFields entry does not count (kube's decoding drops it).
    const extra = { ...(copy[0] as ManagedFieldsEntry), note: 'x' } as ManagedFieldsEntry;
    expect([...(decodeManagedFields([extra], undefined, stored).decoded?.values() ?? [])][0]?.entry).toBe(stored[0]);
  });
});

describe('isResetManagedFields', () => {
  it('[] and [{}] reset (and [null], which Go decodes as [{}]); absent or real entries do not', () => {
    expect(isResetManagedFields([])).toBe(true);
    expect(isResetManagedFields([{}])).toBe(true);
    expect(isResetManagedFields([null])).toBe(true);
    expect(isResetManagedFields([null, null])).toBe(false);
    expect(isResetManagedFields(undefined)).toBe(false);
    expect(isResetManagedFields([{}, {}])).toBe(false);
    expect(isResetManagedFields([{ manager: 'a' }])).toBe(false);
  });
});

describe('capUpdateManagers', () => {
  it('merges the oldest Update entries per version into ancient-changes until ten are left', () => {
    const managed: Managed = { fields: new Map(), times: new Map() };
    for (let i = 0; i < 12; i++) {
      const id = managerIdentifier({ manager: `m${String(i).padStart(2, '0')}`, operation: 'Update', apiVersion: 'v1' });
      managed.fields.set(id, { set: FieldSet.fromPaths([makePath('data', `k${i}`)]), apiVersion: 'v1', applied: false });
      managed.times.set(id, `2026-01-01T00:00:${String(10 + i).padStart(2, '0')}Z`);
    }
    const applier = managerIdentifier({ manager: 'ap', operation: 'Apply' });
    managed.fields.set(applier, { set: FieldSet.fromPaths([makePath('data', 'ap')]), apiVersion: 'v1', applied: true });
    capUpdateManagers(managed, 10);
    const ancient = managerIdentifier({ manager: 'ancient-changes', operation: 'Update', apiVersion: 'v1' });
    const updaters = [...managed.fields.entries()].filter(([, vs]) => !vs.applied);
    expect(updaters).toHaveLength(10);
    // The three oldest (m00, m01, m02) are in the bucket, which takes the newest of their times.
    expect(
      managed.fields
        .get(ancient)
        ?.set.paths()
        .map((p) => p.map((e) => ('fieldName' in e ? e.fieldName : '')).join('.')),
    ).toEqual(['data.k0', 'data.k1', 'data.k2']);
    expect(managed.times.get(ancient)).toBe('2026-01-01T00:00:12Z');
    expect(managed.fields.has(applier)).toBe(true);
  });
});

describe('StoredManagedFieldsCache', () => {
  const stored = (rv: string, entries: ManagedFieldsEntry[]) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: rv, managedFields: JSON.parse(JSON.stringify(entries)) },
  });
  const e1 = [entry('a', 'Update', '2026-01-01T00:00:02Z', { 'f:data': { 'f:a': {} } })];
  const e2 = [entry('b', 'Update', '2026-01-01T00:00:03Z', { 'f:data': { 'f:b': {} } })];

  it('decodes a stored version as decodeManagedFields does, and copies of it from what it remembered', () => {
    const cache = new StoredManagedFieldsCache();
    const first = cache.decode(stored('5', e1));
    expect([...first.fields]).toEqual([...decodeManagedFields(e1).fields]);
    const again = cache.decode(stored('5', e1));
    // The same decoded sets (remembered), times copied: the pipeline may change them.
    expect([...again.fields.values()][0]).toBe([...first.fields.values()][0]);
    expect(again.times).not.toBe(first.times);
    // Another resourceVersion, or other entries under the same key (headers differ), is decoded afresh.
    expect([...cache.decode(stored('5', e2)).fields.keys()]).toEqual([...decodeManagedFields(e2).fields.keys()]);
    expect([...cache.decode(stored('6', e1)).fields.keys()]).toEqual([...decodeManagedFields(e1).fields.keys()]);
    expect(() => cache.decode(stored('7', [{ manager: 'x' } as ManagedFieldsEntry]))).toThrow('operation must be');
  });
});
