/** Child processes for the benchmark: each server runs on its own, the load generator in the parent. */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(benchDir, '../..');

/** Environment for the services from a JSON object in a variable (BENCH_AB_ENV, BENCH_PERF_ENV); unset, none. */
export const envFromJson = (json: string | undefined): Record<string, string> => (json ? (JSON.parse(json) as Record<string, string>) : {});

/**
 * Ports free now, all different: each is held open until all are chosen, because a port closed
 * before the next is asked for may be handed out again (a stack's gateway and service on one port).
 */
export async function freePorts(count: number): Promise<number[]> {
  const held: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      held.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return held.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Forks a TypeScript server script (through tsx) and waits for its 'ready' message. */
export async function forkServer(script: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(join(benchDir, script), [], {
    env: { ...process.env, ...env, LOG_LEVEL: 'silent', NODE_ENV: 'production' },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  running.add(child);
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return child;
}

/** Where --perf-prof's jit dumps go, and the code objects `perf inject --jit` makes of them. */
export const perfJitDumpDir = join(tmpdir(), 'bench-perf-jit');

/**
 * BENCH_PERF_MAP=1: --perf-basic-prof, a map of JIT code by name, which goes wrong where V8 reuses
 * code memory (measured: whole subtrees charged to functions never called there). BENCH_PERF_MAP=jitdump:
 * --perf-prof, a dump of every code object as it is made, for `perf record -k mono` and `perf inject --jit`.
 */
function perfProfilingFlags(): string[] {
  const log = [`--logfile=${join(tmpdir(), 'bench-v8-%p.log')}`, '--no-logfile-per-isolate'];
  if (process.env.BENCH_PERF_MAP === 'jitdump') {
    mkdirSync(perfJitDumpDir, { recursive: true });
    return ['--perf-prof', '--interpreted-frames-native-stack', ...log];
  }
  return process.env.BENCH_PERF_MAP ? ['--perf-basic-prof', ...log] : [];
}

/** Starts a built program (node dist/main.js) and waits until a URL answers. */
export async function startProgram(main: string, env: Record<string, string>, readyUrl: string, timeoutMs = 60_000): Promise<ChildProcess> {
  // BENCH_CPU_PROFILE_DIR=dir writes a V8 CPU profile of each program on exit (how the hot paths were found).
  const profile = process.env.BENCH_CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE_DIR}`] : perfProfilingFlags();
  const child = spawn(process.execPath, [...profile, main], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
    // --perf-prof writes its jit-<pid>.dump into the working directory.
    cwd: process.env.BENCH_PERF_MAP === 'jitdump' ? perfJitDumpDir : undefined,
  });
  running.add(child);
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${main} exited with ${child.exitCode}`);
    try {
      if ((await fetch(readyUrl)).ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs) throw new Error(`${main} did not answer ${readyUrl} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
  running.delete(child);
}

/** Resident set size of a process in MiB, from /proc (Linux). */
export async function rssMiB(pid: number | undefined): Promise<number> {
  if (!pid) return Number.NaN;
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
}
