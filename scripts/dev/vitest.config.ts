import { configDefaults, defineConfig } from 'vitest/config';

// The files that start the loop on a scratch copy of the repository: the `e2e` project (`npm run test:e2e`),
// which `npm test` runs after every workspace's fast tests.
const endToEnd = ['test/spec-change.test.ts'];

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    // The type-check test compiles against the contract's types (a few seconds on a busy machine).
    testTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'fast', exclude: [...configDefaults.exclude, ...endToEnd], typecheck: { enabled: true, checker: 'tsgo' } } },
      { extends: true, test: { name: 'e2e', include: endToEnd } },
    ],
  },
});
