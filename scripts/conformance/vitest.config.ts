import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/longest-first.js';

// Each file starts its own stack; two at a time is what two cores hold. One project: every file
// names the topology it runs against (npm start's default, all in one process, unless it says
// otherwise; the authorization matrix and the hostile-input suite run against separate-process
// forwarding too, in their `.processes.test.ts` files, and the parity test compares the two
// directly), so one pair of workers loads the modules and compiles the validators once for all.
export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
  },
});
