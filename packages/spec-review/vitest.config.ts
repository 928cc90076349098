import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A worker imports each module once, not once per file (a fifth to two fifths of the CPU time of
    // the suites that start services); so no test mocks a module or counts on fresh module state.
    isolate: false,
  },
});
