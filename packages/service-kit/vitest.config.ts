import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A worker imports each module once, not once per file (a fifth to two fifths of the CPU time of
    // the suites that start services); so no test mocks a module or counts on fresh module state.
    isolate: false,
    // A test's first request compiles express-openapi-validator's schemas for the whole contract: a
    // second on an idle 2-core machine, several while other workspaces' tests share it.
    testTimeout: 30_000,
  },
});
