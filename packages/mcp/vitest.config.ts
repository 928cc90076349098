import { configDefaults, defineConfig } from 'vitest/config';

// The MCP server run as a program: the `e2e` project (`npm run test:e2e`),
// which `npm test` runs after every workspace's fast tests.
const endToEnd = ['test/bin-filters.test.ts'];

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...endToEnd], typecheck: { enabled: true, checker: 'tsgo' } } },
      { extends: true, test: { name: 'e2e', include: endToEnd } },
    ],
  },
});
