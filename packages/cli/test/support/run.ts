import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/index.js';

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

function parse(stdout: string): unknown {
  try {
    return stdout.trim() ? JSON.parse(stdout) : undefined;
  } catch {
    return undefined;
  }
}

/** The CLI in this process, with captured output (tty: pretend stdout and stderr are terminals). */
export async function cli(argv: string[], env: Record<string, string | undefined> = {}, tty = false): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: { write: (t: string) => (stdout += t), isTTY: tty },
    stderr: { write: (t: string) => (stderr += t), isTTY: tty },
    env,
  });
  return { code, stdout, stderr, json: parse(stdout) };
}

export const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

/** The built `gateway-minds` binary as a child process (stdout is a pipe). */
export function spawnCli(argv: string[], env: Record<string, string | undefined> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...argv], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, json: parse(stdout) }));
  });
}
