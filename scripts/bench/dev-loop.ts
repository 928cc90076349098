/**
 * Save to visible under `npm run dev`: on a scratch copy of the repository (built once with turbo),
 * the loop runs on free ports and `$ref`'d files of spec/ are edited in turn, the way an author
 * edits them: an example value, a schema property's description, an operation's summary. From the
 * write, each place the edit shows is polled until it shows it:
 *
 *   mock     the Prism mock's answer            (the example)
 *   served   the stack's GET /v1/openapi.json   (the summary: it carries summaries, not examples)
 *   docs     the docs site's reference page     (all three)
 *   types    the contract's generated types     (the description and the summary, as TSDoc)
 *
 * A round's "visible" time is the slowest of the places its edit shows in. The loop's own line for
 * the cycle gives each step's time (lint, bundle, generate, compile; then mock, docs and stack from
 * the save), so the report names the slowest step. Between rounds the loop's background turbo
 * lane is let finish, as it would while an author reads what changed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchRepository } from '@gateway-minds/dev/scratch';
import { median } from './figures.js';
import { freePorts } from './processes.js';

type Place = 'mock' | 'served' | 'docs' | 'types';

interface Edit {
  name: string;
  file: string;
  /** Replaces the original text with one carrying `marker`. */
  apply(text: string, marker: string): string;
  shows: Place[];
}

const edits: Edit[] = [
  {
    name: 'an example value',
    file: 'spec/components/examples/minds/MindReady.yaml',
    apply: (text, marker) => text.replace('name: Sandbox research notes', `name: Sandbox research notes ${marker}`),
    shows: ['mock', 'docs'],
  },
  {
    name: "a schema property's description",
    file: 'spec/components/schemas/Mind.yaml',
    apply: (text, marker) => text.replace("description: The Mind's id.", `description: The Mind's id (${marker}).`),
    shows: ['docs', 'types'],
  },
  {
    name: "an operation's summary",
    file: 'spec/paths/v1_minds_services_{mind_id}.yaml',
    apply: (text, marker) => text.replace('summary: Read one owned Mind', `summary: Read one owned Mind ${marker}`),
    shows: ['served', 'docs', 'types'],
  },
];

export interface DevLoopRound {
  edit: string;
  /** Seconds from the write until each place showed the edit. */
  places: Partial<Record<Place, number>>;
  visible: number;
  /** The loop's own step times for the cycle, in seconds. */
  steps: Record<string, number>;
}

export interface DevLoopReport {
  rounds: DevLoopRound[];
  /** Median seconds per place, over the rounds whose edit shows there. */
  medians: Partial<Record<Place, number>>;
  visibleMedian: number;
  /** Median seconds per step of the loop. */
  stepMedians: Record<string, number>;
}

const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';

async function firstTime(check: () => Promise<boolean>, started: number, deadlineMs: number): Promise<number> {
  for (;;) {
    if (await check().catch(() => false)) return (performance.now() - started) / 1000;
    if (performance.now() - started > deadlineMs) throw new Error('the edit did not show within the deadline');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The step times of the loop's summary line: `contract 1.2 s (lint 0.4 s, ...) · mock 2.1 s · docs 3.0 s · stack 2.5 s`. */
function stepsOf(line: string): Record<string, number> {
  const steps: Record<string, number> = {};
  for (const m of line.matchAll(/(\w+) (\d+\.\d) s/g)) steps[m[1]!] = Number(m[2]);
  return steps;
}

export async function runDevLoop(options: { rounds: number }): Promise<DevLoopReport> {
  const scratch = scratchRepository('bench-dev-loop-');
  let dev: ChildProcess | undefined;
  try {
    const build = spawn('node_modules/.bin/turbo', ['run', 'build', '--output-logs=errors-only'], { cwd: scratch.root, stdio: 'inherit', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } });
    await new Promise<void>((resolve, reject) => build.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`turbo build exited ${code}`)))));

    const [port, adminPort, mindsPort, mockPort, docsPort] = await freePorts(5);
    let output = '';
    dev = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev/src/main.ts'], {
      cwd: scratch.root,
      env: { ...process.env, NO_COLOR: '1', PORT: String(port), ADMIN_PORT: String(adminPort), MINDS_PORT: String(mindsPort), MOCK_PORT: String(mockPort), DOCS_PORT: String(docsPort), DATA_DIR: join(scratch.root, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    dev.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    dev.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const backgroundDone = async (from: number) => {
      for (let waited = 0; !/rebuilt from the contract|rebuilding .* failed/.test(output.slice(from)); waited += 100) {
        if (waited > 600_000) throw new Error(`the loop's background lane did not finish:\n${output.slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await backgroundDone(0);

    const headers = { Authorization: 'Bearer bs_x' };
    const places: Record<Place, (marker: string) => Promise<boolean>> = {
      mock: async (marker) => (await (await fetch(`http://127.0.0.1:${mockPort}/v1/minds/services/${mindId}`, { headers })).text()).includes(marker),
      served: async (marker) => (await (await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)).text()).includes(marker),
      docs: async (marker) => (await (await fetch(`http://127.0.0.1:${docsPort}/reference.html`)).text()).includes(marker),
      types: async (marker) => readFileSync(join(scratch.root, 'packages/contract/dist/generated/schema.d.ts'), 'utf8').includes(marker),
    };

    const rounds: DevLoopRound[] = [];
    for (let i = 0; i < options.rounds * edits.length; i++) {
      const edit = edits[i % edits.length]!;
      const file = join(scratch.root, edit.file);
      const original = readFileSync(file, 'utf8');
      const marker = `bench${i}x${Date.now().toString(36)}`;
      const changed = edit.apply(original, marker);
      if (changed === original) throw new Error(`the bench's edit of ${edit.file} found nothing to change`);
      const from = output.length;
      const started = performance.now();
      writeFileSync(file, changed);
      const times = await Promise.all(edit.shows.map(async (place) => [place, await firstTime(() => places[place](marker), started, 120_000)] as const));
      await backgroundDone(from);
      const summary = output.slice(from).split('\n').find((line) => /contract \d+\.\d s \(/.test(line)) ?? '';
      const round: DevLoopRound = { edit: edit.name, places: Object.fromEntries(times), visible: Math.max(...times.map(([, s]) => s)), steps: stepsOf(summary) };
      rounds.push(round);
      console.log(`dev-loop: ${edit.name}: visible in ${round.visible.toFixed(2)} s (${times.map(([p, s]) => `${p} ${s.toFixed(2)}`).join(', ')})`);
      // Put the file back, and let that cycle and its background lane finish before the next edit.
      const restoredFrom = output.length;
      writeFileSync(file, original);
      await backgroundDone(restoredFrom);
    }

    const medianOf = (values: number[]) => (values.length > 0 ? median(values) : NaN);
    const medians = Object.fromEntries((['mock', 'served', 'docs', 'types'] as Place[]).map((place) => [place, medianOf(rounds.flatMap((r) => (r.places[place] === undefined ? [] : [r.places[place]!])))]));
    const stepNames = [...new Set(rounds.flatMap((r) => Object.keys(r.steps)))];
    const stepMedians = Object.fromEntries(stepNames.map((step) => [step, medianOf(rounds.flatMap((r) => (r.steps[step] === undefined ? [] : [r.steps[step]!])))]));
    return { rounds, medians, visibleMedian: medianOf(rounds.map((r) => r.visible)), stepMedians };
  } finally {
    if (dev && dev.exitCode === null) {
      const exited = new Promise((resolve) => dev!.once('exit', resolve));
      dev.kill('SIGINT');
      await exited;
    }
    scratch.remove();
  }
}
