import { configDefaults, defineConfig } from 'vitest/config';

// The files that start Chromium or the built site's server: the `e2e` project (`npm run test:e2e`),
// which `npm test` runs after every workspace's fast tests.
const endToEnd = ['test/publish-anywhere.test.ts', 'test/site.test.ts'];

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    // One real Chromium for the whole file; its start and the Redoc page take seconds on 2 cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'fast', exclude: [...configDefaults.exclude, ...endToEnd], typecheck: { enabled: true, checker: 'tsgo' } } },
      { extends: true, test: { name: 'e2e', include: endToEnd } },
    ],
  },
});
