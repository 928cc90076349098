import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/longest-first.js';

// Each file starts its own stack; two at a time is what two cores hold.
// Every suite runs against npm start's default topology (all in one process); the authorization
// matrix and the hostile-input suite run against separate-process forwarding too (over TCP), and
// the parity test compares the two directly.
export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: 'all-in-one', env: { STACK_TOPOLOGY: 'all-in-one' } } },
      {
        extends: true,
        test: { name: 'processes', env: { STACK_TOPOLOGY: 'processes' }, include: ['test/auth-matrix.test.ts', 'test/hostile-input.test.ts'] },
      },
    ],
  },
});
