/** Runs test/fixtures/writer.ts in a child process and kills it once it has acknowledged enough writes. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { OpenDatabaseOptions } from '../../src/index.js';
import { packageDir } from './db.js';

export interface WriterRun {
  acknowledged: number[];
  signal: NodeJS.Signals | null;
  stderr: string;
}

export function runWriter(
  options: OpenDatabaseOptions,
  {
    killAfter,
    signal,
    firstId = 1,
    whileWriting,
  }: {
    killAfter: number;
    signal: NodeJS.Signals;
    firstId?: number;
    /** Called once the child is writing; the kill waits for the promise it returns. */
    whileWriting?: () => Promise<unknown>;
  },
): Promise<WriterRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(packageDir, 'test/fixtures/writer.ts')], {
    cwd: packageDir,
    env: { ...process.env, WRITER_OPTIONS: JSON.stringify(options), WRITER_FIRST_ID: String(firstId) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acknowledged: number[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let alongside: Promise<unknown> = Promise.resolve();
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'ready') {
      if (whileWriting) alongside = whileWriting();
      return;
    }
    acknowledged.push(Number(line));
    // Killed while it keeps writing: the next transaction is somewhere in flight.
    if (acknowledged.length === killAfter) void alongside.finally(() => child.kill(signal));
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`writer did not reach ${killAfter} writes in time; stderr:\n${stderr}`));
    }, 25_000);
    child.on('close', (_code, exitSignal) => {
      clearTimeout(timer);
      resolve({ acknowledged, signal: exitSignal, stderr });
    });
  });
}
