import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@kapi/source'] },
  ssr: { resolve: { conditions: ['@kapi/source'] } },
  // Tests start real servers: allow for process start-up and real waits (TTL, progress, restarts).
  test: { name: 'storage-redis', include: ['src/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 },
});
