/**
 * PostgreSQL: parameterised statements are prepared once per connection and reused; `planEachCall`
 * keeps a statement unnamed; a statement left stale by another process's migration is recovered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { Database, Queryable } from '../src/index.js';
import { cleanUp, migrationsDir, postgresUrl, target, type Target } from './support/db.js';

afterAll(cleanUp);

const schema = {
  '0001_init.sql': `
    CREATE TABLE items (id integer PRIMARY KEY, label text NOT NULL);
    INSERT INTO items VALUES (1, 'a'), (2, 'b');`,
};

/** The statements prepared on the connection `on` runs on. */
async function prepared(on: Queryable): Promise<string[]> {
  const { rows } = await on.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements', undefined);
  return rows.map((row) => row.statement);
}

describe.skipIf(!postgresUrl)('prepared statements on postgres', () => {
  let db: Database;
  let where: Target;
  beforeAll(async () => {
    where = target('postgres');
    // One connection, so that every call meets the statements the previous ones prepared.
    db = await where.open({ migrationsDir: migrationsDir(schema), poolSize: 1 });
    return () => db.close();
  });

  it('prepares a parameterised statement once per connection and reuses it', async () => {
    const sql = 'SELECT label FROM items WHERE id = $1';
    expect((await db.query(sql, [1])).rows).toEqual([{ label: 'a' }]);
    expect((await db.query(sql, [2])).rows).toEqual([{ label: 'b' }]);
    const statements = await prepared(db);
    expect(statements.filter((text) => text === sql)).toHaveLength(1);
  });

  it('prepares nothing for a statement planned on every call', async () => {
    const sql = 'SELECT label FROM items WHERE id = $1 AND label <> $2';
    expect((await db.query(sql, [1, 'z'], { planEachCall: true })).rows).toEqual([{ label: 'a' }]);
    await db.transaction(async (tx) => {
      expect((await tx.query(sql, [2, 'z'], { planEachCall: true })).rows).toEqual([{ label: 'b' }]);
      expect(await prepared(tx)).not.toContain(sql);
    });
    expect(await prepared(db)).not.toContain(sql);
  });

  it('answers a statement whose result columns another process changed, and drops the stale connection', async () => {
    const sql = 'SELECT * FROM items WHERE id = $1';
    expect((await db.query(sql, [1])).rows).toEqual([{ id: 1, label: 'a' }]);
    expect(await prepared(db)).toContain(sql);
    // Another replica migrates: the prepared statement's result type no longer holds.
    const other = new pg.Client({ connectionString: postgresUrl });
    await other.connect();
    try {
      await other.query(`ALTER TABLE "${where.schema}".items ADD COLUMN note text`);
    } finally {
      await other.end();
    }
    expect((await db.query(sql, [1])).rows).toEqual([{ id: 1, label: 'a', note: null }]);
    expect(await prepared(db)).not.toContain(sql);
  });

  it('fails a transaction that meets a stale statement, and does not reuse its connection', async () => {
    const sql = 'SELECT * FROM items WHERE id = $1 AND id > 0';
    await db.transaction(async (tx) => {
      expect((await tx.query(sql, [2])).rows).toHaveLength(1);
    });
    expect(await prepared(db)).toContain(sql);
    await db.exec('ALTER TABLE items ADD COLUMN extra integer');
    await expect(db.transaction((tx) => tx.query(sql, [2]))).rejects.toMatchObject({ code: '0A000' });
    // The next caller gets a new connection: the statement is prepared afresh, for the new columns.
    expect(await prepared(db)).not.toContain(sql);
    expect((await db.transaction((tx) => tx.query(sql, [2]))).rows).toEqual([{ id: 2, label: 'b', note: null, extra: null }]);
  });
});
