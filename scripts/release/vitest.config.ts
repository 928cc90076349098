import { configDefaults, defineConfig } from 'vitest/config';

// The files that start npm pack and installs, or git and the release CLI: the `e2e` project (`npm run test:e2e`),
// which `npm test` runs after every workspace's fast tests.
const endToEnd = ['test/consumption.test.ts', 'test/release.test.ts'];

// One file packs and installs (npm is slow on two cores); the others only read files.
export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    testTimeout: 60_000,
    hookTimeout: 240_000,
    maxWorkers: 1,
    projects: [
      { extends: true, test: { name: 'fast', exclude: [...configDefaults.exclude, ...endToEnd], typecheck: { enabled: true, checker: 'tsgo' } } },
      { extends: true, test: { name: 'e2e', include: endToEnd } },
    ],
  },
});
