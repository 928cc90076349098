import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // PGlite runs PostgreSQL in WebAssembly: an open takes about half a second (4 s with initdb)
    // on a 2-core machine, and the kill -9 tests wait for real child processes.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
