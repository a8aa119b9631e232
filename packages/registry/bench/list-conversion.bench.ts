/**
 * LIST of 5,000 objects through the Store against the floor of the same work done directly, in one run: in the
 * storage version (floor: the storage's list), in another version through synchronous toHub/fromHub converters
 * (floor: the storage's list plus convertObject per item), and in another version through an asynchronous
 * ObjectConversion doing the same renames (floor: the storage's list plus one conversion call). Figures are lists/s
 * (best of alternating rounds); ratio = kapi / floor. Run: `node --conditions=@kapi/source bench/list-conversion.bench.ts`.
 */
import type { KubeObject } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { z } from 'zod';
import type { BenchRow } from '../../../scripts/bench-kit.ts';
import { bestOfAlternating, printTable, timeOps } from '../../../scripts/bench-kit.ts';
import { convertObject } from '../src/convert.ts';
import { defineResource } from '../src/define-resource.ts';
import type { ObjectConversion } from '../src/object-conversion.ts';
import type { ResourceDefinition } from '../src/resource-definition.ts';
import { Store } from '../src/store/store.ts';

const N = 5_000;
const ROUNDS = 7;
const LISTS = 20;

type Spec = Record<string, unknown>;
const rename = (o: KubeObject, from: string, to: string): KubeObject => {
  const { [from]: value, ...rest } = (o.spec ?? {}) as Spec;
  return { ...o, spec: { ...rest, [to]: value } };
};
const toHub = (o: KubeObject) => rename(o, 'size', 'replicas');
const fromHub = (o: KubeObject) => rename(o, 'replicas', 'size');
const asyncConversion: ObjectConversion = {
  async convert(objects, toVersion) {
    return objects.map((o) => ({ ...(toVersion === 'v1' ? toHub(o) : fromHub(o)), apiVersion: `example.kapi.dev/${toVersion}` }));
  },
};

function gizmo(conversion?: ObjectConversion): ResourceDefinition {
  return defineResource({
    group: 'example.kapi.dev',
    kind: 'Gizmo',
    plural: 'gizmos',
    namespaced: true,
    versions: [
      { name: 'v1', storage: true, schema: z.object({ spec: z.looseObject({ replicas: z.int() }) }) },
      { name: 'v1beta1', schema: z.object({ spec: z.looseObject({ size: z.int() }) }), ...(conversion ? {} : { toHub, fromHub }) },
    ],
    ...(conversion ? { conversion } : {}),
  }) as ResourceDefinition;
}

const storage = new MemoryStorage({ compaction: false });
const sync = gizmo();
const withAsync = gizmo(asyncConversion);
const store = new Store(sync, { storage });
const asyncStore = new Store(withAsync, { storage });
for (let i = 0; i < N; i++)
  await store.create(
    { namespace: 'default' },
    {
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Gizmo',
      metadata: { name: `g-${i}`, labels: { app: 'bench' } },
      spec: { replicas: i, image: 'x' },
    },
  );
const prefix = store.keys.prefix('default');
const ns = { namespace: 'default' };

const rows: BenchRow[] = [];
const row = async (name: string, kapi: () => Promise<unknown>, floor: () => Promise<unknown>) => {
  const lists = (fn: () => Promise<unknown>) => async () =>
    timeOps(LISTS, async () => {
      for (let i = 0; i < LISTS; i++) await fn();
    });
  rows.push([name, ...(await bestOfAlternating(ROUNDS, lists(kapi), lists(floor)))]);
};
await row(
  `LIST ${N}, storage version`,
  () => store.list(ns),
  () => storage.list(prefix, { resourceVersion: '' }),
);
await row(
  `LIST ${N}, other version, toHub/fromHub`,
  () => store.list(ns, { version: 'v1beta1' }),
  async () => (await storage.list(prefix, { resourceVersion: '' })).items.map((o) => convertObject(sync, o, 'v1beta1')),
);
// Absent from a tree without ObjectConversion (a before/after run of this file).
if (withAsync.conversion)
  await row(
    `LIST ${N}, other version, async ObjectConversion`,
    () => asyncStore.list(ns, { version: 'v1beta1' }),
    async () => asyncConversion.convert((await storage.list(prefix, { resourceVersion: '' })).items, 'v1beta1', true),
  );
await storage.close();

printTable({
  title: `Store LIST of ${N} objects vs the same work done directly (lists/s, best of ${ROUNDS} alternating rounds of ${LISTS})`,
  referenceName: 'floor',
  rows,
});
