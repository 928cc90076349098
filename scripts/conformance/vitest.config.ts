import { defineConfig } from 'vitest/config';

// Each file starts its own stack; two at a time is what two cores hold.
export default defineConfig({
  test: { testTimeout: 60_000, hookTimeout: 120_000, maxWorkers: 2 },
});
