import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@kapi/source'] },
  ssr: { resolve: { conditions: ['@kapi/source'] } },
  test: { name: 'control-plane', include: ['src/**/*.test.ts'] },
});
