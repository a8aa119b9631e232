import type { Storage } from '@kapi/storage';
import { EtcdStorage } from '@kapi/storage-etcd';
import { RedisStorage } from '@kapi/storage-redis';
import { type EtcdServer, type RedisServer, startEtcd, startRedis } from '@kapi/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, send, startChain, until } from './test-support/chain.ts';

/** The APIExtensions chain on etcd and Redis: CRDs served within a second, and again after a restart, defaults on read. */

const GROUP = 'stable.example.com';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const crd = (defaults: Record<string, unknown> = {}): Json => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `crontabs.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'crontabs', kind: 'CronTab' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  image: { type: 'string', ...(defaults.image ? { default: defaults.image } : {}) },
                  replicas: { type: 'integer', default: 1 },
                },
              },
            },
          },
        },
      },
    ],
  },
});

const backends: [string, () => Promise<{ storage: () => Storage; stop(): Promise<void> }>][] = [
  [
    'etcd',
    async () => {
      const etcd: EtcdServer = await startEtcd();
      return { storage: () => new EtcdStorage({ endpoints: [etcd.endpoint] }), stop: () => etcd.stop() };
    },
  ],
  [
    'redis',
    async () => {
      const redis: RedisServer = await startRedis();
      return { storage: () => new RedisStorage({ url: redis.url }), stop: () => redis.stop() };
    },
  ],
];

describe.each(backends)('the APIExtensions chain on %s', (_name, startBackend) => {
  let backend: Awaited<ReturnType<typeof startBackend>>;
  beforeAll(async () => {
    backend = await startBackend();
  }, 60_000);
  afterAll(async () => {
    await backend?.stop();
  });

  it('serves a new CRD within a second, serves it again after a restart, and applies a default added later on read', async () => {
    const first = await startChain(backend.storage(), { closeStorage: false });
    try {
      await send('POST', `${first.url}/api/v1/namespaces`, { metadata: { name: 'default' } });
      const crs = (url: string) => `${url}/apis/${GROUP}/v1/namespaces/default/crontabs`;
      expect((await send('POST', `${first.url}${CRDS}`, crd())).status).toBe(201);
      const started = Date.now();
      const created = await until('the first CronTab created', async () => {
        const r = await send('POST', crs(first.url), {
          apiVersion: `${GROUP}/v1`,
          kind: 'CronTab',
          metadata: { name: 'a' },
          spec: { image: 'x' },
        });
        return r.status === 404 ? undefined : r;
      });
      expect(created.status).toBe(201);
      expect(Date.now() - started).toBeLessThan(1000);
      await send('POST', crs(first.url), { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name: 'b' }, spec: {} });
      const stored = (await send('GET', `${first.url}${CRDS}/crontabs.${GROUP}`)).body;
      const next = crd({ image: 'nginx' });
      next.metadata.resourceVersion = stored.metadata.resourceVersion;
      expect((await send('PUT', `${first.url}${CRDS}/crontabs.${GROUP}`, next)).status).toBe(200);
      const defaulted = await until('the new default on read', async () => {
        const r = await send('GET', `${crs(first.url)}/b`);
        return r.body?.spec?.image ? r.body : undefined;
      });
      expect(defaulted.spec).toEqual({ image: 'nginx', replicas: 1 });
      await first.stop();

      const second = await startChain(backend.storage(), { closeStorage: false });
      try {
        // Served as soon as start() returned (crd-informer-synced), with the stored objects and the default.
        const list = await send('GET', crs(second.url));
        expect(list.status).toBe(200);
        expect(list.body.items.map((o: Json) => [o.metadata.name, o.spec])).toEqual([
          ['a', { image: 'x', replicas: 1 }],
          ['b', { image: 'nginx', replicas: 1 }],
        ]);
        // Deleting the CRD deletes the instances and then the API, in storage too.
        await send('DELETE', `${second.url}${CRDS}/crontabs.${GROUP}`);
        await until('the API gone', async () => ((await send('GET', crs(second.url))).status === 404 ? true : undefined));
        expect((await send('GET', `${second.url}${CRDS}/crontabs.${GROUP}`)).status).toBe(404);
        await second.stop();
        const third = await startChain(backend.storage(), { closeStorage: false });
        expect((await send('GET', `${third.url}${CRDS}`)).body.items).toEqual([]);
        expect((await send('GET', crs(third.url))).status).toBe(404);
        await third.stop();
      } catch (err) {
        await second.stop();
        throw err;
      }
    } catch (err) {
      await first.stop().catch(() => {});
      throw err;
    }
  }, 30_000);
});
