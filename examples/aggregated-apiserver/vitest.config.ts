import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@kapi/source'] },
  ssr: { resolve: { conditions: ['@kapi/source'] } },
  test: { name: 'aggregated-apiserver', include: ['src/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 },
});
