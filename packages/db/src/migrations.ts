import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One connection's worth of SQL: migrations run on a single session so a lock taken on it covers them. */
export interface MigrationConnection {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  exec(sql: string): Promise<unknown>;
}

export interface MigrationTarget extends MigrationConnection {
  transaction<T>(fn: (tx: MigrationConnection) => Promise<T>): Promise<T>;
}

export interface Migration {
  version: number;
  name: string;
  file: string;
}

const fileName = /^(\d+)_([A-Za-z0-9_-]+)\.sql$/;

/** The *.sql files of dir in version order. A misnamed .sql file or a repeated version is an error, not skipped. */
export function readMigrations(dir: string): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.sql'))) {
    const match = fileName.exec(file);
    if (!match) throw new Error(`migration ${join(dir, file)}: name must look like 0001_create_things.sql`);
    const migration = { version: Number(match[1]), name: match[2]!, file };
    const clash = migrations.find((other) => other.version === migration.version);
    if (clash) throw new Error(`migrations ${clash.file} and ${file} in ${dir} share version ${migration.version}`);
    migrations.push(migration);
  }
  return migrations.sort((a, b) => a.version - b.version);
}

/**
 * Creates the schema and its schema_migrations table, then applies the migrations not yet recorded
 * there, in order, each with its record in one transaction. The caller serializes concurrent runs.
 * Returns the migrations it applied.
 */
export async function migrate(target: MigrationTarget, schema: string, dir: string): Promise<Migration[]> {
  const migrations = readMigrations(dir);
  const table = `"${schema}".schema_migrations`;
  await target.exec(`
    CREATE SCHEMA IF NOT EXISTS "${schema}";
    CREATE TABLE IF NOT EXISTS ${table} (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    );
  `);
  const { rows } = await target.query(`SELECT version, name FROM ${table}`);
  const applied = new Map((rows as { version: number; name: string }[]).map((row) => [row.version, row.name]));
  const latest = Math.max(0, ...applied.keys());

  const pending: Migration[] = [];
  for (const migration of migrations) {
    const appliedName = applied.get(migration.version);
    if (appliedName !== undefined) {
      // Two branches that both added, say, 0005 would otherwise leave one of them silently unapplied.
      if (appliedName !== migration.name) {
        throw new Error(`migration ${migration.file}: version ${migration.version} was applied as "${appliedName}"`);
      }
      continue;
    }
    if (migration.version < latest) {
      throw new Error(`migration ${migration.file} is older than the latest applied version ${latest}: renumber it`);
    }
    pending.push(migration);
  }

  for (const migration of pending) {
    const sql = readFileSync(join(dir, migration.file), 'utf8');
    try {
      await target.transaction(async (tx) => {
        await tx.exec(sql);
        await tx.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      });
    } catch (error) {
      throw new Error(`migration ${join(dir, migration.file)} failed: ${(error as Error).message}`, { cause: error });
    }
  }
  return pending;
}
