import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@kapi/source'] },
  ssr: { resolve: { conditions: ['@kapi/source'] } },
  // Some tests decode megabytes or 10,000-level documents on purpose: a loaded 2-core CI machine needs more than vitest's 5 s.
  test: { name: 'registry', include: ['src/**/*.test.ts'], testTimeout: 30_000 },
});
