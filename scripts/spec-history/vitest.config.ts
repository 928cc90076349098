import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The CLI tests run git, redocly lint and the bundler for real.
    testTimeout: 180_000, // a review spawns tsx, git and redocly; on a shared 2-core machine two of them can take a minute
  },
});
