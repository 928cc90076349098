import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The type-check test compiles against the contract's types (a few seconds on a busy machine).
    testTimeout: 60_000,
  },
});
