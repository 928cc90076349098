/**
 * The real stack for benchmarks on a fresh data directory (PGlite, or PostgreSQL with
 * DATABASE_URL): the Minds service and the gateway as separate built programs (startStack), or
 * both in one process as npm start runs them (startAllInOne); plus helpers to get credentials and a
 * ready Mind through the public API.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { operationPath } from '@gateway-minds/contract';
import { assertionKeyFiles, ensureAssertionKeys, HEALTH_PATH } from '@gateway-minds/service-kit';
import { CREATION_CONTEXT_HEADER, IDEMPOTENCY_HEADER } from '@gateway-minds/minds/internals';
import { freePorts, repoRoot, startProgram, stop } from './processes.js';

export interface Stack {
  gatewayUrl: string;
  adminUrl: string;
  dataDir: string;
  /** The gateway's process and the Minds service's: one and the same in the all-in-one topology. */
  gateway: ChildProcess;
  minds: ChildProcess;
  issue(kind: string, options?: Record<string, unknown>): Promise<{ token: string; id: string }>;
  close(): Promise<void>;
}

/** The Minds service as every bench stack runs it: a fast simulated host, both default-off admissions on. */
const mindsBenchSettings = {
  MINDS_HOST_PROVISION_MS: '50',
  MINDS_HOST_STOP_MS: '50',
  MINDS_OWNER_MANAGEMENT_ENABLED: 'true',
  MINDS_AGENT_MEMORY_ENABLED: 'true',
};

/** A started stack's handle: its URLs, and credentials through its admin listener (whose token is in the data directory). */
function stackHandle(dataDir: string, ports: { gateway: number; admin: number }, processes: { gateway: ChildProcess; minds: ChildProcess }, close: () => Promise<void>): Stack {
  const adminUrl = `http://127.0.0.1:${ports.admin}`;
  const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  return {
    gatewayUrl: `http://127.0.0.1:${ports.gateway}`,
    adminUrl,
    dataDir,
    ...processes,
    issue: (kind, extra = {}) => issueCredential(adminUrl, adminToken, kind, extra),
    close,
  };
}

/** A stack's data directory, for a process that must read the stack's files before it starts. */
export function newStackDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'bench-stack-'));
}

/**
 * `databaseUrl` puts both services on PostgreSQL, each in a throwaway schema
 * dropped on close; without it each keeps PGlite in the data directory.
 */
export async function startStack(options: { env?: Record<string, string>; mindsUrl?: string; databaseUrl?: string; dataDir?: string } = {}): Promise<Stack> {
  const dataDir = options.dataDir ?? newStackDataDir();
  await ensureAssertionKeys(assertionKeyFiles(dataDir));
  const [gatewayPort, adminPort, mindsPort] = (await freePorts(3)) as [number, number, number];
  const common = { DATA_DIR: dataDir, NODE_ENV: 'production', ...options.env };
  const schemaPrefix = `bench_${randomUUID().slice(0, 8)}`;
  const database = (service: string): Record<string, string> =>
    options.databaseUrl ? { DATABASE_URL: options.databaseUrl, DATABASE_SCHEMA: `${schemaPrefix}_${service}` } : {};
  const minds = await startProgram(join(repoRoot, 'apps/minds/dist/main.js'), {
    ...common,
    ...database('minds'),
    PORT: String(mindsPort),
    IAM_INTERNAL_URL: `http://127.0.0.1:${adminPort}`,
    ...mindsBenchSettings,
  }, `http://127.0.0.1:${mindsPort}${HEALTH_PATH}`);
  const gateway = await startProgram(join(repoRoot, 'apps/gateway/dist/main.js'), {
    ...common,
    ...database('gateway'),
    PORT: String(gatewayPort),
    ADMIN_PORT: String(adminPort),
    MINDS_URL: options.mindsUrl ?? `http://127.0.0.1:${mindsPort}`,
    RATE_LIMIT_POINTS: '100000000',
  }, `http://127.0.0.1:${gatewayPort}${operationPath('gateway_getStatus')}`);
  return stackHandle(dataDir, { gateway: gatewayPort, admin: adminPort }, { gateway, minds }, async () => {
    await stop(gateway);
    await stop(minds);
    rmSync(dataDir, { recursive: true, force: true });
    if (options.databaseUrl) await dropSchemas(options.databaseUrl, schemaPrefix);
  });
}

