import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    // The review tests run git, the lint and the bundler for real; on a shared 2-core machine a review of the real spec can take seconds.
    testTimeout: 60_000,
    typecheck: { enabled: true, checker: 'tsgo' },
  },
});
