/**
 * `npm run dev`: where the contract is written. It serves the stack (as `npm start` runs it), the
 * Prism mock (as `npm run mock`) and the docs site (as `npm run docs:serve`, reloading itself), on
 * the same settings, and watches every file under spec/. On each save:
 *
 *   1. the contract's build, kept warm (contract-builder-process.ts), lints spec/ and prints each
 *      problem with its file and line; a spec that does not pass stops here, and everything keeps
 *      serving the last good contract;
 *   2. it bundles, generates and compiles the contract, and prints what changed against the last
 *      good one, one line per change, as the spec review words it;
 *   3. at once: the mock reloads, the docs site is rebuilt and every open page reloads, and the
 *      stack restarts with the new validation. A stack that will not start on the new contract (a
 *      new operation without its handler) is started again on the last good one, and the terminal
 *      says what is missing;
 *   4. then turbo, in the background: the stack's workspaces are type-checked against the new
 *      contract and the client, CLI, MCP server and MSW handlers are rebuilt from it.
 *
 * Each step's time is printed. Saving a source file of the stack rebuilds it through turbo and
 * restarts it. Ctrl-C stops everything.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { watch } from 'chokidar';
import { contractChanges } from './changes.js';
import { ContractBuilderProcess, type SpecProblem } from './contract-builder-process.js';
import { buildDocsSite, startDocsServer } from './docs-server.js';
import { MockProcess } from './mock-process.js';
import { bundledContract, repoRoot, specDir } from './paths.js';
import { devSettings } from './settings.js';
import { StackProcess, type StartResult } from './stack-process.js';
import { stackView } from './stack-view.js';
import { paint, prefixLines, say, seconds } from './terminal.js';
import { errorLines, operationsWithoutHandler, runTurbo, type TurboRun } from './turbo.js';

/** The workspaces that make up the running stack, built before it starts and whenever their sources change. */
const stackWorkspaces = ['@gateway-minds/db', '@gateway-minds/service-kit', '@gateway-minds/docs', '@gateway-minds/gateway', '@gateway-minds/minds', '@gateway-minds/stack'];
/** The stack's sources: a save here rebuilds and restarts it. */
const stackSources = ['apps/gateway/src', 'apps/gateway/migrations', 'apps/minds/src', 'apps/minds/migrations', 'apps/stack/src', 'packages/service-kit/src', 'packages/db/src'];
/** Type-checked against every new contract (their `lint` task: tsc without emitting). */
const typeChecked = ['@gateway-minds/service-kit', '@gateway-minds/gateway', '@gateway-minds/minds', '@gateway-minds/stack', '@gateway-minds/docs'];
/**
 * Rebuilt from every new contract: what a consumer of the API installs. Run with `--only` (the
 * loop has built the contract), a task's hash leaves out its dependencies'; these tasks have spec/
 * among their own inputs (their turbo.json) so that a spec change is never a cache hit for them.
 */
const derived = ['@gateway-minds/client', '@gateway-minds/cli', '@gateway-minds/mcp', '@gateway-minds/msw'];

const settings = devSettings();
const clock = () => new Date().toLocaleTimeString('en-GB');

function printProblems(problems: SpecProblem[]): void {
  for (const p of problems) say(paint(p.severity === 'error' ? 'red' : 'yellow', p.line));
}

/** Whether a handler of the stack answers the spec's examples (a scaffolded stub calls specExample). */
function stackAnswersExamples(): boolean {
  return stackSources.some((dir) => {
    const root = join(repoRoot, dir);
    if (!existsSync(root)) return false;
    return readdirSync(root, { recursive: true, encoding: 'utf8' }).some((file) => file.endsWith('.ts') && readFileSync(join(root, file), 'utf8').includes('specExample('));
  });
}

/** Operation ids a failed start names as having no handler (service-kit's start-up check). */
function missingHandlers(output: string): string[] {
  return [...new Set([...output.matchAll(/no handler for operation (\w+)/g)].map((m) => m[1]!))];
}

