import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Files share their worker's modules (the contract's compiled validators, the services' apps):
    // importing them again for every file was a fifth of the suites' CPU time. No suite mocks modules.
    isolate: false,
    // One Prism process serves the whole file; it takes a few seconds to start on 2 cores.
    hookTimeout: 60_000,
    testTimeout: 15_000,
  },
});
