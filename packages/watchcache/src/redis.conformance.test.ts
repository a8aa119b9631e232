import { randomBytes } from 'node:crypto';
import { runStorageConformance } from '@kapi/storage/conformance';
import { RedisStorage } from '@kapi/storage-redis';
import { type RedisServer, startRedis } from '@kapi/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cacher } from './cacher.ts';

// One real redis-server for the file; every case gets a fresh RedisStorage under a fresh key prefix, and a Cacher.
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** Reads beyond the backend's revision give up after this instead of kube-apiserver's 3 s (cacher.test.ts checks 3 s). */
const FRESHNESS_MS = 500;

runStorageConformance(
  'Cacher over RedisStorage',
  async () => {
    const storage = new RedisStorage({
      url: redis.url,
      prefix: `cache-${randomBytes(6).toString('hex')}`,
      progressNotifyIntervalMs: 100,
      ttlSweepIntervalMs: 100,
      watchPollBlockMs: 500,
      compactionIntervalMs: 0,
    });
    const resourcePrefix = `/registry/widgets-${randomBytes(4).toString('hex')}`;
    const cacher = new Cacher({ storage, resourcePrefix, bookmarkIntervalMs: 100, freshnessTimeoutMs: FRESHNESS_MS });
    await cacher.ready();
    return {
      storage: cacher,
      resourcePrefix,
      compact: async (rev) => {
        // A real compactor compacts revisions minutes old: let the cache see `rev` first, so compaction does not race
        // the cache's own backend watch (cacher.test.ts covers compaction past the cache).
        await cacher.list(resourcePrefix, { resourceVersion: String(rev), resourceVersionMatch: 'NotOlderThan' }).catch(() => {});
        await storage.compact(rev);
      },
      elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      close: async () => {
        await cacher.close();
        await storage.close();
      },
    };
  },
  { cache: true, progressIntervalMs: 200 },
);

describe('Cacher in front of RedisStorage', () => {
  it('a consistent read right after a write returns that write, through the cache or behind its back', async () => {
    const storage = new RedisStorage({ url: redis.url, prefix: `cache-${randomBytes(6).toString('hex')}`, compactionIntervalMs: 0 });
    const resourcePrefix = `/registry/widgets-${randomBytes(4).toString('hex')}`;
    const cacher = new Cacher({ storage, resourcePrefix });
    try {
      await cacher.ready();
      const widget = (name: string) => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name, namespace: 'ns' } });
      for (let i = 0; i < 20; i++) {
        const via = i % 2 === 0 ? cacher : storage;
        const created = await via.create(`${resourcePrefix}/ns/w${i}`, widget(`w${i}`));
        const l = await cacher.list(resourcePrefix, { resourceVersion: '' });
        expect(l.items).toHaveLength(i + 1);
        expect(l.items.find((o) => o.metadata.name === `w${i}`)).toEqual(created);
        expect(l.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      }
      expect(cacher.stats().consistentReadFallbacks).toBe(0);
    } finally {
      await cacher.close();
      await storage.close();
    }
  });
});
