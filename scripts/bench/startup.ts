/**
 * Start-up: `npm start`'s stack (node apps/stack/dist/start.js) to the first
 * 200 from /v1/status, on an empty data directory and on an existing one, and
 * the mock's start-up beside it. Builds are done beforehand: this times the
 * programs, not the build. runFirstStart times the whole `npm start` command
 * instead, build included, as a newcomer meets it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './figures.js';
import { freePort, freePorts, repoRoot } from './processes.js';
import { operationPath } from '@gateway-minds/contract';

/** The ports `npm start` listens on (gateway, admin, and Minds in separate processes), three different free ones. */
async function stackPorts(): Promise<{ PORT: string; ADMIN_PORT: string; MINDS_PORT: string }> {
  const [gateway, admin, minds] = (await freePorts(3)).map(String) as [string, string, string];
  return { PORT: gateway, ADMIN_PORT: admin, MINDS_PORT: minds };
}

/** Until nothing answers `url`: the previous run's programs are gone, so a 200 is this run's. */
async function untilRefused(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`something still answers ${url}`);
}

async function timeToFirst200(command: string[], env: Record<string, string>, url: string): Promise<number> {
  await untilRefused(url);
  const started = performance.now();
  // A process group of its own, so that stopping it stops whatever it started (the separate processes' services).
  const child = spawn(process.execPath, command, { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: 'ignore', detached: true });
  try {
    for (;;) {
      try {
        if ((await fetch(url)).ok) return (performance.now() - started) / 1000;
      } catch {
        // not yet
      }
      if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    // The stack stops its services on SIGTERM; the group is killed if it has not within 10 s.
    await stopGroup(child);
  }
}

/**
 * Each start-up timed `rounds` times, interleaved (each topology on an empty directory and on an
 * existing one, then the mock), median reported.
 */
export async function runStartup(rounds = 3): Promise<{ what: string; seconds: number; runs: number[] }[]> {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
    dirs.push(dir);
    return dir;
  };
  const topologies = [
    ['all-in-one', 'all in one process, the default'],
    ['processes', 'separate processes'],
  ] as const;
  try {
    const ports = await stackPorts();
    const stack = (dataDir: string, topology: string) =>
      timeToFirst200([join(repoRoot, 'apps/stack/dist/start.js')], { DATA_DIR: dataDir, STACK_TOPOLOGY: topology, ...ports }, `http://127.0.0.1:${ports.PORT}${operationPath('gateway_getStatus')}`);
    const existingDirs = new Map<string, string>();
    for (const [topology] of topologies) {
      existingDirs.set(topology, fresh());
      await stack(existingDirs.get(topology)!, topology); // creates the directory the "existing" runs reopen
    }
    const runs = new Map<string, number[]>();
    const record = (what: string, seconds: number) => runs.set(what, [...(runs.get(what) ?? []), seconds]);
    for (let round = 0; round < rounds; round++) {
      for (const [topology, label] of topologies) {
        record(`npm start (${label}), empty data directory`, await stack(fresh(), topology));
        await new Promise((r) => setTimeout(r, 1000));
        record(`npm start (${label}), existing data directory`, await stack(existingDirs.get(topology)!, topology));
      }
      const mockPort = String(await freePort());
      record(
        'Prism mock',
        await timeToFirst200(
          [join(repoRoot, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', join(repoRoot, 'packages/contract/dist/openapi.json'), '--port', mockPort, '--host', '127.0.0.1'],
          {},
          `http://127.0.0.1:${mockPort}${operationPath('gateway_getStatus')}`,
        ),
      );
    }
    return [...runs].map(([what, times]) => ({ what, seconds: median(times), runs: times }));
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** Stops a command started in its own process group (npm, its shell, turbo, the stack) and waits for it. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
}

/** `npm start` (the root package.json's script, build included) to the first 200 from /v1/status. */
async function timeNpmStart(env: Record<string, string>, url: string): Promise<number> {
  await untilRefused(url);
  const started = performance.now();
  const child = spawn('npm', ['start'], { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  // What it said last on stderr, for the error if it exits: a failed start is otherwise a bare exit code.
  let said = '';
  child.stderr!.on('data', (chunk: Buffer) => (said = (said + chunk.toString('utf8')).slice(-4000)));
  try {
    for (;;) {
      try {
        if ((await fetch(url)).ok) return (performance.now() - started) / 1000;
      } catch {
        // building, or not listening yet
      }
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${said}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await stopGroup(child);
  }
}

/**
 * The first `npm start` after `npm install`: turbo's cache is empty (a fresh
 * TURBO_CACHE_DIR), so every build task `npm start` runs runs, then the stack
 * starts on an empty data directory. Then restarts: the build replays from
 * that cache and the stack reopens its data directory (median of `restarts`).
 * The working tree's dist/ folders are rewritten with the same outputs.
 */
export async function runFirstStart(restarts = 3): Promise<{ what: string; seconds: number; runs: number[] }[]> {
  const cacheDir = mkdtempSync(join(tmpdir(), 'bench-first-start-cache-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-first-start-data-'));
  try {
    const ports = await stackPorts();
    const env = { ...ports, DATA_DIR: dataDir, TURBO_CACHE_DIR: cacheDir, TURBO_TELEMETRY_DISABLED: '1' };
    const url = `http://127.0.0.1:${ports.PORT}${operationPath('gateway_getStatus')}`;
    const first = await timeNpmStart(env, url);
    const again: number[] = [];
    for (let i = 0; i < restarts; i++) again.push(await timeNpmStart(env, url));
    return [
      { what: 'first `npm start` (empty turbo cache, empty data directory)', seconds: first, runs: [first] },
      { what: '`npm start` again (cache replay, existing data directory)', seconds: median(again), runs: again },
    ];
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}
