import { FakeClock, type KubeObject, StatusError, type WatchEvent } from '@kapi/apimachinery';
import { MemoryStorage, type Storage } from '@kapi/storage';
import { Cacher } from '@kapi/watchcache';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { seededRandom as prng } from '../../../../scripts/seeded-random.ts';
import { defineResource } from '../define-resource.ts';
import { Store } from './store.ts';

/**
 * Model-based test: random create / update / patch / status / delete / finalizer-removal steps through the Store,
 * each checked against a plain model of what Kubernetes promises (existence, finalizers, terminating, generation,
 * labels, spec and status), with resourceVersions strictly increasing on every write and every write seen by a watch.
 */

const Widget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  versions: [{ name: 'v1' }],
  schema: z.object({
    spec: z.object({ replicas: z.int().min(0) }),
    status: z.object({ replicas: z.int().optional() }).optional(),
  }),
  subresources: { status: true },
});
const PREFIX = '/registry/example.kapi.dev/widgets';
const NAMES = ['w0', 'w1', 'w2', 'w3'];
const FINALIZERS = ['example.com/a', 'example.com/b'];
const ctx = { namespace: 'default' };

interface Modelled {
  finalizers: string[];
  terminating: boolean;
  generation: number;
  labels: Record<string, string>;
  replicas: number;
  status: number | undefined;
  rv: string;
}

async function code(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err.code;
    throw err;
  }
  return 0;
}

const backends: [string, () => Promise<{ storage: Storage; close(): Promise<void> }>][] = [
  [
    'MemoryStorage',
    async () => {
      const storage = new MemoryStorage({ compaction: false });
      return { storage, close: () => storage.close() };
    },
  ],
  [
    'Cacher',
    async () => {
      const backend = new MemoryStorage({ compaction: false });
      const storage = new Cacher({ storage: backend, resourcePrefix: PREFIX });
      await storage.ready();
      return {
        storage,
        close: async () => {
          await storage.close();
          await backend.close();
        },
      };
    },
  ],
];

