import { configDefaults, defineConfig } from 'vitest/config';

// The files that start the loop on a scratch copy of the repository: the `e2e` project (`npm run test:e2e`),
// which `npm test` runs after every workspace's fast tests.
const endToEnd = ['test/spec-change.test.ts'];

export default defineConfig({
  test: {
    // A worker imports each module once, not once per file (a fifth to two fifths of the CPU time of
    // the suites that start services); so no test mocks a module or counts on fresh module state.
    isolate: false,
    // The type-check test compiles against the contract's types (a few seconds on a busy machine).
    testTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'fast', exclude: [...configDefaults.exclude, ...endToEnd], typecheck: { enabled: true } } },
      { extends: true, test: { name: 'e2e', include: endToEnd } },
    ],
  },
});
