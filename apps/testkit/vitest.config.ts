import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
