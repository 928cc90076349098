import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    // A test's first request compiles express-openapi-validator's schemas for the whole contract: a
    // second on an idle 2-core machine, several while other workspaces' tests share it.
    testTimeout: 30_000,
    typecheck: { enabled: true, checker: 'tsgo' },
  },
});