say(`npm run dev: the stack, the mock and the docs site, from ${relative(process.cwd(), specDir) || 'spec'}/`);
say('building what the stack, the mock and the docs need (turbo) ...');
const firstBuild = runTurbo(['build'], ['@gateway-minds/stack...', '@gateway-minds/docs...'], { continue: true });
const built = await firstBuild.done;
if (!built.ok) {
  for (const line of errorLines(built.output)) say(paint('red', line));
  say(paint('yellow', 'the first build failed: what did build is served, and the loop goes on; fix it and save'));
} else {
  say(`built in ${seconds(built.ms)}`);
}

const builder = new ContractBuilderProcess();
const stack = new StackProcess(settings);
const mock = new MockProcess(settings.mockPort);
const docs = await startDocsServer(settings.docsPort);
let lastGood: object = JSON.parse(readFileSync(bundledContract, 'utf8')) as object;
let lastGoodAt = clock();

// The builder's first build loads its tools and compiles everything once (its outputs are unchanged,
// so nothing is written): the first save is then as quick as the rest.
const primed = builder.ready.then(() => builder.build());
const [stackStart] = await Promise.all([stack.start(), mock.start(), primed]);
if (stackStart.ok) {
  await builder.snapshot('stack');
} else {
  say(paint('red', 'the stack did not start:'));
  process.stdout.write(prefixLines('stack', stackStart.output));
}
say(
  [
    `  stack  http://127.0.0.1:${settings.port}   (admin 127.0.0.1:${settings.adminPort}${process.env.STACK_TOPOLOGY === 'processes' ? `, Minds 127.0.0.1:${settings.mindsPort}` : ', one process'}; data in ${settings.dataDir.startsWith(repoRoot) ? relative(repoRoot, settings.dataDir) : settings.dataDir})`,
    `  mock   http://127.0.0.1:${settings.mockPort}`,
    `  docs   ${docs.url}/   (pages reload themselves after every save)`,
  ].join('\n'),
);

// ---- the background lane: turbo type-checks the stack and rebuilds what consumers install ----
let background: TurboRun[] = [];
/** A new save makes the lane's work moot, and on two cores it would slow the save's own steps: stop it. */
function stopBackgroundLane(): void {
  for (const run of background) run.cancel();
  background = [];
}
function startBackgroundLane(): void {
  stopBackgroundLane();
  const typecheck = runTurbo(['lint'], typeChecked, { only: true, background: true });
  const rebuild = runTurbo(['build'], derived, { only: true, background: true });
  background = [typecheck, rebuild];
  void Promise.all([typecheck.done, rebuild.done]).then(([checked, rebuilt]) => {
    if (background[0] !== typecheck) return; // cancelled by a newer save
    const names = (list: string[]) => list.map((w) => w.replace('@gateway-minds/', '')).join(', ');
    if (checked.ok) process.stdout.write(prefixLines('types', `✓ ${names(typeChecked)} type-check against the contract (${seconds(checked.ms)})`));
    else {
      process.stdout.write(prefixLines('types', paint('red', `✗ the stack does not type-check against the contract (${seconds(checked.ms)}):`)));
      for (const line of errorLines(checked.output)) process.stdout.write(prefixLines('types', line));
      for (const id of operationsWithoutHandler(checked.output)) process.stdout.write(prefixLines('types', paint('yellow', `${id} has no handler: \`npm run scaffold:handler -- ${id}\` writes one`)));
    }
    if (rebuilt.ok) process.stdout.write(prefixLines('types', `✓ ${names(derived)} rebuilt from the contract (${seconds(rebuilt.ms)})`));
    else {
      process.stdout.write(prefixLines('types', paint('red', `✗ rebuilding ${names(derived)} failed (${seconds(rebuilt.ms)}):`)));
      for (const line of errorLines(rebuilt.output)) process.stdout.write(prefixLines('types', line));
    }
  });
}
startBackgroundLane();

