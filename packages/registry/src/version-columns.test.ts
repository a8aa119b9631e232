import { type KubeObject, StatusError, type WatchEvent } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { convertObject } from './convert.ts';
import { customResourceDefinitionOf } from './crd-manifest.ts';
import { defineResource, ResourceDefinitionError } from './define-resource.ts';
import { Store } from './store/store.ts';
import { toTable } from './table/table-convertor.ts';

/**
 * Printer columns and selectable fields of a version of its own, as kube serves a CRD version's additionalPrinterColumns
 * and selectableFields: a Table or a field selector in a version reads that version's, on the object in that version.
 */

type Spec = Record<string, unknown>;
const rename = (o: KubeObject, from: string, to: string): KubeObject => {
  const { [from]: value, ...rest } = (o.spec ?? {}) as Spec;
  return { ...o, spec: value === undefined ? rest : { ...rest, [to]: value } };
};

// v1 (storage) names the count spec.replicas, v1beta1 spec.size; v1beta1 has columns and a selectable field of its own.
const Gizmo = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
  versions: [
    { name: 'v1', storage: true, schema: z.object({ spec: z.object({ replicas: z.int().min(0), color: z.string().optional() }) }) },
    {
      name: 'v1beta1',
      schema: z.object({ spec: z.object({ size: z.int().min(0), color: z.string().optional() }) }),
      toHub: (o) => rename(o, 'size', 'replicas'),
      fromHub: (o) => rename(o, 'replicas', 'size'),
      printerColumns: [
        { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
        { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
      ],
      selectableFields: [{ jsonPath: '.spec.size' }],
    },
    { name: 'v1alpha1', schema: z.object({ spec: z.object({ replicas: z.int().min(0) }) }), printerColumns: [] },
  ],
  printerColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
  selectableFields: [{ jsonPath: '.spec.color' }],
});

const V1 = 'example.kapi.dev/v1';
const V1BETA1 = 'example.kapi.dev/v1beta1';
const ns = { namespace: 'default' };
const clock = { now: () => Date.parse('2026-01-01T00:10:00Z') };

function gizmo(name: string, replicas: number, color: string): KubeObject {
  return {
    apiVersion: V1,
    kind: 'Gizmo',
    metadata: { name, namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { replicas, color },
  };
}

async function badRequest(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status.code).toBe(400);
    return (err as StatusError).status.message ?? '';
  }
  throw new Error('expected a 400');
}

