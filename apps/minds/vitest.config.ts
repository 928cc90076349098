import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A worker imports each module once, not once per file (a fifth to two fifths of the CPU time of
    // the suites that start services); so no test mocks a module or counts on fresh module state.
    isolate: false,
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // PGlite (PostgreSQL in WebAssembly) opens in about half a second from a copied template.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Most of a test's time is spent waiting on the simulated host: two files at a time fit 2 cores.
    maxWorkers: 2,
  },
});
