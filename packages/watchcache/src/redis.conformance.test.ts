import { randomBytes } from 'node:crypto';
import { FakeClock } from '@kapi/apimachinery';
import { RedisStorage } from '@kapi/storage-redis';
import { type RedisServer, startRedis } from '@kapi/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cacher } from './cacher.ts';
import {
  checkConsistentReadAfterWrite,
  runCacherConformance,
  runCacherDeepNestingCases,
  runCacherWatchCases,
} from './test-support/cacher-suites.ts';

// One real redis-server for the file; every case gets a fresh RedisStorage under a fresh key prefix, and a Cacher.
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const prefix = () => `cache-${randomBytes(6).toString('hex')}`;
const resourcePrefix = () => `/registry/widgets-${randomBytes(4).toString('hex')}`;

runCacherConformance(
  'Cacher over RedisStorage',
  () => ({
    storage: new RedisStorage({
      url: redis.url,
      prefix: prefix(),
      progressNotifyIntervalMs: 100,
      ttlSweepIntervalMs: 100,
      watchPollBlockMs: 500,
      compactionIntervalMs: 0,
    }),
    resourcePrefix: resourcePrefix(),
  }),
  { progressIntervalMs: 200 },
);

runCacherWatchCases('Cacher over RedisStorage', () => ({
  // A fresh prefix is a fresh store, at revision 0.
  storage: new RedisStorage({ url: redis.url, prefix: prefix(), compactionIntervalMs: 0 }),
  resourcePrefix: resourcePrefix(),
}));

runCacherDeepNestingCases('Cacher over RedisStorage', () => ({
  storage: new RedisStorage({ url: redis.url, prefix: prefix(), compactionIntervalMs: 0 }),
  resourcePrefix: resourcePrefix(),
}));

describe('Cacher in front of RedisStorage', () => {
  it('a consistent read of a quiet kind is served from the cache with no timer: Redis confirms freshness on request', async () => {
    const storage = new RedisStorage({ url: redis.url, prefix: prefix(), compactionIntervalMs: 0 });
    const widgets = resourcePrefix();
    // The Cacher's clock never moves: its progress interval and freshness timeout cannot be what ends a wait.
    const cacher = new Cacher({ storage, resourcePrefix: widgets, clock: new FakeClock() });
    try {
      await cacher.ready();
      const a = await cacher.create(`${widgets}/ns/a`, { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'a', namespace: 'ns' } });
      const x = await storage.create('/registry/gadgets/ns/x', {
        apiVersion: 'v1',
        kind: 'Gadget',
        metadata: { name: 'x', namespace: 'ns' },
      });
      expect(await cacher.get(`${widgets}/ns/a`)).toEqual(a);
      const l = await cacher.list(widgets);
      expect(l.items).toEqual([a]);
      expect(l.metadata.resourceVersion).toBe(x.metadata.resourceVersion);
      expect(cacher.stats()).toMatchObject({ consistentReadFallbacks: 0, consistentReadsDelegated: 0 });
    } finally {
      await cacher.close();
      await storage.close();
    }
  });

  it('a consistent read right after a write returns that write, through the cache or behind its back', async () => {
    await checkConsistentReadAfterWrite(new RedisStorage({ url: redis.url, prefix: prefix(), compactionIntervalMs: 0 }), resourcePrefix());
  });
});
