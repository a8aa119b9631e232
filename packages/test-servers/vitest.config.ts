import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@kapi/source'] },
  ssr: { resolve: { conditions: ['@kapi/source'] } },
  test: { name: 'test-servers', include: ['src/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 30_000 },
});
