import { defineConfig } from 'vitest/config';

// One file, one deployment of four processes, started once for every test: the tests run in order.
export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
