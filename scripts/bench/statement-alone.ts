/**
 * The forwarded read's statement with nothing around it: the Minds schema (its own migrations
 * and planner costs), 1,000 Minds of one tenant, and the service's own read of getMind
 * (`mindViewReader`), run 10 at a time (as the bench's 10 connections) in this process, so the
 * reads gather into shared statements as the service gathers reads that arrive together. Its CPU per read
 * (on PostgreSQL, the server processes of its own connections too) is the least a getMind can cost
 * in its database, so added to the read through the gateway without a database it is a floor under
 * the forwarded read: lower than the truth, since inside a busy server the statement shares the
 * caches with HTTP (what it measured before reads were gathered: bench/README.md).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applicationName, openDatabase, type Database } from '@gateway-minds/db';
import { DEFAULT_REGION, MINDS_PAGE_COST, migrationsDir, deriveStatus, MIND_SERVICES, resolveCapacity, mindViewReader, type Tenant } from '@gateway-minds/minds/internals';
import { cpuMs } from './figures.js';

export interface StatementAlone {
  driver: 'PGlite' | 'PostgreSQL';
  /** CPU µs per read: this process, plus its connections' server processes on PostgreSQL. */
  measure(reads: number): Promise<number>;
  close(): Promise<void>;
}

const tenant: Tenant = { org: 'org_bench', project: 'prj_bench' };
const concurrency = 10;

export async function openStatementAlone(databaseUrl?: string): Promise<StatementAlone> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-statement-'));
  const schema = `bench_statement_${randomUUID().slice(0, 8)}`;
  // Opened as the service opens it (search.ts does the same).
  const common = { migrationsDir, pageCost: MINDS_PAGE_COST };
  const db: Database = await openDatabase(databaseUrl ? { ...common, url: databaseUrl, schema } : { ...common, dataDir, schema: 'minds' });
  const ids = Array.from({ length: 1_000 }, () => randomUUID());
  // A ready Mind of the default plan, with the plan, capacity, services and status the service would give it.
  const { plan, capacity } = resolveCapacity(undefined, undefined);
  for (const [i, id] of ids.entries()) {
    await db.query(
      `INSERT INTO minds (mind_id, organization_id, project_id, created_by, name, region, plan, profile_id, cpus, memory_mb, volume_size_gb,
         services, volume_id, base_url, desired_state, desired_generation, observed_state, observed_generation, status, created_at, updated_at)
       VALUES ($1, $2, $3, 'usr_bench', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'running', 1, 'running', 1, $14, now(), now())`,
      [
        id, tenant.org, tenant.project, `Mind ${i}`, DEFAULT_REGION, plan, capacity.profile_id, capacity.cpus, capacity.memory_mb, capacity.volume_size_gb,
        JSON.stringify(MIND_SERVICES), randomUUID(), `https://${id}.minds.example`, deriveStatus('running', 'running', 1, 1),
      ],
    );
  }
  // As autovacuum (PostgreSQL) and AutoAnalyze (PGlite) would have by now. Without statistics,
  // PostgreSQL's generic plan took minds_by_tenant (organization, project, created_at, mind_id) and
  // walked all the tenant's Minds in it: the server processes spent 89 µs per read, 39 with them.
  await db.query('ANALYZE minds');
  const readMindView = mindViewReader(db);
  const read = (i: number) => readMindView({ tenant, mindId: ids[i % ids.length]! });
  // Each window follows a warm-up on every connection of the pool: statements prepared, code hot.
  const readAll = async (reads: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < reads) if (!(await read(next++))) throw new Error('a Mind of the table was not found');
      }),
    );
  };
  // Only its own connections' server processes: the host's other postgres processes (autovacuum,
  // the stacks' backends) are not this statement's cost, and a floor must not be raised by them.
  // Looked up before each window: the pool closes connections left idle between rounds (pg's
  // idleTimeoutMillis) and opens new ones, where the statement is prepared again.
  const ownBackends = async () =>
    databaseUrl ? (await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [applicationName(schema)])).rows.map((row) => row.pid) : [];
  const backendsCpuMs = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  return {
    driver: databaseUrl ? 'PostgreSQL' : 'PGlite',
    async measure(reads) {
      await readAll(2_000);
      const backends = await ownBackends();
      const cpuBefore = process.cpuUsage();
      const backendsBefore = backendsCpuMs(backends);
      await readAll(reads);
      const used = process.cpuUsage(cpuBefore);
      const postgresUs = (backendsCpuMs(backends) - backendsBefore) * 1000;
      return (used.user + used.system + postgresUs) / reads;
    },
    async close() {
      if (databaseUrl) await db.query(`DROP SCHEMA ${schema} CASCADE`);
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
