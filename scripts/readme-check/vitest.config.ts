import { defineConfig } from 'vitest/config';

// One stack and one mock for the whole file; a documented command may build (turbo replays) or wait for a Mind.
export default defineConfig({
  test: {
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // A worker imports each module once, not once per file (a fifth to two fifths of the CPU time of
    // the suites that start services); so no test mocks a module or counts on fresh module state.
    isolate: false,
  },
});