/**
 * The stack as `npm start` runs it by default: the gateway and the Minds service in one process
 * (apps/stack/dist/start.js, STACK_TOPOLOGY=all-in-one), forwarding over the in-process transport.
 * Both services read one environment there, so on PostgreSQL they share a throwaway database
 * (each in its default schema), dropped on close.
 */
export async function startAllInOne(options: { env?: Record<string, string>; databaseUrl?: string } = {}): Promise<Stack> {
  const dataDir = newStackDataDir();
  const [gatewayPort, adminPort] = (await freePorts(2)) as [number, number];
  const database = options.databaseUrl ? await throwawayDatabase(options.databaseUrl) : undefined;
  const stack = await startProgram(join(repoRoot, 'apps/stack/dist/start.js'), {
    DATA_DIR: dataDir,
    NODE_ENV: 'production',
    STACK_TOPOLOGY: 'all-in-one',
    STACK_BANNER: 'off',
    PORT: String(gatewayPort),
    ADMIN_PORT: String(adminPort),
    RATE_LIMIT_POINTS: '100000000',
    ...mindsBenchSettings,
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  }, `http://127.0.0.1:${gatewayPort}${operationPath('gateway_getStatus')}`);
  // One process is both the gateway's and the service's.
  return stackHandle(dataDir, { gateway: gatewayPort, admin: adminPort }, { gateway: stack, minds: stack }, async () => {
    await stop(stack);
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });
}

async function throwawayDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `bench_${randomUUID().slice(0, 8)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function issueCredential(adminUrl: string, adminToken: string, kind: string, extra: Record<string, unknown>): Promise<{ token: string; id: string }> {
  const response = await fetch(`${adminUrl}/admin/credentials`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ kind, ...extra }),
  });
  if (!response.ok) throw new Error(`issue ${kind}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { token: string; id: string };
}

async function dropSchemas(url: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const service of ['gateway', 'minds']) await client.query(`DROP SCHEMA IF EXISTS ${prefix}_${service} CASCADE`);
  } finally {
    await client.end();
  }
}

async function call(base: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await response.json()) as any;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Creates a Mind through the public API and waits until it is ready. */
export async function readyMind(stack: Stack, token: string): Promise<string> {
  const list = await call(stack.gatewayUrl, token, 'GET', operationPath('minds_listMinds'));
  const created = await call(stack.gatewayUrl, token, 'POST', operationPath('minds_createMind'), { name: 'Sandbox bench' }, {
    [IDEMPOTENCY_HEADER]: randomUUID(),
    [CREATION_CONTEXT_HEADER]: list.context_sha256,
  });
  for (let i = 0; i < 400; i++) {
    const mind = await call(stack.gatewayUrl, token, 'GET', operationPath('minds_getMind', { mind_id: created.mind_id }));
    if (mind.status === 'ready') return created.mind_id as string;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the Mind did not become ready');
}

const words = ['garden', 'river', 'invoice', 'meeting', 'deploy', 'kernel', 'orchid', 'budget', 'tensor', 'harbor', 'quartz', 'lantern', 'violet', 'canyon', 'sprocket', 'meadow'];

/** A deterministic sentence for event i: search terms recur with known frequencies. */
export function sentence(i: number): string {
  const pick = (k: number) => words[(i * 7 + k * 13 + Math.floor(i / (k + 1))) % words.length];
  return `Event ${i}: the ${pick(1)} near the ${pick(2)} needed a ${pick(3)} before the ${pick(4)} review.`;
}

export { call };
