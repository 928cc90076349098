/**
 * The admin command (`npm run admin`, the built gateway-admin bin) against a real gateway whose admin
 * listener is on a port of its own choosing: it finds the listener from the data directory alone,
 * says a person's mistakes in one line with exit code 2 before sending anything, and the admin API
 * answers an unknown organization, project or agent with a clean 404 rather than a database message.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationTable } from '@gateway-minds/contract';
import { startHarness, type Harness } from './support/harness.js';

// Each run is a fresh node process: allow for a busy machine.
const bin = fileURLToPath(new URL('../dist/admin/cli.js', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built command with only the environment given (no ADMIN_URL unless a test sets it). */
function admin(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A usage error: one line naming the problem, exit 2, no stack trace. */
function expectUsageError(run: Run, says: RegExp): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(says);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

async function thumbprint(): Promise<string> {
  const { publicKey } = await generateKeyPair('ES256');
  return calculateJwkThumbprint(await exportJWK(publicKey), 'sha256');
}

let harness: Harness;
let env: Record<string, string>;
beforeAll(async () => {
  harness = await startHarness();
  env = { DATA_DIR: harness.dataDir };
}, 120_000);
afterAll(async () => {
  await harness?.close();
});

describe('the admin command finds the stack from its data directory', { timeout: 60_000 }, () => {
  it('the gateway records its admin listener beside the admin token', () => {
    expect(readFileSync(join(harness.dataDir, 'admin-url'), 'utf8').trim()).toBe(harness.gateway.adminUrl);
    expect(new URL(harness.gateway.adminUrl).port).not.toBe('8081');
  });

  it('issues a working credential with only DATA_DIR set, on a moved admin port', async () => {
    const run = await admin(['issue', '--kind', 'bridge_session'], env);
    expect(run.code, run.stderr).toBe(0);
    const issued = JSON.parse(run.stdout) as { token: string; kind: string };
    expect(issued.kind).toBe('bridge_session');
    const whoami = await fetch(`${harness.gateway.url}/v1/whoami`, { headers: { authorization: `Bearer ${issued.token}` } });
    expect(whoami.status).toBe(200);
  });

  it('an explicit ADMIN_URL wins over the recorded one', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const run = await admin(['issue'], { ...env, ADMIN_URL: deadUrl });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach the gateway's admin API at ${deadUrl} (ADMIN_URL)`);
  });

  it('--url names the gateway, over ADMIN_URL and the recorded one', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const run = await admin(['issue', '--url', deadUrl], { ...env, ADMIN_URL: harness.gateway.adminUrl });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach the gateway's admin API at ${deadUrl} (--url)`);
    const named = await admin(['issue', '--url', `${harness.gateway.adminUrl}/`], { ...env, ADMIN_URL: deadUrl });
    expect(named.code, named.stderr).toBe(0);
    expectUsageError(await admin(['issue', '--url', 'not a url'], env), /--url \/ ADMIN_URL must be a URL/);
  });

  it('without a recorded listener it sends the token nowhere and says how to start one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-admin-cli-'));
    try {
      writeFileSync(join(dir, 'admin-token'), 'adm_not_sent');
      const run = await admin(['issue'], { DATA_DIR: dir });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/no running gateway found: .*admin-url does not exist.*npm start.*ADMIN_URL/);
      const empty = await admin(['issue'], { DATA_DIR: dir + '-missing' });
      expect(empty.stderr).toMatch(/no admin token: .*admin-token does not exist/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('usage errors are one line and exit 2, before anything is sent', { timeout: 60_000 }, () => {
  it('an unknown flag', async () => {
    expectUsageError(await admin(['issue', '--bogus'], env), /unknown flag --bogus/);
  });

  it('an unknown command, a missing argument, an unknown kind, a malformed number of seconds', async () => {
    expectUsageError(await admin(['frob'], env), /unknown command frob/);
    expectUsageError(await admin(['agent', 'create'], env), /agent create needs --org/);
    expectUsageError(await admin(['revoke'], env), /revoke needs a credential id/);
    expectUsageError(await admin(['issue', '--kind', 'admin'], env), /--kind must be one of api_key, .*; got admin/);
    expectUsageError(await admin(['issue', '--expires-in', '1h'], env), /--expires-in takes a whole number of seconds; got 1h/);
  });

  it('--dpop-jkt must be an RFC 7638 SHA-256 thumbprint (43 base64url characters)', async () => {
    expectUsageError(await admin(['issue', '--kind', 'agent_token', '--dpop-jkt', 'abc'], env), /--dpop-jkt must be an RFC 7638 JWK SHA-256 thumbprint/);
    const jkt = await thumbprint();
    expectUsageError(await admin(['issue', '--kind', 'agent_token', '--dpop-jkt', `${jkt}=`], env), /--dpop-jkt/);
    const run = await admin(['issue', '--kind', 'agent_token', '--dpop-jkt', jkt], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).dpop_jkt).toBe(jkt);
    // One thumbprint in 64 begins with '-', which node's argument parser takes for a flag.
    const dashed = `-${jkt.slice(1)}`;
    const dashedRun = await admin(['issue', '--kind', 'agent_token', '--dpop-jkt', dashed], env);
    expect(dashedRun.code, dashedRun.stderr).toBe(0);
    expect(JSON.parse(dashedRun.stdout).dpop_jkt).toBe(dashed);
  });

  it('--scopes must be scopes the contract asks for', async () => {
    const known = [...new Set(Object.values(operationTable).flatMap((o) => o.security.flatMap((r) => [...r.scopes])))].sort();
    expectUsageError(await admin(['issue', '--scopes', 'minds:read,minds:admin'], env), new RegExp(`unknown minds:admin \\(the contract knows ${known.join(', ')}\\)`));
    const run = await admin(['issue', '--scopes', known.join(',')], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).scopes).toEqual(known);
  });
});

