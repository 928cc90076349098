/**
 * For test suites and benchmarks (`@gateway-minds/db/testing`): a PostgreSQL database of a test's
 * own that it may make unavailable. (A fresh PGlite directory needs nothing: opening an empty one
 * copies the cluster the build initialised.)
 */
import { randomBytes } from 'node:crypto';

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
