/**
 * A deployment of two gateways and two Minds processes on one PostgreSQL database, as a deployer
 * runs one across machines: each process is the built entry point (`node apps/gateway/dist/main.js`,
 * `node apps/minds/dist/main.js`, as npm start's processes topology starts them) with the settings
 * it documents, a data directory of its own, and nothing in front of the gateways.
 *
 * Shared by every replica: the database (DATABASE_URL, one DATABASE_SCHEMA for the gateways and one
 * for the Minds processes, fresh per deployment and dropped on close), the assertion key pair (the
 * gateways sign with ASSERTION_PRIVATE_KEY_FILE, the Minds processes verify with
 * ASSERTION_PUBLIC_KEY_FILE), the admin token (ADMIN_TOKEN) and the rate-limit store
 * (RATE_LIMIT_STORE=postgres); with `redisUrl`, Redis (REDIS_URL).
 *
 * Every gateway forwards to every Minds process (MINDS_URL, a list) and every Minds process asks
 * every gateway for agents (IAM_INTERNAL_URL, a list): no load balancer in between.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { operationPath } from '@gateway-minds/contract';
import { applicationName } from '@gateway-minds/db';
import { assertionKeyFiles, ensureAssertionKeys } from '@gateway-minds/service-kit';
import { HEALTH_PATH } from '@gateway-minds/service-kit/side-routes';
import { adminClient, withFreePorts, type AdminClient } from '@gateway-minds/testkit';

const require = createRequire(import.meta.url);

/** A workspace's runnable main, beside its package entry (dist/index.js), as apps/stack starts it. */
function mainOf(workspace: string): string {
  return join(dirname(require.resolve(workspace)), 'main.js');
}

/** The admin command `npm run admin` runs (apps/gateway/bin/gateway-admin.js). */
export const adminCommand = join(dirname(require.resolve('@gateway-minds/gateway')), '../bin/gateway-admin.js');

export const replicaNames = ['a', 'b'] as const;

export interface DeploymentOptions {
  /** Settings every gateway gets beyond the deployment's own (RATE_LIMIT_POINTS...). */
  gatewayEnv?: Record<string, string>;
  /** Settings every Minds process gets beyond the deployment's own. */
  mindsEnv?: Record<string, string>;
  /**
   * REDIS_URL of every gateway (the DPoP replay store; the rate limit stays in PostgreSQL). Redis
   * keys carry no per-deployment prefix yet: a test that uses it makes keys of its own (fresh
   * credentials, fresh proofs).
   */
  redisUrl?: string;
}

/** MINDS_URL of every gateway and IAM_INTERNAL_URL of every Minds process: every replica of the other kind. */
export function upstreamSettings(urls: { minds: string[]; gatewayAdmin: string[] }): { MINDS_URL: string; IAM_INTERNAL_URL: string } {
  return { MINDS_URL: urls.minds.join(','), IAM_INTERNAL_URL: urls.gatewayAdmin.join(',') };
}

/** One process of the deployment: started from its entry point, killed and started again on the same port and settings. */
export class ServiceProcess {
  #child: ChildProcess | undefined;
  #output = '';

  constructor(
    readonly name: string,
    readonly main: string,
    /** The URL it answers on (its public listener). */
    readonly url: string,
    readonly env: Record<string, string>,
    /** What answers 200 once it serves: the Minds service's health route, the gateway's error catalog (it has no health route of its own). */
    readonly readyPath: string,
  ) {}

