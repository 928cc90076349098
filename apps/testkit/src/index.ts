/**
 * The real stack for end-to-end tests of the client, CLI and MCP server:
 * the gateway (`startGateway`) and the Minds service (`createMindsService`)
 * in this process, wired as `npm start` wires them (the gateway forwards /v1/minds
 * to the service; the service looks agents up on the gateway's admin
 * listener) with both default-off admissions on and a fast simulated host.
 * Credentials are issued through the real admin API.
 *
 * Topology, as npm start's STACK_TOPOLOGY (the `topology` option, else that
 * variable, else all-in-one): all-in-one forwards over the in-process
 * transport npm start uses by default; processes gives the Minds service a TCP
 * listener of its own and forwards over loopback, as separate processes do.
 *
 * Databases: with TEST_DATABASE_URL (as CI sets it), each service gets a
 * fresh schema on that PostgreSQL server, dropped on close. Without it, each
 * gets its own PGlite directory, which the service makes by copying the empty
 * cluster @gateway-minds/db's build initialised (as `npm start` does).
 *
 * Ports: `withFreePorts` starts anything on ports picked free, and again on
 * new ones when a port was taken before it was bound (the stack, and the
 * programs the stack, README, mock and MSW suites spawn).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig, startGateway, type Gateway } from '@gateway-minds/gateway';
import type { MindsService } from '@gateway-minds/minds';
import { assertionKeyFiles, ensureAssertionKeys, type Connector, type CredentialKind, type Logger } from '@gateway-minds/service-kit';

export { call, type Answer, type CallOptions } from './http.js';

export interface IssuedCredential {
  id: string;
  token: string;
  kind: CredentialKind;
  organization_id: string;
  project_id: string | null;
  agent_id: string | null;
}

/** npm start's topologies (apps/stack settings.ts): how the gateway reaches the Minds service. */
export const topologies = ['all-in-one', 'processes'] as const;
export type Topology = (typeof topologies)[number];

/** The topology a suite runs against: STACK_TOPOLOGY (as npm start reads it), else npm start's default. */
export function defaultTopology(): Topology {
  const chosen = process.env.STACK_TOPOLOGY || 'all-in-one';
  if (!(topologies as readonly string[]).includes(chosen)) throw new Error(`STACK_TOPOLOGY must be one of ${topologies.join(', ')}, got ${chosen}`);
  return chosen as Topology;
}

export interface StackOptions {
  /** How the gateway reaches the Minds service (default: defaultTopology()). */
  topology?: Topology;
  /** Start the Minds service (default true). Without it the gateway reports it down and answers 502. */
  minds?: boolean;
  /** Extra gateway environment (DPOP_REQUIRE_NONCE, RATE_LIMIT_POINTS...). */
  gatewayEnv?: Record<string, string>;
  /** Extra Minds environment. */
  mindsEnv?: Record<string, string>;
  /** With topology processes: the port the Minds service tries first (default: one free when the stack starts); if it is taken by then, another. */
  mindsPort?: number;
  /** Where the gateway and the Minds service log (silent by default under vitest): a test reads what they logged. */
  loggers?: { gateway?: Logger; minds?: Logger };
  /**
   * A PostgreSQL database of the test's own for both services, instead of TEST_DATABASE_URL's (a
   * test that makes its database unavailable). The test owns it: its schemas are not dropped on close.
   */
  databaseUrl?: string;
}

export interface Stack {
  /** The gateway's public URL: what clients call. */
  url: string;
  adminUrl: string;
  dataDir: string;
  gateway: Gateway;
  /** Whether the Minds service runs behind the gateway. */
  minds: boolean;
  topology: Topology;
  /** On PostgreSQL (TEST_DATABASE_URL), each service's schema: its connections are named by it (`applicationName` of @gateway-minds/db). */
  schemas: { gateway: string; minds: string } | null;
  admin<T = Record<string, unknown>>(path: string, body: unknown): Promise<T>;
  /** A credential through POST /admin/credentials (kind, scopes, dpop_jkt, agent_id, sandbox...). */
  issue(kind: CredentialKind, options?: Record<string, unknown>): Promise<IssuedCredential>;
  /** A new agent in the default organization. */
  createAgent(): Promise<{ id: string; did: string }>;
  /** Stops the Minds service alone (a relay fault: the gateway can no longer reach it). */
  stopMinds(): Promise<void>;
  close(): Promise<void>;
}

/** The admin API of one gateway (its admin listener's URL and the admin token): what Stack offers, for a gateway started some other way. */
export interface AdminClient {
  admin<T = Record<string, unknown>>(path: string, body: unknown): Promise<T>;
  /** A credential through POST /admin/credentials (kind, scopes, dpop_jkt, agent_id, sandbox...). */
  issue(kind: CredentialKind, options?: Record<string, unknown>): Promise<IssuedCredential>;
  /** The organization and project the gateway seeded ("Development"). */
  defaults(): Promise<{ organization_id: string; project_id: string }>;
  /** A new agent in the default organization. */
  createAgent(): Promise<{ id: string; did: string }>;
}

/** An admin call the gateway refused: its status tells a caller whether trying again can help (503). */
export class AdminRequestError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    readonly body: unknown,
    readonly headers: Headers,
  ) {
    super(`admin ${path}: ${status} ${JSON.stringify(body)}`);
  }
}

