import { defineConfig } from 'vitest/config';

// In-process tests only: what drives this package against the real stack, Prism or a browser is
// end-to-end and lives in scripts/conformance.
export default defineConfig({
  test: {
    // A worker imports each module once, not once per file (a fifth to two fifths of the CPU time of
    // the suites that start services); so no test mocks a module or counts on fresh module state.
    isolate: false,
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true },
  },
});
