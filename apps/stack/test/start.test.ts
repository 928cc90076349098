/**
 * `npm start`'s program (dist/start.js), as the README promises it, in both topologies (one
 * process, the default; STACK_TOPOLOGY=processes): on an empty data directory it starts the Minds
 * service and the gateway in front of it, both answer, and SIGTERM stops both; on the same, now
 * existing, directory it comes up again; on a moved PORT every error either service returns links
 * to the docs the gateway serves there. Real processes, real ports, no stubs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEALTH_PATH } from '@gateway-minds/service-kit/side-routes';
import { operationPath } from '@gateway-minds/contract';
import { topologies, withFreePorts, type Topology } from '@gateway-minds/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';

const startJs = join(dirname(fileURLToPath(import.meta.url)), '../dist/start.js');
/** One data directory per topology: each starts on an empty one, then on it again. */
const dataDirs = Object.fromEntries(topologies.map((topology) => [topology, mkdtempSync(join(tmpdir(), `stack-start-${topology}-`))])) as Record<Topology, string>;
/** The data directory of the stack started last. */
let dataDir = '';
/** Every stack started, so that one a failed case left running is stopped too. */
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  for (const directory of Object.values(dataDirs)) rmSync(directory, { recursive: true, force: true });
});

type Ports = Record<'PORT' | 'ADMIN_PORT' | 'MINDS_PORT', string>;

/**
 * Starts the stack on free ports and resolves once it prints that it is up (after both services
 * answered); on new ports if one was taken before its service bound it (the stack then exits).
 */
function start(topology: Topology): Promise<{ child: ChildProcess; ports: Ports; printed: () => string }> {
  dataDir = dataDirs[topology];
  return withFreePorts(3, async ([gatewayPort, adminPort, mindsPort]) => {
    const ports: Ports = { PORT: String(gatewayPort), ADMIN_PORT: String(adminPort), MINDS_PORT: String(mindsPort) };
    const child = spawn(process.execPath, [startJs], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', STACK_TOPOLOGY: topology, ...ports }, stdio: ['ignore', 'pipe', 'pipe'] });
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
    return { child, ports, printed: () => output };
  });
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
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');
/** A command line as a reader pastes it, run by the shell in the repository without this process's DATA_DIR: its JSON output. */
const runInShell = (commandLine: string) =>
  new Promise<unknown>((resolve, reject) => {
    const { DATA_DIR: _ignored, ...env } = process.env;
    execFile('sh', ['-c', commandLine], { cwd: repoRoot, env }, (error, stdout, stderr) => (error ? reject(new Error(`${commandLine}: ${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout))));
  });
const refused = (url: string) => fetch(url).then(() => false, () => true);

const runs = topologies.flatMap((topology) => ['an empty', 'the same, now existing,'].map((directory) => ({ topology, directory })));
describe.each(runs)('npm start ($topology) on $directory data directory', ({ topology }) => {
  it('runs the Minds service behind the gateway, and stops both on SIGTERM', async () => {
    const { child, ports, printed } = await start(topology);
    const gateway = `http://127.0.0.1:${ports.PORT}`;
    const minds = `http://127.0.0.1:${ports.MINDS_PORT}`;
    try {
      const status = await fetch(`${gateway}${statusPath}`);
      expect(status.status).toBe(200);
      const body = (await status.json()) as { services: { service: string; state: string }[] };
      expect(body.services).toEqual(expect.arrayContaining([expect.objectContaining({ service: 'minds', state: 'up' })]));
      // All in one, the service has no listener of its own: the gateway reaches it in memory.
      if (topology === 'processes') expect((await fetch(`${minds}/healthz`)).status).toBe(200);
      else expect(await refused(`${minds}/healthz`)).toBe(true);
      expect(printed()).toContain(topology === 'processes' ? 'separate processes' : 'one process');
      // The admin listener is on a moved port (ADMIN_PORT); the admin command finds it from DATA_DIR alone.
      const { token } = await issueWithDataDirOnly();
      expect((await fetch(`${gateway}/v1/whoami`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      // The command the stack prints to get a credential works as printed, on this moved DATA_DIR too.
      const command = /^\s*(.*npm run admin -- issue --kind bridge_session)$/m.exec(printed())?.[1];
      expect(command).toBe(`DATA_DIR=${dataDir} npm run admin -- issue --kind bridge_session`);
      const printedToken = (await runInShell(`${command!.replace('npm run admin', 'npm run -s admin')}`)) as { token: string };
      expect((await fetch(`${gateway}/v1/whoami`, { headers: { authorization: `Bearer ${printedToken.token}` } })).status).toBe(200);
    } finally {
      expect(await stop(child)).toBe(0);
    }
    expect(await refused(`${gateway}${statusPath}`)).toBe(true);
    expect(await refused(`${minds}/healthz`)).toBe(true);
  });
});

/** What an error answer says about its docs: its code and where `docs_url` points. */
async function errorOf(response: Response): Promise<{ status: number; code: string; docs_url: string }> {
  const { error } = (await response.json()) as { error: { code: string; docs_url: string } };
  return { status: response.status, code: error.code, docs_url: error.docs_url };
}

// Interface, "Each gateway error links to its catalog entry through a `docs_url` field";
// spec/DECISIONS.md, "Which site a `docs_url` names": one stack links the one site it serves.
describe.each(topologies)('npm start (%s) on a PORT other than 8080', (topology) => {
  it("links every error, the gateway's own and the Minds service's, to the docs that stack serves", async () => {
    const { child, ports } = await start(topology);
    expect(ports.PORT).not.toBe('8080');
    const gateway = `http://127.0.0.1:${ports.PORT}`;
    const minds = `http://127.0.0.1:${ports.MINDS_PORT}`;
    try {
      const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
      const issued = await fetch(`http://127.0.0.1:${ports.ADMIN_PORT}/admin/credentials`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'bridge_session' }),
      });
      expect(issued.status).toBe(201);
      const { token } = (await issued.json()) as { token: string };

      const errors = [
        // the gateway's own refusal: no credential
        await errorOf(await fetch(`${gateway}${operationPath('gateway_getPrincipal')}`)),
        // the Minds service's answer, forwarded: no such Mind
        await errorOf(await fetch(`${gateway}${operationPath('minds_getMind', { mind_id: randomUUID() })}`, { headers: { authorization: `Bearer ${token}` } })),
      ];
      // Separate processes: the Minds service asked directly, without the gateway's assertion.
      if (topology === 'processes') errors.push(await errorOf(await fetch(`${minds}${operationPath('minds_listMinds')}`)));
      expect(errors.map((e) => [e.status, e.code])).toEqual([[401, 'BEARER_REQUIRED'], [404, 'NOT_FOUND'], ...(topology === 'processes' ? [[401, 'UNAUTHENTICATED']] : [])]);
      for (const error of errors) {
        expect(error.docs_url).toBe(`${gateway}/docs/errors.html#${error.code}`);
        const page = await fetch(error.docs_url);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain(`id="${error.code}"`);
      }
      if (topology === 'processes') expect((await fetch(`${minds}${HEALTH_PATH}`)).status).toBe(200);
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });
});
