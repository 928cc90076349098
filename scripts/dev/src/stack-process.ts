/**
 * The stack as `npm start` runs it (apps/stack/dist/start.js), restarted by the loop. The start
 * script says over an IPC channel when the gateway and its services answer; a stack that exits
 * first failed to start, and what it printed last says why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import type { DevSettings } from './settings.js';
import { prefixLines } from './terminal.js';

export type StartResult = { ok: true } | { ok: false; output: string };

const startScript = join(repoRoot, 'apps/stack/dist/start.js');

export class StackProcess {
  private child: ChildProcess | undefined;

  constructor(private readonly settings: DevSettings) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the stack and resolves once it answers, or with what it printed if it exits first. */
  start(): Promise<StartResult> {
    const { settings } = this;
    const child = spawn(process.execPath, [startScript], {
      cwd: repoRoot,
      env: {
        ...process.env,
        PORT: String(settings.port),
        ADMIN_PORT: String(settings.adminPort),
        MINDS_PORT: String(settings.mindsPort),
        DATA_DIR: settings.dataDir,
        STACK_BANNER: 'off',
        // The loop says when the stack is up; the services' own start-up lines would repeat it on every restart.
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.child = child;
    // The last lines the stack printed: on a failed start, they say why.
    const recent: string[] = [];
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) recent.push(line);
      recent.splice(0, Math.max(0, recent.length - 40));
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      process.stdout.write(prefixLines('stack', chunk.toString()));
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      keep(chunk);
      process.stderr.write(prefixLines('stack', chunk.toString()));
    });
    return new Promise((resolve) => {
      child.on('message', (message: { stack?: string }) => {
        if (message.stack === 'ready') resolve({ ok: true });
        else if (message.stack) resolve({ ok: false, output: recent.join('\n') });
      });
      child.once('exit', (code, signal) => resolve({ ok: false, output: `${recent.join('\n')}\n(the stack exited: ${signal ?? code})` }));
    });
  }

  /** Stops the stack (SIGTERM, as Ctrl-C does) and waits until it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}
