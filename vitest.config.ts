import { defineConfig } from 'vitest/config';

// One project per package; each package's own vitest.config.ts (defineProject) says how it runs.
export default defineConfig({
  test: {
    projects: ['packages/*', 'examples/*'],
  },
});
