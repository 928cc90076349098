import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    include: ['test/**/*.test.ts'],
    // PGlite (PostgreSQL in WebAssembly) opens in about half a second from the copied empty cluster.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Most of a test's time is spent waiting on the simulated host: two files at a time fit 2 cores.
    maxWorkers: 2,
    typecheck: { enabled: true, checker: 'tsgo' },
  },
});