// ---- the stack: restart, and go back to the last good contract when a new one will not start ----
async function restartStack(afterDocs: Promise<unknown>): Promise<StartResult> {
  await stack.stop();
  const started = await stack.start();
  if (started.ok) {
    await builder.snapshot('stack');
    return started;
  }
  const missing = missingHandlers(started.output);
  if (missing.length > 0) {
    for (const id of missing) say(paint('red', `the stack has no handler for ${id}: \`npm run scaffold:handler -- ${id}\` writes a stub where it goes`));
  } else {
    say(paint('red', 'the stack did not start on the new contract:'));
    process.stdout.write(prefixLines('stack', started.output));
  }
  // The docs are built from the contract's files too: swap them back only once the site is built.
  await afterDocs;
  if (await builder.restore('stack')) {
    const again = await stack.start();
    await builder.restore('latest');
    say(again.ok ? paint('yellow', `the stack keeps running the last good contract (${lastStackAt})`) : paint('red', 'the stack did not start on the last good contract either'));
  }
  return started;
}
let lastStackAt = clock();

// ---- one save of the contract ----
async function contractCycle(savedAt: number, files: string[]): Promise<void> {
  say(paint('bold', `${files.join(', ')} saved (${clock()})`));
  const since = (at: number) => seconds(at - savedAt);
  // The mock needs only the bundled document: it starts reloading while the contract compiles.
  let mockReload: Promise<{ ok: boolean; at: number }> | undefined;
  let next: object | undefined;
  const outcome = await builder.build(() => {
    next = JSON.parse(readFileSync(bundledContract, 'utf8')) as object;
    if (isDeepStrictEqual(next, lastGood)) return;
    mockReload = mock.reload().then(
      () => ({ ok: true, at: performance.now() }),
      (error: Error) => (say(paint('red', error.message)), { ok: false, at: performance.now() }),
    );
  });
  printProblems(outcome.problems);
  const steps = Object.entries(outcome.ms).map(([step, ms]) => `${step} ${seconds(ms)}`);
  if (!outcome.ok) {
    if (outcome.stage === 'compile') say(outcome.message);
    await mockReload; // a compile that fails after the bundle: the mock shows the new document, the rest keep theirs
    say(paint('red', `✗ ${outcome.message} (${steps.join(', ')}): the stack, the mock and the docs keep the last good contract (${lastGoodAt})`));
    return;
  }
  if (!next || isDeepStrictEqual(next, lastGood)) {
    say(`no change to the contract (${steps.join(', ')})`);
    return;
  }
  const changes = contractChanges(lastGood, next);
  for (const line of changes) say(line);
  if (changes.length === 0) say('the contract changed in a way the spec review does not report');
  const contractReady = performance.now();

  const docsBuild = buildDocsSite().then((result) => {
    if (result.ok) docs.reload();
    else say(paint('red', `the docs site did not build:\n${result.output}`));
    return { ok: result.ok, at: performance.now() };
  });
  // Examples and component schemas' prose never reach the stack (stack-view.ts): such an edit leaves it running.
  const examplesMatter = stackAnswersExamples();
  const stackTouched = !isDeepStrictEqual(stackView(lastGood, { examplesMatter }), stackView(next, { examplesMatter }));
  const stackRestart = stackTouched ? restartStack(docsBuild).then((started) => ({ ok: started.ok, at: performance.now() })) : undefined;
  const [mockDone, docsDone, stackDone] = await Promise.all([mockReload, docsBuild, stackRestart]);
  lastGood = next;
  lastGoodAt = clock();
  if (stackDone?.ok) lastStackAt = lastGoodAt;

  const ok = (mockDone?.ok ?? true) && docsDone.ok && (stackDone?.ok ?? true);
  say(
    `${ok ? '✓' : '✗'} contract ${since(contractReady)} (${steps.join(', ')}) · ` +
      `mock ${mockDone ? (mockDone.ok ? since(mockDone.at) : 'failed') : 'unchanged'} · docs ${docsDone.ok ? since(docsDone.at) : 'failed'} · ` +
      `stack ${stackDone ? (stackDone.ok ? since(stackDone.at) : 'kept the last good contract') : 'not restarted: the edit does not reach it'}  (times from the save)`,
  );
  startBackgroundLane();
}