export function adminClient(adminUrl: string, adminToken: string): AdminClient {
  const admin = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(adminUrl + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as T;
    if (!response.ok) throw new AdminRequestError(path, response.status, json, response.headers);
    return json;
  };
  const defaults = async () => {
    const response = await fetch(`${adminUrl}/admin/defaults`, { headers: { authorization: `Bearer ${adminToken}` } });
    if (!response.ok) throw new Error(`admin /admin/defaults: ${response.status}`);
    return (await response.json()) as { organization_id: string; project_id: string };
  };
  return {
    admin,
    defaults,
    issue: (kind, extra = {}) => admin<IssuedCredential>('/admin/credentials', { kind, ...extra }),
    async createAgent() {
      const { organization_id } = await defaults();
      return admin<{ id: string; did: string }>('/admin/agents', { organization_id });
    },
  };
}

/** A port nothing listens on right now, on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/** `count` different ports nothing listens on right now, on 127.0.0.1 (held together while picked, so none repeats). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** Whether a start failed on a port taken: a listen's own error, or a spawned program's output quoted in the message. */
function portTaken(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE' || /EADDRINUSE/.test(error instanceof Error ? error.message : String(error));
}

/**
 * Runs `start` on `count` ports that are free when it is called, and again on new ones (three
 * tries in all) when it fails because one was taken before the program bound it. Between the pick
 * and the bind, a listener or an outgoing connection of a suite running alongside can take the
 * port (CI saw `listen EADDRINUSE` once). `start` must leave nothing running when it fails.
 * `firstTry` gives the ports of the first try.
 */
export async function withFreePorts<T>(count: number, start: (ports: number[]) => Promise<T>, firstTry?: number[]): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(attempt === 1 && firstTry ? firstTry : await freePorts(count));
    } catch (error) {
      if (!portTaken(error) || attempt === 3) throw error;
    }
  }
}

/**
 * The gateway must know the Minds URL before it starts, and the Minds service needs the gateway's
 * admin URL, so the Minds port is picked first and bound seconds later: through withFreePorts.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  return withFreePorts(1, ([mindsPort]) => startStackOnce(options, mindsPort!), options.mindsPort ? [options.mindsPort] : undefined);
}

async function startStackOnce(options: StackOptions, mindsPort: number): Promise<Stack> {
  const withMinds = options.minds !== false;
  const topology = options.topology ?? defaultTopology();
  // All in one: the gateway's connections to the service open in memory, once the service exists.
  let serviceStarted: (service: MindsService) => void = () => {};
  let serviceFailed: (error: Error) => void = () => {};
  const inProcessService = new Promise<MindsService>((resolve, reject) => {
    serviceStarted = resolve;
    serviceFailed = reject;
  });
  inProcessService.catch(() => {});
  const inProcess = topology === 'all-in-one' && withMinds;
  const connect: Connector = (connectOptions, callback) => {
    inProcessService.then(
      (service) => service.serveInProcess().connect(connectOptions, callback),
      (error: Error) => callback(error, null),
    );
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-minds-e2e-'));
  const keys = assertionKeyFiles(dataDir);
  await ensureAssertionKeys(keys);

  const databaseUrl = options.databaseUrl ?? (process.env.TEST_DATABASE_URL || undefined);
  const suffix = randomBytes(5).toString('hex');
  const schemas = { gateway: `gateway_e2e_${suffix}`, minds: `minds_e2e_${suffix}` };
  const dropSchemas = async () => {
    if (!databaseUrl || options.databaseUrl) return;
    const client = new pg.Client(databaseUrl);
    await client.connect();
    try {
      for (const schema of Object.values(schemas)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await client.end();
    }
  };

  const gatewayConfig = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    ADMIN_PORT: '0',
    MINDS_URL: inProcess ? 'http://minds.in-process' : `http://127.0.0.1:${mindsPort}`,
    NODE_ENV: 'test',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schemas.gateway } : {}),
    ...options.gatewayEnv,
  });
  if (inProcess) gatewayConfig.upstreams = gatewayConfig.upstreams.map((upstream) => (upstream.name === 'minds' ? { ...upstream, connect } : upstream));
  const gateway = await startGateway(gatewayConfig, options.loggers?.gateway);
  let closeMinds = async () => {};
  try {
    if (withMinds) {
      const { configFromEnv, createMindsService } = await import('@gateway-minds/minds');
      const { service } = configFromEnv({
        DATA_DIR: dataDir,
        ASSERTION_PUBLIC_KEY_FILE: keys.publicKeyFile,
        IAM_INTERNAL_URL: gateway.adminUrl,
        DOCS_BASE_URL: gateway.docsBaseUrl,
        MINDS_OWNER_MANAGEMENT_ENABLED: 'true',
        MINDS_AGENT_MEMORY_ENABLED: 'true',
        MINDS_HOST_PROVISION_MS: '300',
        MINDS_HOST_STOP_MS: '200',
        ...options.mindsEnv,
      });
      const minds = await createMindsService({ ...service, ...(options.loggers?.minds ? { logger: options.loggers.minds } : {}), ...(databaseUrl ? { databaseUrl, schema: schemas.minds } : {}) });
      closeMinds = () => minds.close();
      if (inProcess) serviceStarted(minds);
      else await minds.listen(mindsPort, '127.0.0.1');
    }
  } catch (error) {
    serviceFailed(error as Error);
    await closeMinds();
    await gateway.close();
    await dropSchemas();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  gateway.probe.invalidate();

  const { admin, issue, createAgent } = adminClient(gateway.adminUrl, gateway.adminToken);

  return {
    url: gateway.url,
    adminUrl: gateway.adminUrl,
    dataDir,
    gateway,
    minds: withMinds,
    topology,
    schemas: databaseUrl ? schemas : null,
    admin,
    issue,
    createAgent,
    stopMinds: () => closeMinds(),
    async close() {
      await closeMinds();
      await gateway.close();
      await dropSchemas();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
