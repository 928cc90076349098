import { defineConfig } from 'vitest/config';

// In-process tests only: what drives this package against the real stack, Prism or a browser is
// end-to-end and lives in scripts/conformance.
export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true, checker: 'tsgo' },
  },
});
