import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    // One Prism process serves the whole file; it takes a few seconds to start on 2 cores.
    hookTimeout: 60_000,
    testTimeout: 15_000,
  },
});
