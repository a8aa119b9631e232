import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@kapi/source'] },
  ssr: { resolve: { conditions: ['@kapi/source'] } },
  // Some suites run over real etcd and Redis: allow for process start-up and real waits.
  test: { name: 'watchcache', include: ['src/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 },
});
