import { configDefaults, defineConfig } from 'vitest/config';

// The files that start npm pack and installs, or git and the release CLI: the `e2e` project (`npm run test:e2e`),
// which `npm test` runs after every workspace's fast tests.
const endToEnd = ['test/consumption.test.ts', 'test/release.test.ts'];

// One file packs and installs (npm is slow on two cores); the others only read files.
export default defineConfig({
  test: {
    // A worker imports each module once, not once per file (a fifth to two fifths of the CPU time of
    // the suites that start services); so no test mocks a module or counts on fresh module state.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 240_000,
    maxWorkers: 1,
    projects: [
      { extends: true, test: { name: 'fast', exclude: [...configDefaults.exclude, ...endToEnd], typecheck: { enabled: true } } },
      { extends: true, test: { name: 'e2e', include: endToEnd } },
    ],
  },
});
