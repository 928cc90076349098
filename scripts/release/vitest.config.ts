import { defineConfig } from 'vitest/config';

// One file packs and installs (npm is slow on two cores); the others only read files.
export default defineConfig({
  test: { testTimeout: 60_000, hookTimeout: 240_000, maxWorkers: 1 },
});
