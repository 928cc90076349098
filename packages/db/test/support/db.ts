/** Helpers the db tests share: the drivers under test, fresh data directories and schemas, migration folders. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase, type Database, type OpenDatabaseOptions } from '../../src/index.js';

export const packageDir = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const postgresUrl = process.env.TEST_DATABASE_URL || undefined;

export type DriverName = 'pglite' | 'postgres';
/** PGlite always; PostgreSQL when TEST_DATABASE_URL names a server. */
export const drivers: DriverName[] = postgresUrl ? ['pglite', 'postgres'] : ['pglite'];

const scratch: string[] = [];

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `db-test-${prefix}-`));
  scratch.push(dir);
  return dir;
}

/** Where a new PGlite data directory goes (opening it makes it, from the built empty cluster). */
export function freshDataDir(): string {
  return join(tempDir('pgdata'), 'pgdata');
}

const schemasToDrop: string[] = [];

/** A schema name no other test file or run uses; cleanUp() drops it from the PostgreSQL server. */
export function uniqueSchema(): string {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  schemasToDrop.push(schema);
  return schema;
}

/** A migrations folder holding files: { '0001_init.sql': 'CREATE TABLE ...' }. */
export function migrationsDir(files: Record<string, string>): string {
  const dir = join(tempDir('migrations'), 'migrations');
  mkdirSync(dir);
  addMigrations(dir, files);
  return dir;
}

export function addMigrations(dir: string, files: Record<string, string>): void {
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
}

/**
 * Where one test's database lives: a fresh PGlite directory, or a fresh schema on the PostgreSQL
 * server (so parallel test files and runs never meet). open() can be called again to reopen it.
 */
export interface Target {
  driver: DriverName;
  schema: string;
  connection: Pick<OpenDatabaseOptions, 'url' | 'dataDir'>;
  open(options: { migrationsDir: string } & Partial<OpenDatabaseOptions>): Promise<Database>;
}

export function target(driver: DriverName): Target {
  const schema = driver === 'postgres' ? uniqueSchema() : 'gateway';
  const connection = driver === 'postgres' ? { url: postgresUrl } : { dataDir: freshDataDir() };
  return {
    driver,
    schema,
    connection,
    open: (options) => openDatabase({ schema, ...connection, ...options }),
  };
}

/** afterAll: drop the test schemas on the server and delete scratch directories. */
export async function cleanUp(): Promise<void> {
  if (postgresUrl && schemasToDrop.length > 0) {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      for (const schema of schemasToDrop.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await client.end();
    }
  }
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}
