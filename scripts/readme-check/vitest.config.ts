import { defineConfig } from 'vitest/config';

// One stack and one mock for the whole file; a documented command may build (turbo replays) or wait for a Mind.
export default defineConfig({
  test: {
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // Files share their worker's modules (the contract's compiled validators, the services' apps):
    // importing them again for every file was a fifth of the suites' CPU time. No suite mocks modules.
    isolate: false,
  },
});
