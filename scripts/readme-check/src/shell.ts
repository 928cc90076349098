/**
 * Runs a documented shell block the way a reader would type it, but against
 * the stack the test started: bash, `set -eo pipefail`, in a scratch
 * directory inside the repository (so that `npm run` and `npx` find the
 * project, as they do for a reader at its root), with the environment every
 * command reads (GATEWAY_MINDS_URL, ADMIN_URL, DATA_DIR, PORT, MOCK_PORT, a
 * token). The docs name the default addresses (the gateway on 8080, ...); the
 * test's servers listen on free ports, so those addresses are rewritten, and
 * the `<token>` placeholder is filled with a real token.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { skipMarker } from './blocks.js';

export interface DocumentedEnvironment {
  /** The documented default base URL of each server, and where the test's one listens. */
  addresses: { documented: string; actual: string }[];
  /** Variables every command sees (GATEWAY_MINDS_URL, ADMIN_URL, DATA_DIR, GATEWAY_MINDS_TOKEN, ...). */
  env: Record<string, string>;
  /** A directory inside the repository for the scratch directories. */
  scratchRoot: string;
}

/** The script bash runs: skipped lines become no-ops that name their reason, addresses point at the test's servers. */
export function shellScript(code: string, environment: DocumentedEnvironment): string {
  const lines = code.split('\n').map((line) => {
    const marker = skipMarker.exec(line);
    if (marker) return `: # skipped by the docs test: ${marker[1]!.replace(/'/g, '')}`;
    let rewritten = line.replaceAll('<token>', '${GATEWAY_MINDS_TOKEN}');
    for (const { documented, actual } of environment.addresses) rewritten = rewritten.replaceAll(documented, actual);
    return rewritten;
  });
  return ['set -eo pipefail', ...lines, ''].join('\n');
}

export interface ShellResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  script: string;
}

/** npm's own variables from the test's parent `npm test` would point a nested `npm run` at this workspace. */
function withoutNpmVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && !/^(npm_|INIT_CWD$)/i.test(entry[0])),
  );
}

export async function runShellBlock(code: string, environment: DocumentedEnvironment, timeoutMs: number): Promise<ShellResult> {
  const dir = mkdtempSync(join(environment.scratchRoot, 'block-'));
  const script = shellScript(code, environment);
  const file = join(dir, 'block.sh');
  writeFileSync(file, script);
  const child = spawn('bash', [file], {
    cwd: dir,
    env: { ...withoutNpmVariables(process.env), ...environment.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => {
    stderr += `\n(the docs test stopped the block after ${timeoutMs} ms)`;
    // The block's whole process group: npm, npx and what they started.
    process.kill(-child.pid!, 'SIGKILL');
  }, timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  clearTimeout(timer);
  return { exitCode, stdout, stderr, script };
}
