/**
 * `npm start`'s program (dist/start.js), as the README promises it: on an empty data directory it
 * starts the Minds service and the gateway in front of it, both answer, and SIGTERM stops both; on
 * the same, now existing, directory it comes up again. Real processes, real ports, no stubs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { operationPath } from '@gateway-minds/contract';
import { freePort } from '@gateway-minds/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';

const startJs = join(dirname(fileURLToPath(import.meta.url)), '../dist/start.js');
const dataDir = mkdtempSync(join(tmpdir(), 'stack-start-'));
/** Every stack started, so that one a failed case left running is stopped too. */
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the stack and resolves once it prints that it is up (after both services answered). */
async function start(ports: Record<'PORT' | 'ADMIN_PORT' | 'MINDS_PORT', string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [startJs], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...ports }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('The stack is up')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the stack exited with ${code} before it was up:\n${output}`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

const statusPath = operationPath('gateway_getStatus');
/** The admin command `npm run admin` runs (the gateway's built bin). */
const adminCli = join(dirname(createRequire(import.meta.url).resolve('@gateway-minds/gateway')), 'admin/cli.js');
const issueWithDataDirOnly = () =>
  new Promise<{ token: string }>((resolve, reject) =>
    execFile(process.execPath, [adminCli, 'issue', '--kind', 'bridge_session'], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as { token: string }),
    ),
  );
const refused = (url: string) => fetch(url).then(() => false, () => true);

describe.each(['an empty', 'the same, now existing,'])('npm start on %s data directory', () => {
  it('runs the Minds service behind the gateway, and stops both on SIGTERM', async () => {
    const ports = { PORT: String(await freePort()), ADMIN_PORT: String(await freePort()), MINDS_PORT: String(await freePort()) };
    const gateway = `http://127.0.0.1:${ports.PORT}`;
    const minds = `http://127.0.0.1:${ports.MINDS_PORT}`;
    const child = await start(ports);
    try {
      const status = await fetch(`${gateway}${statusPath}`);
      expect(status.status).toBe(200);
      const body = (await status.json()) as { services: { service: string; state: string }[] };
      expect(body.services).toEqual(expect.arrayContaining([expect.objectContaining({ service: 'minds', state: 'up' })]));
      expect((await fetch(`${minds}/healthz`)).status).toBe(200);
      // The admin listener is on a moved port (ADMIN_PORT); the admin command finds it from DATA_DIR alone.
      const { token } = await issueWithDataDirOnly();
      expect((await fetch(`${gateway}/v1/whoami`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      expect(await stop(child)).toBe(0);
    }
    expect(await refused(`${gateway}${statusPath}`)).toBe(true);
    expect(await refused(`${minds}/healthz`)).toBe(true);
  });
});
