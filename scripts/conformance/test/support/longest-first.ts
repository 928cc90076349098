/**
 * The order the suite's files start in, two at a time. On a machine with no results cache (a fresh
 * clone, CI), vitest starts the larger files first; the files below take the longest (kill -9
 * restarts waiting for a stale lock, 10,000 requests in each topology, two stacks compared), so
 * started last they leave one worker idle while the other ends them. Started first, the short
 * files fill in beside them. Only the order changes: every file still runs.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const longest = ['test/durability.test.ts', 'test/hostile-input.test.ts', 'test/hostile-input.processes.test.ts', 'test/topology-parity.test.ts'];

const rank = (spec: TestSpecification) => {
  const index = longest.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
  return index < 0 ? longest.length : index;
};

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array.prototype.sort is stable: the rest keep vitest's own order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
