/**
 * Migrations: applied at open, in version order, each exactly once, each in its own transaction;
 * concurrent openers on PostgreSQL serialize on an advisory lock.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, readMigrations } from '../src/index.js';
import { addMigrations, cleanUp, drivers, migrationsDir, postgresUrl, target, uniqueSchema } from './support/db.js';

afterAll(cleanUp);

/** Each migration appends its version to a log, so a second application would show up as a duplicate. */
const initial = {
  '0001_create_things.sql': `
    CREATE TABLE migration_log (version integer NOT NULL);
    CREATE TABLE things (id bigint PRIMARY KEY, label text NOT NULL);
    INSERT INTO migration_log VALUES (1);`,
  // Depends on 0001 having run first.
  '0002_add_colour.sql': `
    ALTER TABLE things ADD COLUMN colour text;
    INSERT INTO migration_log VALUES (2);`,
};

interface Applied {
  version: number;
  name: string;
  applied_at: Date;
}

describe.each(drivers)('migrations on %s', (driver) => {
  it('applies pending migrations once, in order, into the schema', async () => {
    const where = target(driver);
    const dir = migrationsDir(initial);

    const db = await where.open({ migrationsDir: dir });
    const first = await db.query<Applied>('SELECT version, name, applied_at FROM schema_migrations ORDER BY version');
    expect(first.rows.map((row) => [row.version, row.name])).toEqual([
      [1, 'create_things'],
      [2, 'add_colour'],
    ]);
    expect(first.rows[0]!.applied_at).toBeInstanceOf(Date);
    // The tables live in the service's schema, found through search_path.
    const located = await db.query<{ schema: string }>(
      `SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'things'`,
    );
    expect(located.rows.map((row) => row.schema)).toContain(where.schema);
    await db.query(`INSERT INTO things (id, label, colour) VALUES (1, 'one', 'red')`);
    await db.close();

    // Reopen: nothing new to apply.
    const again = await where.open({ migrationsDir: dir });
    expect((await again.query<Applied>('SELECT version, name, applied_at FROM schema_migrations ORDER BY version')).rows).toEqual(
      first.rows,
    );
    expect((await again.query('SELECT version FROM migration_log ORDER BY version')).rows).toEqual([{ version: 1 }, { version: 2 }]);
    await again.close();

    // A new file: only it is applied, and the data survives.
    addMigrations(dir, { '0003_add_size.sql': 'ALTER TABLE things ADD COLUMN size integer; INSERT INTO migration_log VALUES (3);' });
    const third = await where.open({ migrationsDir: dir });
    expect((await third.query('SELECT version FROM migration_log ORDER BY version')).rows).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
    ]);
    const kept = await third.query<Applied>('SELECT version, name, applied_at FROM schema_migrations ORDER BY version');
    expect(kept.rows.slice(0, 2)).toEqual(first.rows);
    expect(kept.rows[2]).toMatchObject({ version: 3, name: 'add_size' });
    expect((await third.query('SELECT id, label, colour, size FROM things')).rows).toEqual([
      { id: 1, label: 'one', colour: 'red', size: null },
    ]);
    await third.close();
  });

  it('rolls a failing migration back entirely and refuses to open', async () => {
    const where = target(driver);
    const dir = migrationsDir({
      '0001_ok.sql': 'CREATE TABLE kept (id integer);',
      '0002_broken.sql': 'CREATE TABLE half (id integer); SELECT no_such_function();',
    });
    await expect(where.open({ migrationsDir: dir })).rejects.toThrow(/0002_broken\.sql failed: .*no_such_function/);

    // Fix the file: 0001 stays applied, 0002 runs from scratch (its half-made table was rolled back).
    addMigrations(dir, { '0002_broken.sql': 'CREATE TABLE half (id integer);' });
    const db = await where.open({ migrationsDir: dir });
    expect((await db.query('SELECT version FROM schema_migrations ORDER BY version')).rows).toEqual([{ version: 1 }, { version: 2 }]);
    await db.close();
  });

  it('refuses a renamed applied migration and one numbered below the latest applied', async () => {
    const where = target(driver);
    const dir = migrationsDir({ '0001_a.sql': 'SELECT 1;', '0003_c.sql': 'SELECT 1;' });
    await (await where.open({ migrationsDir: dir })).close();

    await expect(where.open({ migrationsDir: migrationsDir({ '0001_other.sql': 'SELECT 1;' }) })).rejects.toThrow(
      /version 1 was applied as "a"/,
    );
    addMigrations(dir, { '0002_b.sql': 'SELECT 1;' });
    await expect(where.open({ migrationsDir: dir })).rejects.toThrow(/0002_b\.sql is older than the latest applied version 3/);
  });
});

describe('migration files', () => {
  it('are ordered by number and must be well named and unique', () => {
    const dir = migrationsDir({ '0010_ten.sql': '', '0002_two.sql': '', 'README.md': 'ignored' });
    expect(readMigrations(dir).map((m) => m.file)).toEqual(['0002_two.sql', '0010_ten.sql']);
    expect(() => readMigrations(migrationsDir({ 'init.sql': '' }))).toThrow(/name must look like 0001_/);
    expect(() => readMigrations(migrationsDir({ '0001_a.sql': '', '01_b.sql': '' }))).toThrow(/share version 1/);
  });
});

describe.runIf(postgresUrl)('concurrent openers on postgres', () => {
  it('apply each migration exactly once', async () => {
    const where = target('postgres');
    const dir = migrationsDir({
      ...initial,
      // Slow enough that the openers really overlap.
      '0003_slow.sql': 'SELECT pg_sleep(0.3); INSERT INTO migration_log VALUES (3);',
    });
    const openers = await Promise.all(Array.from({ length: 6 }, () => where.open({ migrationsDir: dir, poolSize: 2 })));
    const db = openers[0]!;
    expect((await db.query('SELECT version FROM migration_log ORDER BY version')).rows).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
    ]);
    expect((await db.query('SELECT count(*) AS n FROM schema_migrations')).rows).toEqual([{ n: 3 }]);
    await Promise.all(openers.map((opened) => opened.close()));
  });

  it('keeps two services apart in one database', async () => {
    const gateway = uniqueSchema();
    const minds = uniqueSchema();
    const a = await openDatabase({ url: postgresUrl, schema: gateway, migrationsDir: migrationsDir(initial) });
    const b = await openDatabase({ url: postgresUrl, schema: minds, migrationsDir: migrationsDir({ '0001_x.sql': 'CREATE TABLE things (name text);' }) });
    try {
      await a.query(`INSERT INTO things (id, label) VALUES (1, 'gateway')`);
      await b.query(`INSERT INTO things (name) VALUES ('minds')`);
      expect((await a.query('SELECT label FROM things')).rows).toEqual([{ label: 'gateway' }]);
      expect((await b.query('SELECT name FROM things')).rows).toEqual([{ name: 'minds' }]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
