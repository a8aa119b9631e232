import type { KubeObject } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { ConfigMap } from '../builtins/configmap.ts';
import { dedupOwnerReferences } from './dedup-owner-references.ts';
import { Store } from './store.ts';

const ns = { namespace: 'default' };
const ref = (name: string, uid: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name,
  uid,
  ...extra,
});
const cm = (ownerReferences: unknown[]): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ownerReferences }, data: { a: '1' } }) as KubeObject;
const WARNING =
  '.metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests. Duplicate UIDs: ';
const AFTER =
  '.metadata.ownerReferences contains duplicate entries after mutating admission happens; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests. Duplicate UIDs: ';

describe('dedupOwnerReferences (kube’s dedupOwnerReferencesAndAddWarning)', () => {
  it('drops a reference equal in every field to an earlier one, keeps those that only share the UID, names the dropped UIDs', () => {
    const obj = cm([ref('p', 'u1'), ref('p', 'u1'), ref('q', 'u1'), ref('p', 'u1', { controller: true }), ref('r', 'u2'), ref('r', 'u2')]);
    const { object, warning } = dedupOwnerReferences(obj, false);
    expect(object.metadata.ownerReferences).toEqual([ref('p', 'u1'), ref('q', 'u1'), ref('p', 'u1', { controller: true }), ref('r', 'u2')]);
    expect(warning).toBe(`${WARNING}u1, u2`);
    expect(obj.metadata.ownerReferences).toHaveLength(6); // the caller's object is left as it was
    expect(dedupOwnerReferences(cm([ref('p', 'u1'), ref('p', 'u1')]), true).warning).toBe(`${AFTER}u1`);
    const clean = cm([ref('p', 'u1'), ref('q', 'u2')]);
    expect(dedupOwnerReferences(clean, false)).toEqual({ object: clean });
  });
});

describe('the Store dedups owner references as kube’s handlers do', () => {
  const store = () => new Store(ConfigMap, { storage: new MemoryStorage() });

  it('create and update: before managedFields are recorded (one entry per key), with the warning', async () => {
    const s = store();
    const created = await s.create(ns, cm([ref('p', 'u1'), ref('p', 'u1')]), { fieldManager: 'm' });
    expect(created.object.metadata.ownerReferences).toEqual([ref('p', 'u1')]);
    expect(created.warnings).toEqual([`${WARNING}u1`]);
    expect(created.object.metadata.managedFields?.[0]?.fieldsV1).toMatchObject({
      'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"u1"}': {} } },
    });
    const updated = await s.update(ns, 'c', {
      ...created.object,
      metadata: { ...created.object.metadata, ownerReferences: [ref('p', 'u1'), ref('p', 'u1'), ref('s', 'u3')] },
    });
    expect(updated.object.metadata.ownerReferences).toEqual([ref('p', 'u1'), ref('s', 'u3')]);
    expect(updated.warnings).toEqual([`${WARNING}u1`]);
  });

  it('a patch, and what mutating admission adds: after admission, with its warning', async () => {
    const s = store();
    await s.create(ns, cm([]));
    const patched = await s.patch(ns, 'c', { metadata: { ownerReferences: [ref('p', 'u1'), ref('p', 'u1')] } }, 'merge');
    expect(patched.object.metadata.ownerReferences).toEqual([ref('p', 'u1')]);
    expect(patched.warnings).toEqual([`${AFTER}u1`]);
    const admission = {
      mutate: async (obj: KubeObject) => {
        obj.metadata.ownerReferences = [ref('a', 'u9'), ref('a', 'u9')];
      },
    };
    const created = await s.create(ns, { ...cm([]), metadata: { name: 'd' } } as KubeObject, { admission });
    expect(created.object.metadata.ownerReferences).toEqual([ref('a', 'u9')]);
    expect(created.warnings).toEqual([`${AFTER}u9`]);
    const updated = await s.update(ns, 'd', { ...created.object, data: { b: '2' } }, { admission });
    expect(updated.object.metadata.ownerReferences).toEqual([ref('a', 'u9')]);
    expect(updated.warnings).toEqual([`${AFTER}u9`]);
  });
});
