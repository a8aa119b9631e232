import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@kapi/source'] },
  ssr: { resolve: { conditions: ['@kapi/source'] } },
  // The guide's snippets poll with expect.poll: 5 s rather than vitest's 1 s, so a loaded CI machine does not fail a
  // controller that converges late (a passing poll returns as soon as it passes).
  test: { name: 'testing', include: ['src/**/*.test.ts'], expect: { poll: { timeout: 5000 } } },
});
