import { defineConfig } from 'vitest/config';

// One file, one deployment of four processes, started once for every test: the tests run in order.
export default defineConfig({
  test: {
    // Files share their worker's modules (the contract's compiled validators, the services' apps):
    // importing them again for every file was a fifth of the suites' CPU time. No suite mocks modules.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
