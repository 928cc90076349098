import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One real Chromium for the whole file; its start and the Redoc page take seconds on 2 cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
