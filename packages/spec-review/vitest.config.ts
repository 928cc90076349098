import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Files share their worker's modules (the contract's compiled validators, the services' apps):
    // importing them again for every file was a fifth of the suites' CPU time. No suite mocks modules.
    isolate: false,
  },
});
