import { defineConfig } from 'vitest/config';

// One stack and one mock for the whole file; a documented command may build (turbo replays) or wait for a Mind.
export default defineConfig({
  test: {
    testTimeout: 180_000,
    hookTimeout: 120_000,
    isolate: false, // modules load once per worker, not per file: README "Tests"
  },
});
