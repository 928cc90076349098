/**
 * For test suites and benchmarks (`@gateway-minds/db/testing`): a PGlite template (initdb inside
 * PGlite takes seconds, a copy of an initialised directory a fraction of one), and a PostgreSQL
 * database of a test's own that it may make unavailable.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';

/**
 * An initdb'd PGlite data directory, made once per machine and PGlite version
 * in the system's temporary directory and shared by every suite: copy it, never
 * open it. Concurrent callers wait for the one that builds it.
 */
export async function pgliteTemplate(): Promise<string> {
  const require = createRequire(import.meta.url);
  const packageFile = join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  const version = existsSync(packageFile) ? (JSON.parse(readFileSync(packageFile, 'utf8')) as { version: string }).version : 'unknown';
  const template = join(tmpdir(), `gateway-minds-pglite-template-${version}`);
  const lock = `${template}.lock`;
  while (!existsSync(template)) {
    try {
      mkdirSync(lock);
    } catch {
      // Another suite is making it; a lock older than two minutes is left over from a killed run.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 120_000) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
      continue;
    }
    try {
      if (existsSync(template)) break;
      // Built beside and renamed into place, so a half-built template is never seen.
      const building = `${template}.${randomBytes(4).toString('hex')}`;
      const db = await PGlite.create({ dataDir: building });
      await db.close();
      renameSync(building, template);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return template;
}

/**
 * A database of its own on a PostgreSQL server, owned by a login role of its own that is not a
 * superuser, for a test that changes the database itself (makes it refuse connections, read-only,
 * or limits its connections): the shared database and every other test stay untouched. Superusers
 * are exempt from connection limits, hence the role. `drop()` removes both, whatever state the
 * test left the database in.
 */
export interface ThrowawayDatabase {
  /** The database's name, which is also its owner's. */
  name: string;
  /** Connects as the owning role. */
  url: string;
  /** Runs one statement as the server's administrator (the role of the URL it was made with), from the administrator's database. */
  admin(sql: string): Promise<void>;
  /** Terminates every session connected to this database, as an administrator or a fast shutdown would. */
  terminateSessions(): Promise<number>;
  drop(): Promise<void>;
}

export async function throwawayDatabase(adminUrl: string, prefix = 'gm_throwaway'): Promise<ThrowawayDatabase> {
  const { default: pg } = await import('pg');
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = async <Row extends Record<string, unknown>>(sql: string): Promise<Row[]> => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return (await client.query<Row>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE ROLE "${name}" LOGIN`);
  await admin(`CREATE DATABASE "${name}" OWNER "${name}"`);
  const url = new URL(adminUrl);
  url.username = name;
  url.password = '';
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    admin: async (sql) => {
      await admin(sql);
    },
    terminateSessions: async () => (await admin<{ pid: number }>(`SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE datname = '${name}'`)).length,
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin(`DROP ROLE IF EXISTS "${name}"`);
    },
  };
}
