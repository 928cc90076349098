/**
 * The Prism mock as `npm run mock` starts it (apps/mock), on a copy of the bundled contract that the
 * loop rewrites after every good save. Prism reloads a document when the file it was given
 * changes, and only then (it does not follow `$ref`s into other files); the bundled copy is one
 * file with no `$ref` to another, so every edit anywhere under spec/ reaches it. Its "listening"
 * line after the rewrite says the new contract is served.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { bundledContract, devCacheDir, repoRoot } from './paths.js';
import { prefixLines } from './terminal.js';

const mockDocument = join(devCacheDir, 'openapi.json');
const listening = /Prism is listening on/;
/** Prism waits for a file to stay the same size for half a second before it reloads (its awaitWriteFinish); a busy machine takes longer. */
const deadlineMs = 60_000;

export class MockProcess {
  private child: ChildProcess | undefined;
  private waiters: (() => void)[] = [];

  constructor(private readonly port: number) {}

  async start(): Promise<void> {
    await mkdir(devCacheDir, { recursive: true });
    await this.copyContract();
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'apps/mock/src/start-mock.ts')], {
      cwd: repoRoot,
      env: { ...process.env, MOCK_PORT: String(this.port), MOCK_DOCUMENT: mockDocument },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const onOutput = (chunk: Buffer) => {
      const text = chunk.toString();
      // Only Prism's own lifecycle lines and its warnings: the operations it lists at every start,
      // and its log of every request, would drown everything else.
      const lines = text.split('\n').filter((line) => /listening|Restarting|Loading the updated|error|warn/i.test(line) && !/info\s+(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)\s/.test(line));
      if (lines.length > 0) process.stdout.write(prefixLines('mock', lines.join('\n')));
      if (listening.test(text)) for (const resolve of this.waiters.splice(0)) resolve();
    };
    child.stdout!.on('data', onOutput);
    child.stderr!.on('data', onOutput);
    await this.nextListening();
  }

  /** Hands Prism the contract just built and resolves once it serves it. */
  async reload(): Promise<void> {
    const served = this.nextListening();
    await this.copyContract();
    await served;
  }

  private async copyContract(): Promise<void> {
    // Written beside and renamed over, so Prism never reads half a document.
    const next = `${mockDocument}.next`;
    await copyFile(bundledContract, next);
    await rename(next, mockDocument);
  }

  private nextListening(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the mock did not answer within ${deadlineMs / 1000} s`)), deadlineMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Stops Prism and waits until it has exited. */
  stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}
