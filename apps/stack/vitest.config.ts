import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // An empty data directory means two PGlite initdb runs: about 9 s on a slow 2-core host.
    testTimeout: 90_000,
    // The two cases share one data directory: the second reopens what the first created.
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
