import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RedisServer, startRedis } from '@kapi/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../scripts/readme-snippet.ts';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
  process.env.REDIS_URL = redis.url;
});
afterAll(async () => {
  delete process.env.REDIS_URL;
  await redis?.stop();
});

describe('README example', () => {
  it('imports from the package name, runs against a real redis-server, and prints what its "// →" comments say', async () => {
    const { code, printed, expected } = await runReadmeExample(join(dirname(fileURLToPath(import.meta.url)), '..'));
    expect(code).toContain("from '@kapi/storage-redis'");
    expect(code).toContain('process.env.REDIS_URL');
    expect(expected.length).toBeGreaterThan(3);
    expect(printed).toEqual(expected);
  });
});