describe('per-version printer columns', () => {
  it('a Table in a version with columns of its own shows them, read on the object in that version', () => {
    const stored = gizmo('a', 3, 'red');
    const beta = convertObject(Gizmo, stored, 'v1beta1');
    const table = toTable(Gizmo, beta, { version: 'v1beta1', clock });
    expect(table.columnDefinitions?.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Size', 0],
      ['Color', 1],
    ]);
    expect(table.rows[0]?.cells).toEqual(['a', 3, 'red']);
  });

  it('a version without columns of its own shows the definition’s, read on the stored object', () => {
    const stored = gizmo('a', 3, 'red');
    for (const version of ['v1', undefined]) {
      const table = toTable(Gizmo, stored, { ...(version ? { version } : {}), clock });
      expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Replicas']);
      expect(table.rows[0]?.cells).toEqual(['a', 3]);
    }
  });

  it('a version whose own columns are empty shows Age, as kube does for a CRD version without columns', () => {
    const table = toTable(Gizmo, gizmo('a', 3, 'red'), { version: 'v1alpha1', clock });
    expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Age']);
    expect(table.rows[0]?.cells).toEqual(['a', '10m']);
  });

  it('defineResource checks a version’s columns and selectable fields against that version’s schema', () => {
    const define = (v1beta1: object) =>
      defineResource({
        group: 'example.kapi.dev',
        kind: 'Gizmo',
        plural: 'gizmos',
        namespaced: true,
        versions: [
          { name: 'v1', storage: true, schema: z.object({ spec: z.object({ replicas: z.int() }) }) },
          {
            name: 'v1beta1',
            schema: z.object({ spec: z.object({ size: z.int() }) }),
            toHub: (o: KubeObject) => o,
            fromHub: (o: KubeObject) => o,
            ...v1beta1,
          },
        ],
      });
    expect(() => define({ selectableFields: [{ jsonPath: '.spec.size' }] })).not.toThrow();
    let err: unknown;
    try {
      define({
        selectableFields: [{ jsonPath: '.spec.replicas' }],
        printerColumns: [{ name: 'Size', type: 'integr', jsonPath: 'spec.size' }],
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ResourceDefinitionError);
    const problems = (err as ResourceDefinitionError).problems;
    expect([...problems].sort()).toEqual([
      'printer column "Size" of version "v1beta1": jsonPath "spec.size" must start with "."',
      'printer column "Size" of version "v1beta1": type "integr" is not one of integer, number, string, boolean, date',
      'selectable field ".spec.replicas" of version "v1beta1" must point to a string, integer or boolean field',
    ]);
  });

  it('a CRD manifest lists each version’s own columns and selectable fields', () => {
    const versions = customResourceDefinitionOf(Gizmo, { conversion: 'None' }).spec.versions;
    const byName = Object.fromEntries(versions.map((v) => [v.name, v]));
    expect(byName.v1?.additionalPrinterColumns?.map((c) => c.jsonPath)).toEqual(['.spec.replicas']);
    expect(byName.v1?.selectableFields).toEqual([{ jsonPath: '.spec.color' }]);
    expect(byName.v1beta1?.additionalPrinterColumns?.map((c) => c.jsonPath)).toEqual(['.spec.size', '.spec.color']);
    expect(byName.v1beta1?.selectableFields).toEqual([{ jsonPath: '.spec.size' }]);
    expect(byName.v1alpha1?.additionalPrinterColumns).toBeUndefined();
    expect(byName.v1alpha1?.selectableFields).toEqual([{ jsonPath: '.spec.color' }]);
  });
});

describe('per-version selectable fields', () => {
  let storage: MemoryStorage;
  let store: Store;

  beforeEach(async () => {
    storage = new MemoryStorage({ compaction: false });
    store = new Store(Gizmo, { storage });
    await store.create(ns, gizmo('a', 1, 'red'));
    await store.create(ns, gizmo('b', 3, 'blue'));
  });
  afterEach(() => storage.close());

  const names = (items: readonly KubeObject[]) => items.map((o) => o.metadata.name);

  it('a field selector in a version names that version’s fields, read on the object in that version', async () => {
    const beta = await store.list(ns, { version: 'v1beta1', fieldSelector: 'spec.size=3' });
    expect(names(beta.items)).toEqual(['b']);
    expect(beta.items[0]).toMatchObject({ apiVersion: V1BETA1, spec: { size: 3 } });
    expect(names((await store.list(ns, { version: 'v1', fieldSelector: 'spec.color=red' })).items)).toEqual(['a']);
    // A version without fields of its own has the definition's.
    expect(names((await store.list(ns, { version: 'v1alpha1', fieldSelector: 'spec.color!=red' })).items)).toEqual(['b']);
  });

  it('a field of another version is not a known field selector (400 listing the version’s fields)', async () => {
    expect(await badRequest(store.list(ns, { version: 'v1beta1', fieldSelector: 'spec.color=red' }))).toBe(
      '"spec.color" is not a known field selector: only "metadata.name", "metadata.namespace", "spec.size"',
    );
    expect(await badRequest(store.list(ns, { version: 'v1', fieldSelector: 'spec.size=3' }))).toBe(
      '"spec.size" is not a known field selector: only "metadata.name", "metadata.namespace", "spec.color"',
    );
  });

  it('selectorVersion selects by a version’s fields while the objects come back stored (a Table’s list)', async () => {
    const list = await store.list(ns, { selectorVersion: 'v1beta1', fieldSelector: 'spec.size=1' });
    expect(list.items.map((o) => [o.metadata.name, o.apiVersion, o.spec])).toEqual([['a', V1, { replicas: 1, color: 'red' }]]);
  });

  it('a watch in a version filters by that version’s fields', async () => {
    const abort = new AbortController();
    const w = store.watch(ns, { version: 'v1beta1', fieldSelector: 'spec.size=5', signal: abort.signal });
    const it = w[Symbol.asyncIterator]();
    const next = it.next();
    await store.create(ns, gizmo('c', 4, 'red'));
    await store.create(ns, gizmo('d', 5, 'red'));
    const ev = (await next).value as WatchEvent;
    w.stop();
    expect(ev.type).toBe('ADDED');
    expect(ev.object).toMatchObject({ apiVersion: V1BETA1, metadata: { name: 'd' }, spec: { size: 5 } });
  });
});