describe.each(backends)('Store model over %s', (_label, makeBackend) => {
  it.each([1, 7, 42])('seed %i: 300 random steps agree with the model', async (seed) => {
    const { storage, close } = await makeBackend();
    const clock = new FakeClock();
    const store = new Store(Widget, { storage, clock });
    const rand = prng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
    const model = new Map<string, Modelled>();
    const expected: string[] = [];
    let lastRV = 0;
    const watch = store.watch(ctx, { resourceVersion: await storage.currentResourceVersion() });
    const events = watch[Symbol.asyncIterator]();

    /** A write happened: its RV is the newest, and the watch must report it. */
    const wrote = (type: WatchEvent['type'], name: string, rv: string | undefined): string => {
      expect(Number(rv)).toBeGreaterThan(lastRV);
      lastRV = Number(rv);
      expected.push(`${type} ${name} ${rv}`);
      return rv as string;
    };
    const randomLabels = (): Record<string, string> => (rand() < 0.5 ? { app: pick(['x', 'y']) } : {});

    try {
      for (let step = 0; step < 300; step++) {
        clock.advance(1000);
        const name = pick(NAMES);
        const m = model.get(name);
        const op = pick(['create', 'create', 'update', 'patch', 'status', 'stale', 'delete', 'delete', 'unfinalize', 'unfinalize']);
        switch (op) {
          case 'create': {
            const finalizers = FINALIZERS.filter(() => rand() < 0.4);
            const labels = randomLabels();
            const replicas = Math.floor(rand() * 3);
            const p = store.create(ctx, { metadata: { name, labels, finalizers }, spec: { replicas } });
            if (m) {
              expect(await code(p)).toBe(409);
              break;
            }
            const { object } = await p;
            const rv = wrote('ADDED', name, object.metadata.resourceVersion);
            model.set(name, { finalizers, terminating: false, generation: 1, labels, replicas, status: undefined, rv });
            break;
          }
          case 'update':
          case 'patch': {
            const replicas = Math.floor(rand() * 3);
            const labels = randomLabels();
            if (!m) {
              const p =
                op === 'update'
                  ? store.update(ctx, name, { metadata: { name, resourceVersion: '1' }, spec: { replicas } })
                  : store.patch(ctx, name, { spec: { replicas } }, 'merge');
              expect(await code(p)).toBe(404);
              break;
            }
            const res =
              op === 'update'
                ? await store.update(ctx, name, {
                    ...(await store.get(ctx, name)),
                    metadata: { ...(await store.get(ctx, name)).metadata, labels },
                    spec: { replicas },
                  })
                : await store.patch(
                    ctx,
                    name,
                    [
                      { op: 'replace', path: '/spec/replicas', value: replicas },
                      { op: 'add', path: '/metadata/labels', value: labels },
                    ],
                    'json',
                  );
            const changed = replicas !== m.replicas || JSON.stringify(labels) !== JSON.stringify(m.labels);
            if (replicas !== m.replicas) m.generation++;
            m.replicas = replicas;
            m.labels = labels;
            if (changed) m.rv = wrote('MODIFIED', name, res.object.metadata.resourceVersion);
            else expect(res.object.metadata.resourceVersion).toBe(m.rv);
            break;
          }
          case 'status': {
            const replicas = Math.floor(rand() * 3);
            const p = store.update(
              ctx,
              name,
              { metadata: { name, resourceVersion: m?.rv ?? '1' }, spec: { replicas: 99 }, status: { replicas } },
              {
                subresource: 'status',
              },
            );
            if (!m) {
              expect(await code(p)).toBe(404);
              break;
            }
            const res = await p;
            if (m.status !== replicas) m.rv = wrote('MODIFIED', name, res.object.metadata.resourceVersion);
            m.status = replicas;
            break;
          }
          case 'stale': {
            if (!m) break;
            // Any resourceVersion but the current one loses.
            const stale = String(Number(m.rv) - 1);
            expect(await code(store.update(ctx, name, { metadata: { name, resourceVersion: stale }, spec: { replicas: 1 } }))).toBe(409);
            break;
          }
          case 'delete': {
            if (!m) {
              expect(await code(store.delete(ctx, name))).toBe(404);
              break;
            }
            const res = await store.delete(ctx, name);
            if (m.finalizers.length === 0) {
              expect(res.deleted).toBe(true);
              wrote('DELETED', name, res.object.metadata.resourceVersion);
              model.delete(name);
            } else {
              expect(res.deleted).toBe(false);
              if (!m.terminating) {
                m.terminating = true;
                m.generation++;
                m.rv = wrote('MODIFIED', name, res.object.metadata.resourceVersion);
              } else expect(res.object.metadata.resourceVersion).toBe(m.rv);
            }
            break;
          }
          case 'unfinalize': {
            if (!m || m.finalizers.length === 0) break;
            const finalizers = m.finalizers.slice(1);
            const res = await store.patch(ctx, name, { metadata: { finalizers } }, 'merge');
            if (m.terminating && finalizers.length === 0) {
              expect(res.deleted).toBe(true);
              wrote('DELETED', name, res.object.metadata.resourceVersion);
              model.delete(name);
            } else {
              m.finalizers = finalizers;
              m.rv = wrote('MODIFIED', name, res.object.metadata.resourceVersion);
            }
            break;
          }
        }

        // The store agrees with the model on every name.
        const listed = new Map((await store.list(ctx)).items.map((o) => [o.metadata.name, o] as [string, KubeObject]));
        expect([...listed.keys()].sort()).toEqual([...model.keys()].sort());
        for (const [n, want] of model) {
          const got = listed.get(n) as KubeObject;
          expect({
            finalizers: got.metadata.finalizers ?? [],
            terminating: !!got.metadata.deletionTimestamp,
            generation: got.metadata.generation,
            labels: got.metadata.labels ?? {},
            replicas: (got.spec as { replicas: number }).replicas,
            status: (got.status as { replicas?: number } | undefined)?.replicas,
            rv: got.metadata.resourceVersion,
          }).toEqual(want);
        }
      }

      // No write is lost: the watch saw every write, in order, each once.
      const seen: string[] = [];
      while (seen.length < expected.length) {
        const r = await events.next();
        if (r.done) break;
        const o = r.value.object as KubeObject;
        seen.push(`${r.value.type} ${o.metadata.name} ${o.metadata.resourceVersion}`);
      }
      expect(seen).toEqual(expected);
      // The walk covered the interesting paths, not just creates.
      expect(expected.filter((e) => e.startsWith('DELETED')).length).toBeGreaterThan(5);
      expect(expected.length).toBeGreaterThan(80);
    } finally {
      watch.stop();
      await close();
    }
  });
});
