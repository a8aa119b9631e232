import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@kapi/source'] },
  ssr: { resolve: { conditions: ['@kapi/source'] } },
  test: { name: 'aggregator', include: ['src/**/*.test.ts'] },
});
