/**
 * Runs turbo tasks for the loop: the same tasks, inputs and cache as `npm run build` and `npm test`,
 * so that what the loop rebuilds is exactly what depends on what changed, and nothing else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { repoRoot, turboBin } from './paths.js';

export interface TurboRun {
  done: Promise<{ ok: boolean; output: string; ms: number }>;
  cancel(): void;
}

/**
 * `turbo run <tasks> --filter=<each> [--only]`. With `only`, turbo runs just the named workspaces'
 * tasks (in dependency order) and not their dependencies' (the loop has built the contract itself);
 * with `continue`, a failed task does not stop the others; `background` runs them one at a time, niced.
 */
export function runTurbo(tasks: string[], filters: string[], options: { only?: boolean; continue?: boolean; background?: boolean } = {}): TurboRun {
  const started = performance.now();
  const args = ['run', ...tasks, ...filters.map((f) => `--filter=${f}`), ...(options.only ? ['--only'] : []), ...(options.continue ? ['--continue'] : []), ...(options.background ? ['--concurrency=1'] : []), '--output-logs=errors-only', '--log-prefix=task'];
  let child: ChildProcess | undefined = spawn(turboBin, args, {
    cwd: repoRoot,
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1', FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a cancel stops turbo and the tasks it started.
    detached: true,
  });
  // In the background, one task at a time and at a lower priority (its tasks inherit it): the next
  // save's own steps, which someone is waiting for, go first on a machine with few cores.
  if (options.background && child.pid) setPriority(child.pid, 19);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const done = new Promise<{ ok: boolean; output: string; ms: number }>((resolve) => {
    child!.on('exit', (code) => {
      child = undefined;
      resolve({ ok: code === 0, output, ms: performance.now() - started });
    });
  });
  return {
    done,
    cancel() {
      if (child?.pid) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
    },
  };
}

const longest = 240;

/**
 * The lines of turbo's output worth showing: each task's errors with the lines that continue them
 * (TypeScript indents the reason under its error), without turbo's and npm's own framing, each cut
 * to a readable length.
 */
export function errorLines(output: string): string[] {
  const lines: string[] = [];
  let inError = false;
  for (const raw of output.split('\n')) {
    const line = raw.replace(/\u001b\[[0-9;]*m/g, '');
    const body = line.replace(/^[@\w/.-]+:[\w:-]+: /, '');
    if (/npm error|ERR_|Lifecycle script|command \(|run failed|Failed:/.test(line)) {
      inError = false;
      continue;
    }
    if (/error|Error|failed/.test(body)) inError = true;
    else if (!(inError && /^\s+\S/.test(body))) {
      inError = false;
      continue;
    }
    lines.push(line.length > longest ? `${line.slice(0, longest)}…` : line);
  }
  return lines;
}

/** What operation ids look like (the spec's lint rule: `<service>_<verb><Noun>`). */
const operationIdShape = /^[a-z]+_[a-z]+[A-Z][A-Za-z]*$/;

/**
 * The operations a type-check says a handler table lacks: the missing properties, of that shape,
 * in what TypeScript says when a table does not satisfy HandlerTable.
 */
export function operationsWithoutHandler(output: string): string[] {
  const text = output.replace(/\u001b\[[0-9;]*m/g, '');
  const one = [...text.matchAll(/Property '(\w+)' is missing in type /g)].map((m) => m[1]!);
  const several = [...text.matchAll(/is missing the following properties from type '[^'\n]*': ([\w, ]+?)(?:, and \d+ more)?\.?$/gm)].flatMap((m) => m[1]!.split(/,\s*/));
  return [...new Set([...one, ...several])].filter((name) => operationIdShape.test(name));
}
