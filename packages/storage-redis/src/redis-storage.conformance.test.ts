import { randomBytes } from 'node:crypto';
import { runStorageConformance } from '@kapi/storage/conformance';
import { type RedisServer, startRedis } from '@kapi/test-servers';
import { afterAll, beforeAll } from 'vitest';
import { RedisStorage } from './redis-storage.ts';

// One real redis-server for the whole file; every case gets its own RedisStorage under a fresh key prefix.
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

runStorageConformance(
  'RedisStorage',
  async () => {
    const storage = new RedisStorage({
      url: redis.url,
      prefix: `conf-${randomBytes(6).toString('hex')}`,
      progressNotifyIntervalMs: 100,
      ttlSweepIntervalMs: 100,
      watchPollBlockMs: 500,
      compactionIntervalMs: 0,
    });
    return {
      storage,
      resourcePrefix: '/registry/widgets',
      compact: (rev) => storage.compact(rev),
      elapse: sleep,
      close: () => storage.close(),
    };
  },
  { progressIntervalMs: 200 },
);
