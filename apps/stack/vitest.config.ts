import { configDefaults, defineConfig } from 'vitest/config';

// The files that start the stack as `npm start` does: the `e2e` project (`npm run test:e2e`),
// which `npm test` runs after every workspace's fast tests.
const endToEnd = ['test/start.test.ts'];

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    // A start spawns the stack, the admin command and npm: seconds each on a loaded 2-core host.
    testTimeout: 90_000,
    // The two cases share one data directory: the second reopens what the first created.
    fileParallelism: false,
    sequence: { concurrent: false },
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...endToEnd], typecheck: { enabled: true, checker: 'tsgo' } } },
      { extends: true, test: { name: 'e2e', include: endToEnd } },
    ],
  },
});
