import { defineProject } from 'vitest/config';

export default defineProject({
  // Workspace packages resolve to their src/ so tests run without a build.
  resolve: { conditions: ['@kapi/source'] },
  ssr: { resolve: { conditions: ['@kapi/source'] } },
  test: { name: 'storage', include: ['src/**/*.test.ts'] },
});
