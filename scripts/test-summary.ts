/**
 * `npm test`: the repository's tests in two tiers, then one summary.
 *
 * 1. `turbo run lint test`: every workspace's type check and its in-process tests (type tests,
 *    `*.test-d.ts`, included), two workspaces at a time.
 * 2. `turbo run test:e2e --only`, after all of them (which built everything): the files that start
 *    a stack, Prism, Chromium, `npm pack` or a program of their own, two workspaces at a time, the
 *    longest first. Turbo starts ready tasks in an order of its own, and the conformance suite, a
 *    third of the tier, used to start last and run alone at the end; so each workspace is its own
 *    turbo run (cached like any other), taken from a queue longest first by two lanes. "Longest"
 *    is the last run's time where its report is still there, else the number of test files.
 *
 * It closes with each tier's wall time, the ten slowest test files, each workspace's count and one
 * line CI reads: "Tests: N passed, N failed, N skipped", summed from every vitest JSON report
 * (`.test-results/vitest.json` for the first tier, `vitest-e2e.json` for the second); turbo
 * interleaves the per-package summaries. Arguments go to both tiers, each then one turbo run
 * (`npm test -- --filter=@gateway-minds/db`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  success: boolean;
  testResults: { name: string; startTime: number; endTime: number; status: string; message?: string }[];
}

const root = join(import.meta.dirname, '..');
const reportNames = ['vitest.json', 'vitest-e2e.json'];
const tiers = [
  { name: 'lint and tests', tasks: ['lint', 'test'], concurrency: 2, lanes: false },
  { name: 'end-to-end tests', tasks: ['test:e2e'], concurrency: 2, lanes: true },
];

const workspaces = ['packages', 'apps', 'scripts'].flatMap((group) => {
  const groupDir = join(root, group);
  if (!existsSync(groupDir)) return [];
  return readdirSync(groupDir)
    .map((name) => join(groupDir, name))
    .filter((dir) => existsSync(join(dir, 'package.json')));
});

/** The wall time of each workspace's last end-to-end run, from the report it left, before it is removed. */
const lastRunMs = new Map<string, number>();
for (const dir of workspaces) {
  const report = join(dir, '.test-results', 'vitest-e2e.json');
  if (!existsSync(report)) continue;
  const { testResults } = JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
  if (testResults.length) lastRunMs.set(dir, Math.max(...testResults.map((file) => file.endTime)) - Math.min(...testResults.map((file) => file.startTime)));
}
// A report left by an earlier run would count tests this run did not run.
for (const dir of workspaces) for (const name of reportNames) rmSync(join(dir, '.test-results', name), { force: true });

const turbo = join(root, 'node_modules/.bin/turbo');
const timings: string[] = [];
let tiersFailed = false;
const passedArgs = process.argv.slice(2);
for (const tier of tiers) {
  const started = performance.now();
  // Every task whose dependencies built runs, and both tiers run, failing or not: one run of
  // minutes shows every failure, not the first.
  const ok = tier.lanes && passedArgs.length === 0 ? await inLanes(tier.tasks, tier.concurrency) : turboRun(['run', ...tier.tasks, `--concurrency=${tier.concurrency}`, '--continue=dependencies-successful', ...passedArgs]);
  timings.push(`  ${tier.name} (turbo run ${tier.tasks.join(' ')}): ${seconds(performance.now() - started)}${ok ? '' : ' (failed)'}`);
  if (!ok) tiersFailed = true;
}

function turboRun(args: string[]): boolean {
  return spawnSync(turbo, args, { cwd: root, stdio: 'inherit' }).status === 0;
}

/** Each workspace that has the tier's task as a turbo run of its own, longest first, `lanes` at a time. */
async function inLanes(tasks: string[], lanes: number): Promise<boolean> {
  const queue = workspaces
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; scripts?: Record<string, string> } }))
    .filter(({ manifest }) => tasks.some((task) => manifest.scripts?.[task]))
    .map(({ dir, manifest }) => ({ name: manifest.name, expectedMs: lastRunMs.get(dir) ?? testFiles(dir) }))
    .sort((a, b) => b.expectedMs - a.expectedMs || a.name.localeCompare(b.name));
  let ok = true;
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      // --only: the first tier built every workspace; a build replayed beside a running test would rewrite its dist/.
      const args = ['run', ...tasks, `--filter=${next.name}`, '--only', '--continue=dependencies-successful'];
      const status = await new Promise<number | null>((resolve) => spawn(turbo, args, { cwd: root, stdio: 'inherit' }).once('exit', resolve));
      if (status !== 0) ok = false;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return ok;
}

/** How many test files a workspace has: the order of the first run on a fresh clone. */
function testFiles(dir: string): number {
  const testDir = join(dir, 'test');
  return existsSync(testDir) ? readdirSync(testDir, { recursive: true }).filter((file) => /\.test\.ts$/.test(String(file))).length : 0;
}

let passed = 0;
let failed = 0;
let skipped = 0;
const perPackage: string[] = [];
/** Runs that failed with no failed test (a hook, an unhandled error): the one line CI shows would hide them. */
const failedOutsideTests: string[] = [];
const files: { name: string; ms: number }[] = [];
for (const dir of workspaces) {
  for (const reportName of reportNames) {
    const report = join(dir, '.test-results', reportName);
    if (!existsSync(report)) continue;
    const r = JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    skipped += r.numPendingTests + r.numTodoTests;
    if (!r.success && r.numFailedTests === 0) {
      const reasons = r.testResults.filter((file) => file.status === 'failed').map((file) => `    ${relative(root, file.name)}: ${(file.message ?? '').split('\n')[0]}`);
      failedOutsideTests.push(`  ${relative(root, dir)} (${reportName}): failed outside any test (a hook, an unhandled error or a clean-up)${reasons.length ? `\n${reasons.join('\n')}` : ''}`);
      tiersFailed = true;
    }
    perPackage.push(`  ${relative(root, dir)}${reportName === 'vitest.json' ? '' : ' (end-to-end)'}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
    // Type tests are compiled together, by one tsc: their files carry no time of their own.
    for (const file of r.testResults) if (file.endTime > file.startTime) files.push({ name: relative(root, file.name), ms: file.endTime - file.startTime });
  }
}
const slowest = files.sort((a, b) => b.ms - a.ms).slice(0, 10);

console.log(`\nWall time by tier:\n${timings.join('\n')}`);
console.log(`\nSlowest test files:\n${slowest.map((f) => `  ${seconds(f.ms).padStart(7)}  ${f.name}`).join('\n')}`);
console.log(`\n${perPackage.join('\n')}`);
if (failedOutsideTests.length) console.log(`\n${failedOutsideTests.join('\n')}`);
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(tiersFailed || failed > 0 || passed === 0 ? 1 : 0);

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
