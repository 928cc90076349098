import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The CLI tests run git, redocly lint and the bundler for real.
    testTimeout: 60_000,
  },
});