describe('the admin API refuses cleanly', { timeout: 60_000 }, () => {
  it('an unknown organization or project is a 404 naming it, not a foreign-key message', async () => {
    for (const args of [
      ['issue', '--org', 'org_nope'],
      ['agent', 'create', '--org', 'org_nope'],
    ]) {
      const run = await admin(args, env);
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe('gateway-admin: 404: no organization org_nope');
    }
    const org = JSON.parse((await admin(['org', 'create', '--name', 'Acme'], env)).stdout) as { organization_id: string };
    const project = await admin(['issue', '--org', org.organization_id, '--project', 'prj_nope'], env);
    expect(project.stderr.trim()).toBe(`gateway-admin: 404: no project prj_nope in organization ${org.organization_id}`);
    const agent = await admin(['issue', '--kind', 'agent_token', '--org', org.organization_id, '--agent', 'a_nope'], env);
    expect(agent.stderr.trim()).toBe(`gateway-admin: 404: no agent a_nope in organization ${org.organization_id}`);
  });

  it('enforces the scope and thumbprint rules itself, whoever calls it', async () => {
    const call = (body: unknown) =>
      fetch(`${harness.gateway.adminUrl}/admin/credentials`, {
        method: 'POST',
        headers: { authorization: `Bearer ${harness.gateway.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const scopes = await call({ kind: 'bridge_session', scopes: ['everything'] });
    expect(scopes.status).toBe(400);
    expect(((await scopes.json()) as { error: string }).error).toMatch(/^unknown scopes: everything/);
    const jkt = await call({ kind: 'agent_token', dpop_jkt: 'x'.repeat(44) });
    expect(jkt.status).toBe(400);
    const organization = await call({ kind: 'api_key', organization_id: 'org_nope' });
    expect(organization.status).toBe(404);
  });

  it('agent create answers in snake_case like every other admin answer', async () => {
    const { organization_id } = JSON.parse((await admin(['org', 'create'], env)).stdout) as { organization_id: string };
    const run = await admin(['agent', 'create', '--org', organization_id], env);
    expect(run.code, run.stderr).toBe(0);
    const agent = JSON.parse(run.stdout) as Record<string, string>;
    expect(Object.keys(agent).sort()).toEqual(['created_at', 'did', 'id', 'organization_id']);
    expect(agent.organization_id).toBe(organization_id);
    expect(new Date(agent.created_at!).toISOString()).toBe(agent.created_at);
  });
});

describe('a stopped gateway', { timeout: 60_000 }, () => {
  it('removes its admin-url record, so the command does not send the token to a port it no longer holds', async () => {
    const own = await startHarness();
    const file = join(own.dataDir, 'admin-url');
    expect(existsSync(file)).toBe(true);
    await own.gateway.close();
    expect(existsSync(file)).toBe(false);
    rmSync(own.dataDir, { recursive: true, force: true });
  }, 120_000);
});