// ---- a save of the stack's own sources ----
async function sourcesCycle(files: string[]): Promise<void> {
  say(paint('bold', `${files.join(', ')} saved (${clock()}): rebuilding the stack`));
  const build = runTurbo(['build'], stackWorkspaces, { only: true });
  const result = await build.done;
  if (!result.ok) {
    for (const line of errorLines(result.output)) say(paint('red', line));
    say(paint('red', `✗ the stack does not build (${seconds(result.ms)}): it keeps running the last build that started`));
    return;
  }
  await stack.stop();
  const started = await stack.start();
  if (started.ok) {
    await builder.snapshot('stack');
    lastStackAt = clock();
    say(`✓ the stack restarted on the new build (${seconds(result.ms)} to build)`);
  } else {
    for (const id of missingHandlers(started.output)) say(paint('red', `the stack has no handler for ${id}: \`npm run scaffold:handler -- ${id}\``));
    process.stdout.write(prefixLines('stack', started.output));
    say(paint('red', '✗ the stack did not start on the new build; save again once it is fixed'));
  }
}

// ---- saves, one cycle at a time; saves during a cycle are gathered into the next ----
const pending = { contract: new Set<string>(), sources: new Set<string>(), firstSavedAt: 0 };
let running = false;
let debounce: NodeJS.Timeout | undefined;

function saved(kind: 'contract' | 'sources', file: string): void {
  if (pending.contract.size === 0 && pending.sources.size === 0) pending.firstSavedAt = performance.now();
  pending[kind].add(relative(repoRoot, file));
  clearTimeout(debounce);
  // Editors write a file in more than one step; a few milliseconds gather them.
  debounce = setTimeout(() => void drain(), 40);
}

async function drain(): Promise<void> {
  if (running) return;
  running = true;
  try {
    while (pending.contract.size > 0 || pending.sources.size > 0) {
      const contractFiles = [...pending.contract];
      const sourceFiles = [...pending.sources];
      const savedAt = pending.firstSavedAt;
      pending.contract.clear();
      pending.sources.clear();
      stopBackgroundLane();
      if (sourceFiles.length > 0) await sourcesCycle(sourceFiles);
      if (contractFiles.length > 0) await contractCycle(savedAt, contractFiles);
    }
  } catch (error) {
    say(paint('red', `the loop failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
  } finally {
    running = false;
  }
}

const watchOptions = { ignoreInitial: true, awaitWriteFinish: false } as const;
const contractWatcher = watch([specDir, `${repoRoot}/redocly.yaml`, `${repoRoot}/.redocly.lint-ignore.yaml`], watchOptions);
const sourceWatcher = watch(
  stackSources.map((dir) => `${repoRoot}/${dir}`),
  watchOptions,
);
for (const event of ['add', 'change', 'unlink'] as const) {
  contractWatcher.on(event, (file) => saved('contract', file));
  sourceWatcher.on(event, (file) => saved('sources', file));
}
// A watcher misses a change in a folder it has not reached yet: say "watching" once both are.
await Promise.all([contractWatcher, sourceWatcher].map((watcher) => new Promise<void>((resolve) => watcher.once('ready', () => resolve()))));
say('Watching spec/: save a file to lint it and see it in the stack, the mock and the docs. Ctrl-C stops everything.');

let stopping = false;
const stopDeadlineMs = 20_000;
async function stopAll(): Promise<void> {
  if (stopping) return;
  stopping = true;
  say('stopping ...');
  for (const run of background) run.cancel();
  // Exits once everything it started has: a turbo task still writing after Ctrl-C would race
  // whatever the author does next with the tree (and a test's clean-up of its scratch copy). Not
  // forever, though: a process that ignores SIGTERM must not keep Ctrl-C from working.
  const stopped = Promise.allSettled([contractWatcher.close(), sourceWatcher.close(), stack.stop(), docs.close(), mock.stop(), builder.close(), ...background.map((run) => run.done)]);
  await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, stopDeadlineMs).unref())]);
  process.exit(0);
}
process.once('SIGINT', () => void stopAll());
process.once('SIGTERM', () => void stopAll());
