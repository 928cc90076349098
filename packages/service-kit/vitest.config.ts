import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Files share their worker's modules (the contract's compiled validators, the services' apps):
    // importing them again for every file was a fifth of the suites' CPU time. No suite mocks modules.
    isolate: false,
    // A test's first request compiles express-openapi-validator's schemas for the whole contract: a
    // second on an idle 2-core machine, several while other workspaces' tests share it.
    testTimeout: 30_000,
  },
});
