import { randomBytes } from 'node:crypto';
import { RedisStorage } from '@kapi/storage-redis';
import { type RedisServer, startRedis } from '@kapi/test-servers';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkConsistentReadAfterWrite, runCacherConformance, runCacherWatchCases } from './test-support/cacher-suites.ts';

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

describe('Cacher in front of RedisStorage', () => {
  it('a consistent read right after a write returns that write, through the cache or behind its back', async () => {
    await checkConsistentReadAfterWrite(new RedisStorage({ url: redis.url, prefix: prefix(), compactionIntervalMs: 0 }), resourcePrefix());
  });
});
