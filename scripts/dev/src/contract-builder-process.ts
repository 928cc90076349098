/**
 * The contract's own build, kept warm in a child process (`packages/contract/scripts/build.ts
 * --serve`): the same lint, bundle, generation and compilation `npm run build` runs through turbo,
 * with the tools loaded once and the compiler's unchanged files reused, so that a save reaches the
 * contract's dist in about a second.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/** A lint or bundle problem, as the builder words it: `file:line:column  error  rule  message`. */
export interface SpecProblem {
  severity: 'error' | 'warn';
  line: string;
}

export type BuildOutcome =
  | { ok: true; problems: SpecProblem[]; operations: number; errorCodes: number; ms: Record<string, number> }
  | { ok: false; stage: 'lint' | 'bundle' | 'compile'; problems: SpecProblem[]; message: string; ms: Record<string, number> };

interface Reply {
  id: number;
  outcome?: BuildOutcome;
  restored?: boolean;
  bundled?: boolean;
}

export class ContractBuilderProcess {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, (reply: Reply) => void>();
  private readonly onBundled = new Map<number, () => void>();
  private nextId = 1;
  readonly ready: Promise<void>;

  constructor() {
    this.child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'packages/contract/scripts/build.ts'), '--serve'], {
      cwd: repoRoot,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.once('error', reject);
      this.child.once('exit', (code) => reject(new Error(`the contract builder exited (${code}) before it was ready`)));
      this.child.on('message', (message: Reply & { ready?: boolean }) => {
        if (message.ready) return resolve();
        if (message.bundled) return this.onBundled.get(message.id)?.();
        this.pending.get(message.id)?.(message);
        this.pending.delete(message.id);
        this.onBundled.delete(message.id);
      });
    });
  }

  private ask(message: Record<string, unknown>, onBundled?: () => void): Promise<Reply> {
    const id = this.nextId++;
    if (onBundled) this.onBundled.set(id, onBundled);
    return new Promise((resolve, reject) => {
      this.pending.set(id, resolve);
      this.child.send({ ...message, id }, (error) => error && reject(error));
    });
  }

  /** Builds; `onBundled` runs once dist/openapi.json holds the new document, before the compile ends. */
  async build(onBundled?: () => void): Promise<BuildOutcome> {
    return (await this.ask({ build: true }, onBundled)).outcome!;
  }

  async snapshot(name: string): Promise<void> {
    await this.ask({ snapshot: name });
  }

  async restore(name: string): Promise<boolean> {
    return (await this.ask({ restore: name })).restored === true;
  }

  /** Stops the builder and waits until it has exited. */
  close(): Promise<void> {
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      if (child.connected) child.disconnect();
      child.kill();
    });
  }
}
