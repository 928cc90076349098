/**
 * Real processes for the durability and soak runs: the Minds service as a
 * child process (`node apps/minds/dist/main.js`, configured only through its
 * environment, as in production), the gateway either in this process
 * (startGateway) or as a child too, and a database per run: PGlite
 * directories copied from the shared initialised template, or a throwaway
 * PostgreSQL database on TEST_DATABASE_URL's server (dropped whole, with FORCE,
 * even when a killed process left connections behind).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '@gateway-minds/db';
import { loadConfig, startGateway, type Gateway } from '@gateway-minds/gateway';
import { configFromEnv, migrationsDir as mindsMigrations } from '@gateway-minds/minds';
import { assertionKeyFiles, ensureAssertionKeys } from '@gateway-minds/service-kit';
import { freePort } from '@gateway-minds/testkit';

const require = createRequire(import.meta.url);
/** A workspace package's runnable main: dist/main.js beside its dist/index.js entry. */
export const mainOf = (workspace: string): string => join(dirname(require.resolve(workspace)), 'main.js');

/** PGlite's directory lock is taken over once this old (packages/db; the Minds service keeps the default). */
export const PGLITE_LOCK_STALE_MS = 10_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export { freePort };

export type Driver = 'pglite' | 'postgres';

export interface RunStorage {
  driver: Driver;
  dataDir: string;
  /** Environment for the Minds process and the gateway. */
  mindsEnv: Record<string, string>;
  gatewayEnv: Record<string, string>;
  /** Opens the Minds database directly (with PGlite: only while no Minds process holds it). */
  openMindsDb(): Promise<Database>;
  /** Where the Minds PGlite directory is (its lock is `<dir>.lock`). */
  mindsPgliteDir: string;
  dispose(): Promise<void>;
}

/** A data directory with the assertion key pair, and the databases for one run. */
export async function prepareStorage(driver: Driver, label: string): Promise<RunStorage> {
  const dataDir = mkdtempSync(join(tmpdir(), `gateway-minds-${label}-`));
  await ensureAssertionKeys(assertionKeyFiles(dataDir));
  const mindsPgliteDir = configFromEnv({ DATA_DIR: dataDir }).service.dataDir!;
  if (driver === 'pglite') {
    return {
      driver,
      dataDir,
      mindsEnv: {},
      gatewayEnv: {},
      mindsPgliteDir,
      openMindsDb: () => openDatabase({ dataDir: mindsPgliteDir, schema: 'minds', migrationsDir: mindsMigrations }),
      async dispose() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('the postgres driver needs TEST_DATABASE_URL');
  const database = `gm_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client(serverUrl);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  return {
    driver,
    dataDir,
    mindsEnv: { DATABASE_URL: databaseUrl },
    gatewayEnv: { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: 'gateway' },
    mindsPgliteDir,
    openMindsDb: () => openDatabase({ url: databaseUrl, schema: 'minds', migrationsDir: mindsMigrations, poolSize: 2 }),
    async dispose() {
      const client = new pg.Client(serverUrl);
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The gateway in this process, forwarding /v1/minds to `mindsPort`. */
export async function startGatewayFor(storage: RunStorage, mindsPort: number, extra: Record<string, string> = {}): Promise<Gateway> {
  return startGateway(
    loadConfig({
      DATA_DIR: storage.dataDir,
      PORT: '0',
      ADMIN_PORT: '0',
      HOST: '127.0.0.1',
      MINDS_URL: `http://127.0.0.1:${mindsPort}`,
      NODE_ENV: 'test',
      RATE_LIMIT_POINTS: '100000000',
      ...storage.gatewayEnv,
      ...extra,
    }),
  );
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    return response.ok;
  } catch {
    return false;
  }
}

export interface StartReport {
  /** From the call to the service answering /healthz. */
  ms: number;
  /** Processes started (more than one when a PGlite directory was still locked). */
  attempts: number;
}

/** A service run as `node <main>` with its environment; started, killed and restarted on the same port. */
export class ServiceProcess {
  child: ChildProcess | undefined;
  /** The last output lines, for a failure message. */
  readonly output: string[] = [];

  constructor(
    readonly name: string,
    readonly main: string,
    readonly port: number,
    readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  #spawn(): ChildProcess {
    const child = spawn(process.execPath, [this.main], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', LOG_LEVEL: 'warn', ...this.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      this.output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (this.output.length > 200) this.output.splice(0, this.output.length - 200);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.child = child;
    return child;
  }

  /**
   * Starts the process and waits for `healthPath`. A start refused because a PGlite directory is still
   * locked by a killed predecessor is retried until `timeoutMs`.
   */
  async start(healthPath = '/healthz', timeoutMs = 40_000): Promise<StartReport> {
    const started = Date.now();
    let attempts = 0;
    while (Date.now() - started < timeoutMs) {
      attempts++;
      const child = this.#spawn();
      let exited = false;
      child.once('exit', () => (exited = true));
      while (!exited && Date.now() - started < timeoutMs) {
        if (await healthy(this.url + healthPath)) return { ms: Date.now() - started, attempts };
        await sleep(50);
      }
      if (!exited) break;
      const locked = this.output.some((line) => line.includes('is in use by another process'));
      if (!locked) throw new Error(`${this.name} exited at start (code ${child.exitCode}):\n${this.output.slice(-20).join('\n')}`);
      this.output.length = 0;
      await sleep(500);
    }
    await this.stop();
    throw new Error(`${this.name} did not become healthy within ${timeoutMs} ms:\n${this.output.slice(-20).join('\n')}`);
  }

  async #exit(signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = sleep(timeoutMs).then(() => 'timeout' as const);
    if ((await Promise.race([exited, timer])) === 'timeout') {
      child.kill('SIGKILL');
      await exited;
    }
  }

  /** kill -9: no shutdown handler runs. */
  kill(): Promise<void> {
    return this.#exit('SIGKILL', 5_000);
  }

  /** SIGTERM: the service closes its database and releases its lock. */
  stop(): Promise<void> {
    return this.#exit('SIGTERM', 10_000);
  }

  /** Resident memory in bytes (Linux /proc), or undefined. */
  rss(): number | undefined {
    return rssOf(this.pid);
  }
}

export function rssOf(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Waits until a PGlite directory lock left by a killed process is stale enough to be taken over. */
export async function waitForStaleLock(dir: string, staleMs = PGLITE_LOCK_STALE_MS): Promise<number> {
  const lock = `${dir}.lock`;
  if (!existsSync(lock)) return 0;
  const mtime = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
  if (mtime === undefined) return 0;
  const wait = Math.max(0, mtime + staleMs + 200 - Date.now());
  await sleep(wait);
  return wait;
}

/** The Minds service as a child process behind `gatewayAdminUrl`, with a fast simulated host. */
export function mindsProcess(storage: RunStorage, port: number, gatewayAdminUrl: string, extra: Record<string, string> = {}): ServiceProcess {
  return new ServiceProcess('minds', mainOf('@gateway-minds/minds'), port, {
    DATA_DIR: storage.dataDir,
    ASSERTION_PUBLIC_KEY_FILE: assertionKeyFiles(storage.dataDir).publicKeyFile,
    IAM_INTERNAL_URL: gatewayAdminUrl,
    DOCS_BASE_URL: 'http://127.0.0.1/docs',
    MINDS_OWNER_MANAGEMENT_ENABLED: 'true',
    MINDS_AGENT_MEMORY_ENABLED: 'true',
    MINDS_HOST_PROVISION_MS: '200',
    MINDS_HOST_STOP_MS: '150',
    ...storage.mindsEnv,
    ...extra,
  });
}
