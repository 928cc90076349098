/**
 * Prints one closing line for the whole repository's test run, summed from
 * every workspace's vitest JSON report: "Tests: N passed, N failed, N skipped".
 * CI reads that line; turbo interleaves the per-package summaries.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

const root = join(import.meta.dirname, '..');
let passed = 0;
let failed = 0;
let skipped = 0;
const perPackage: string[] = [];
for (const group of ['packages', 'apps', 'scripts']) {
  const groupDir = join(root, group);
  if (!existsSync(groupDir)) continue;
  for (const name of readdirSync(groupDir)) {
    const report = join(groupDir, name, '.test-results/vitest.json');
    if (!existsSync(report)) continue;
    const r = JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    skipped += r.numPendingTests + r.numTodoTests;
    perPackage.push(`  ${group}/${name}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
  }
}
console.log(`\n${perPackage.join('\n')}`);
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
