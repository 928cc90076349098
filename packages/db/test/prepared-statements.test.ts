/**
 * Both drivers prepare a parameterised statement once (per PostgreSQL connection, per PGlite
 * backend) and reuse it; `planEachCall` keeps a statement unnamed; a statement whose result columns
 * changed under it is prepared again; values of every kind travel as `pg` sends them.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../src/index.js';
import { cleanUp, drivers, migrationsDir, target } from './support/db.js';

afterAll(cleanUp);

const schema = {
  '0001_init.sql': `
    CREATE TABLE items (id integer PRIMARY KEY, label text NOT NULL);
    INSERT INTO items VALUES (1, 'a'), (2, 'b');
    CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL);
    CREATE TABLE counts (id integer PRIMARY KEY, n integer NOT NULL);
    INSERT INTO counts VALUES (1, 7);
    CREATE TABLE kinds (id integer PRIMARY KEY, tags text[], doc jsonb, raw bytea, at timestamptz, flag boolean, big bigint);`,
};

/** The statements prepared on the connection `on` runs on. */
async function prepared(on: Queryable): Promise<string[]> {
  const { rows } = await on.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
  return rows.map((row) => row.statement);
}

const hostile = [
  "'); DROP TABLE notes; --",
  "\\'; DROP TABLE notes; --",
  "''''",
  '$1 $2 $$ $tag$',
  '-- not a comment',
  '/* not a comment */',
  'back\\slash \\x00 \\n',
  'emoji 🤖 and ünïcödé and 中文',
  '"double" `tick`',
  ' ',
  '',
];

