/**
 * `npm test`: the repository's tests in two tiers, then one summary.
 *
 * 1. Lint and in-process tests: `turbo run build`, then side by side `turbo run test` (every
 *    workspace's in-process tests, type tests `*.test-d.ts` included, two workspaces at a time,
 *    the longest two first), `tsgo -b` (every workspace's type check in one TypeScript 7 process: the
 *    root tsconfig.json references the configs each workspace's `lint` script checks) and
 *    `npm run lint:spec`.
 *    Filtered (`npm test -- --filter=@gateway-minds/db`), `turbo run lint test` for those.
 * 2. `turbo run test:e2e`, after all of them: the files that start a stack, Prism, Chromium,
 *    `npm pack` or a program of their own, two workspaces at a time, the longest two first.
 *
 * It closes with each tier's wall time, the ten slowest test files, each workspace's count and one
 * line CI reads: "Tests: N passed, N failed, N skipped", summed from every vitest JSON report
 * (`.test-results/vitest.json` for the first tier, `vitest-e2e.json` for the second); turbo
 * interleaves the per-package summaries. Arguments go to the turbo runs.
 */
import { spawn } from 'node:child_process';
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

const workspaces = ['packages', 'apps', 'scripts'].flatMap((group) => {
  const groupDir = join(root, group);
  if (!existsSync(groupDir)) return [];
  return readdirSync(groupDir)
    .map((name) => join(groupDir, name))
    .filter((dir) => existsSync(join(dir, 'package.json')));
});

// A report left by an earlier run would count tests this run did not run.
for (const dir of workspaces) for (const name of reportNames) rmSync(join(dir, '.test-results', name), { force: true });

const turbo = join(root, 'node_modules/.bin/turbo');
const args = process.argv.slice(2);
/** `--filter` / `-F`: a run of some workspaces, which type-checks only those. */
const filtered = args.some((arg) => arg === '-F' || arg.startsWith('--filter'));
// Every task whose dependencies built runs, and both tiers run, failing or not: one run of
// minutes shows every failure, not the first.
const turboRun = (tasks: string[]) => ['run', ...tasks, '--concurrency=2', '--continue=dependencies-successful', ...args];
/**
 * Per task, the two workspaces whose runs take the longest (README "Tests"): the Minds tests run
 * the most of the first tier and the gateway's wait on stores and deadlines; conformance and dev
 * run the most of the second.
 */
const longest = { test: ['@gateway-minds/minds', '@gateway-minds/gateway'], 'test:e2e': ['@gateway-minds/conformance', '@gateway-minds/dev'] };

/**
 * `turbo run <task>`, the longest two workspaces first, side by side, then the rest. Turbo starts
 * ready tasks in the order they became ready, and a workspace that depends on the most becomes
 * ready last: the longest would start last and end alone, one core idle. The two runs follow one
 * another: side by side, the rest would run beside the longest two, four workspaces on two cores.
 * (One turbo run per workspace, two lanes from a queue, packed the cores tighter but cost more:
 * each turbo run takes 4 to 5 CPU-s before any task; bench/RESULTS.md, History.)
 */
async function longestFirst(task: keyof typeof longest): Promise<boolean> {
  const first = await run(turbo, turboRun([task, ...longest[task].map((name) => `--filter=${name}`)]));
  const rest = await run(turbo, turboRun([task, ...longest[task].map((name) => `--filter=!${name}`)]));
  return first && rest;
}
const longestFirstWhat = (task: keyof typeof longest) => `turbo run ${task} for ${longest[task].map((name) => name.replace('@gateway-minds/', '')).join(' and ')}, then for the rest`;

/** Runs a command with the terminal's output, resolving whether it exited 0. */
function run(command: string, commandArgs: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { cwd: root, stdio: 'inherit' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

const tiers = [
  {
    name: 'lint and tests',
    async run(): Promise<boolean> {
      // A filtered run checks the types of the workspaces it names, each in its own tsgo.
      if (filtered) return run(turbo, turboRun(['lint', 'test']));
      // The type check needs every package built (its declarations), as the tests do.
      const built = await run(turbo, turboRun(['build']));
      // tsgo -b is one process: beside the two test lanes, not before them.
      const results = await Promise.all([
        longestFirst('test'),
        run(join(root, 'node_modules/.bin/tsgo'), ['-b', '--pretty', 'false']),
        run('npm', ['run', '-s', 'lint:spec']),
      ]);
      return built && results.every(Boolean);
    },
    what: filtered ? 'turbo run lint test' : `turbo run build, then side by side ${longestFirstWhat('test')}, tsgo -b and npm run lint:spec`,
  },
  {
    name: 'end-to-end tests',
    async run(): Promise<boolean> {
      return filtered ? run(turbo, turboRun(['test:e2e'])) : longestFirst('test:e2e');
    },
    what: filtered ? 'turbo run test:e2e' : longestFirstWhat('test:e2e'),
  },
];

const timings: string[] = [];
let tiersFailed = false;
for (const tier of tiers) {
  const started = performance.now();
  const ok = await tier.run();
  timings.push(`  ${tier.name} (${tier.what}): ${seconds(performance.now() - started)}${ok ? '' : ' (failed)'}`);
  if (!ok) tiersFailed = true;
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
    // Type tests are compiled together, by one tsgo: their files carry no time of their own.
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