  /** The process id while it runs (to find its connections, its sockets). */
  get pid(): number | undefined {
    return this.running ? this.#child!.pid : undefined;
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** The last of what it printed (warnings and errors: LOG_LEVEL=warn), for a failure's message. */
  output(): string {
    return this.#output;
  }

  /** Starts it and waits until it serves; rejects with its output if it exits first. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    const child = spawn(process.execPath, [this.main], { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    const keep = (chunk: Buffer) => {
      this.#output = (this.#output + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) => reject(new Error(`${this.name} exited (${signal ?? code}) before it answered ${this.readyPath}:\n${this.#output}`))),
    );
    exited.catch(() => {});
    const healthy = (async () => {
      for (let attempt = 0; attempt < 1200; attempt++) {
        if (!this.running) return;
        try {
          if ((await fetch(this.url + this.readyPath)).ok) return;
        } catch {
          // not listening yet
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`${this.name} did not answer ${this.readyPath} within a minute:\n${this.#output}`);
    })();
    await Promise.race([healthy, exited]);
  }

  /** Sends `signal` and waits for the process to be gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.#child;
    if (!child || !this.running) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await gone;
  }
}

export interface Deployment {
  gateways: ServiceProcess[];
  minds: ServiceProcess[];
  /** Each gateway's admin listener, in the order of `gateways`. */
  gatewayAdminUrls: string[];
  /** The one admin token of every gateway (ADMIN_TOKEN). */
  adminToken: string;
  /** The admin API through gateway A (credentials, agents, organizations). */
  admin: AdminClient;
  databaseUrl: string;
  schemas: { gateway: string; minds: string };
  /** The application_name of each schema's connections (@gateway-minds/db). */
  applicationNames: { gateway: string; minds: string };
  /** A query on the deployment's database through a connection of the suite's own. */
  sql<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

const processes = new Set<ServiceProcess>();
// A test run that ends without close (a crash, a timeout) leaves no service running.
process.once('exit', () => {
  for (const service of processes) if (service.running) void service.stop('SIGKILL');
});

export async function startDeployment(databaseUrl: string, options: DeploymentOptions = {}): Promise<Deployment> {
  const root = mkdtempSync(join(tmpdir(), 'gateway-minds-scale-out-'));
  const keys = assertionKeyFiles(join(root, 'shared'));
  await ensureAssertionKeys(keys);
  const suffix = randomBytes(5).toString('hex');
  const schemas = { gateway: `scale_out_gateway_${suffix}`, minds: `scale_out_minds_${suffix}` };
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const admin = new pg.Client({ connectionString: databaseUrl, application_name: `scale-out-suite:${suffix}` });
  await admin.connect();
  const sql = async <Row>(text: string, values?: unknown[]) => (await admin.query(text, values)).rows as Row[];
  const dropEverything = async () => {
    for (const schema of Object.values(schemas)) await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
    rmSync(root, { recursive: true, force: true });
  };

  const baseEnv = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
  };
  try {
    return await withFreePorts(6, async (ports) => {
      const [gatewayA, gatewayB, adminA, adminB, mindsA, mindsB] = ports as [number, number, number, number, number, number];
      const urls = {
        gateway: [gatewayA, gatewayB].map((port) => `http://127.0.0.1:${port}`),
        gatewayAdmin: [adminA, adminB].map((port) => `http://127.0.0.1:${port}`),
        minds: [mindsA, mindsB].map((port) => `http://127.0.0.1:${port}`),
      };
      const dataDir = (name: string) => {
        const dir = join(root, name);
        mkdirSync(dir, { recursive: true });
        return dir;
      };
      const gateways = replicaNames.map((replica, index) => {
        const { MINDS_URL } = upstreamSettings(urls);
        return new ServiceProcess(`gateway ${replica.toUpperCase()}`, mainOf('@gateway-minds/gateway'), urls.gateway[index]!, {
          ...baseEnv,
          PORT: String(ports[index]),
          ADMIN_PORT: String(ports[index + 2]),
          DATA_DIR: dataDir(`gateway-${replica}`),
          DATABASE_SCHEMA: schemas.gateway,
          MINDS_URL,
          ASSERTION_PRIVATE_KEY_FILE: keys.privateKeyFile,
          ADMIN_TOKEN: adminToken,
          RATE_LIMIT_STORE: 'postgres',
          ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
          // The reference site is the deployment's one public address: gateway A's here.
          // One public address for the deployment, as behind one host name: a DPoP proof names it (htu)
          // whichever gateway takes the request.
          PUBLIC_BASE_URL: urls.gateway[0]!,
          DOCS_BASE_URL: `${urls.gateway[0]}/docs`,
          ...options.gatewayEnv,
        }, operationPath('gateway_listErrors'));
      });
      const minds = replicaNames.map((replica, index) => {
        const { IAM_INTERNAL_URL } = upstreamSettings(urls);
        return new ServiceProcess(`Minds ${replica.toUpperCase()}`, mainOf('@gateway-minds/minds'), urls.minds[index]!, {
          ...baseEnv,
          PORT: String(ports[index + 4]),
          DATA_DIR: dataDir(`minds-${replica}`),
          DATABASE_SCHEMA: schemas.minds,
          IAM_INTERNAL_URL,
          ASSERTION_PUBLIC_KEY_FILE: keys.publicKeyFile,
          DOCS_BASE_URL: `${urls.gateway[0]}/docs`,
          // Both default-off admissions on, and a fast simulated host, as the testkit's stack.
          MINDS_OWNER_MANAGEMENT_ENABLED: 'true',
          MINDS_AGENT_MEMORY_ENABLED: 'true',
          MINDS_HOST_PROVISION_MS: '300',
          MINDS_HOST_STOP_MS: '200',
          ...options.mindsEnv,
        }, HEALTH_PATH);
      });
      const all = [...gateways, ...minds];
      all.forEach((service) => processes.add(service));
      try {
        // All at once, as replicas of a deployment come up: migrations and the first organization are theirs to agree on.
        await Promise.all(all.map((service) => service.start()));
      } catch (error) {
        await Promise.all(all.map((service) => service.stop('SIGKILL')));
        all.forEach((service) => processes.delete(service));
        throw error;
      }
      return {
        gateways,
        minds,
        gatewayAdminUrls: urls.gatewayAdmin,
        adminToken,
        admin: adminClient(urls.gatewayAdmin[0]!, adminToken),
        databaseUrl,
        schemas,
        applicationNames: { gateway: applicationName(schemas.gateway), minds: applicationName(schemas.minds) },
        sql,
        async close() {
          await Promise.all(all.map((service) => service.stop()));
          all.forEach((service) => processes.delete(service));
          await dropEverything();
        },
      };
    });
  } catch (error) {
    await dropEverything();
    throw error;
  }
}