describe.each(drivers)('prepared statements on %s', (driver) => {
  let db: Database;
  beforeAll(async () => {
    // One PostgreSQL connection, so that every call meets the statements the previous ones prepared.
    db = await target(driver).open({ migrationsDir: migrationsDir(schema), poolSize: 1 });
    return () => db.close();
  });

  it('prepares a parameterised statement once and reuses it', async () => {
    const sql = 'SELECT label FROM items WHERE id = $1';
    expect((await db.query(sql, [1])).rows).toEqual([{ label: 'a' }]);
    expect((await db.query(sql, [2])).rows).toEqual([{ label: 'b' }]);
    await db.transaction(async (tx) => expect((await tx.query(sql, [1])).rows).toEqual([{ label: 'a' }]));
    expect((await prepared(db)).filter((text) => text === sql)).toHaveLength(1);
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

  it('takes one statement per query, with or without parameters (exec takes several)', async () => {
    await expect(db.query('SELECT 1; SELECT 2')).rejects.toMatchObject({ code: '42601' });
    await expect(db.query('SELECT 1; SELECT 2', [], { planEachCall: true })).rejects.toMatchObject({ code: '42601' });
    await db.exec('SELECT 1; SELECT 2');
    expect((await db.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
  });

  it('does not keep a statement that failed to parse, and reports the error', async () => {
    const sql = 'SELECT no_such_column FROM items WHERE id = $1';
    await expect(db.query(sql, [1])).rejects.toMatchObject({ code: '42703' });
    await expect(db.query(sql, [1])).rejects.toMatchObject({ code: '42703' });
    expect(await prepared(db)).not.toContain(sql);
  });

  it('answers a statement whose result columns changed since it was prepared', async () => {
    const sql = 'SELECT * FROM items WHERE id = $1';
    expect((await db.query(sql, [1])).rows).toEqual([{ id: 1, label: 'a' }]);
    expect(await prepared(db)).toContain(sql);
    await db.exec('ALTER TABLE items ADD COLUMN note text');
    expect((await db.query(sql, [1])).rows).toEqual([{ id: 1, label: 'a', note: null }]);
    expect((await db.query(sql, [2])).rows).toEqual([{ id: 2, label: 'b', note: null }]);
  });

  it('reads its rows by the columns it was described with, also when its first call failed', async () => {
    // PGlite describes a statement's columns once; a first call refused at bind describes nothing.
    const sql = 'SELECT $1::integer + 1 AS next, label FROM items WHERE id = 1';
    await expect(db.query(sql, ['not a number'])).rejects.toMatchObject({ code: '22P02' });
    expect((await db.query(sql, [1])).rows).toEqual([{ next: 2, label: 'a' }]);
    expect((await db.query(sql, [2])).rows).toEqual([{ next: 3, label: 'a' }]);
  });

  it('reads a column by its new type after the type changed under the prepared statement', async () => {
    const sql = 'SELECT n FROM counts WHERE id = $1';
    expect((await db.query(sql, [1])).rows).toEqual([{ n: 7 }]);
    expect((await db.query(sql, [1])).rows).toEqual([{ n: 7 }]);
    await db.exec('ALTER TABLE counts ALTER COLUMN n TYPE text');
    expect((await db.query(sql, [1])).rows).toEqual([{ n: '7' }]);
    expect((await db.query(sql, [1])).rows).toEqual([{ n: '7' }]);
  });

  it('fails a transaction that meets a stale statement once, then prepares it again', async () => {
    const sql = 'SELECT * FROM items WHERE id = $1 AND id > 0';
    await db.transaction(async (tx) => expect((await tx.query(sql, [2])).rows).toHaveLength(1));
    await db.exec('ALTER TABLE items ADD COLUMN extra integer');
    await expect(db.transaction((tx) => tx.query(sql, [2]))).rejects.toMatchObject({ code: '0A000' });
    expect((await db.transaction((tx) => tx.query(sql, [2]))).rows).toEqual([{ id: 2, label: 'b', note: null, extra: null }]);
  });

  it('stores and finds every hostile string as sent, and runs nothing it carries', async () => {
    for (const [id, body] of hostile.entries()) {
      expect((await db.query('INSERT INTO notes (id, body) VALUES ($1, $2)', [id, body])).rowCount).toBe(1);
    }
    const { rows } = await db.query<{ id: number; body: string }>('SELECT id, body FROM notes ORDER BY id');
    expect(rows.map((r) => r.body)).toEqual(hostile);
    for (const body of hostile) {
      expect((await db.query<{ id: number }>('SELECT id FROM notes WHERE body = $1', [body])).rows).toHaveLength(1);
    }
    expect((await db.query('UPDATE notes SET body = $1 WHERE id = $2', ['x', 999])).rowCount).toBe(0);
  });

  it('sends arrays, JSON text, bytes, instants, booleans, big integers and nulls as pg does', async () => {
    const at = new Date('2026-11-22T07:30:00.123Z');
    const values = [1, ['a', 'b,c', 'd"e', null], JSON.stringify({ k: [1, 'two'] }), Buffer.from([0, 1, 255]), at, true, 2 ** 53 - 1];
    await db.query('INSERT INTO kinds (id, tags, doc, raw, at, flag, big) VALUES ($1, $2, $3, $4, $5, $6, $7)', values);
    await db.query('INSERT INTO kinds (id, tags, doc, raw, at, flag, big) VALUES ($1, $2, $3, $4, $5, $6, $7)', [2, null, null, null, null, null, null]);
    const { rows } = await db.query('SELECT * FROM kinds ORDER BY id');
    expect(rows).toEqual([
      { id: 1, tags: ['a', 'b,c', 'd"e', null], doc: { k: [1, 'two'] }, raw: Buffer.from([0, 1, 255]), at, flag: true, big: 2 ** 53 - 1 },
      { id: 2, tags: null, doc: null, raw: null, at: null, flag: null, big: null },
    ]);
  });
});

describe('statements on pglite', () => {
  let db: Database;
  beforeAll(async () => {
    db = await target('pglite').open({ migrationsDir: migrationsDir(schema) });
    return () => db.close();
  });

  it('keeps nothing of the statements it has run', async () => {
    // PGlite's execProtocolRaw keeps every reply message it parsed until the next execProtocol
    // call; the driver must not leave them behind (it retained 4 KB per such query).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const sql = 'SELECT id, label, repeat(label, 400) AS padding FROM items WHERE id >= $1';
    await db.query(sql, [0]);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 5000; i++) await db.query(sql, [0]);
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(2 * 2 ** 20);
  });
});
