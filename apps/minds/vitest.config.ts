import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Files share their worker's modules (the contract's compiled validators, the services' apps):
    // importing them again for every file was a fifth of the suites' CPU time. No suite mocks modules.
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
