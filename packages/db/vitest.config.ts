import { configDefaults, defineConfig } from 'vitest/config';

// The files that kill -9 a writer in a child process: the `e2e` project (`npm run test:e2e`),
// which `npm test` runs after every workspace's fast tests.
const endToEnd = ['test/durability.test.ts', 'test/lock.test.ts'];

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    // PGlite runs PostgreSQL in WebAssembly: an open takes about half a second on a 2-core
    // machine, and the kill -9 tests wait for real child processes.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...endToEnd], typecheck: { enabled: true, checker: 'tsgo' } } },
      { extends: true, test: { name: 'e2e', include: endToEnd } },
    ],
  },
});
