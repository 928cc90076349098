/**
 * Both drivers prepare a parameterised statement once (per PostgreSQL connection, per PGlite
 * backend) and reuse it; `planEachCall` keeps a statement unnamed; a statement whose result columns
 * changed under it is prepared again; values of every kind travel as `pg` sends them. On PostgreSQL
 * a named statement's result columns are described on its first call on a connection only.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { Database, Queryable } from '../src/index.js';
import { typeParsers } from '../src/parsers.js';
import { DescribedOnceQuery } from '../src/postgres-statements.js';
import { cleanUp, drivers, migrationsDir, postgresUrl, target, uniqueSchema } from './support/db.js';

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

  it('fails only the call whose value cannot be sent, in a transaction too, and runs the statement after', async () => {
    const sql = 'SELECT id FROM items WHERE label = $1';
    // pg's prepareValue sends an object as JSON: a BigInt inside cannot be.
    const unsendable = { n: 1n };
    expect((await db.query(sql, ['a'])).rows).toEqual([{ id: 1 }]);
    await expect(db.query(sql, [unsendable])).rejects.toThrow(/BigInt/);
    expect((await db.query(sql, ['a'])).rows).toEqual([{ id: 1 }]);
    await expect(db.transaction((tx) => tx.query(sql, [unsendable]))).rejects.toThrow(/BigInt/);
    // With one connection, this runs where the failed call ran.
    expect((await db.query(sql, ['b'])).rows).toEqual([{ id: 2 }]);
    expect((await db.transaction((tx) => tx.query(sql, ['a']))).rows).toEqual([{ id: 1 }]);
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

describe.runIf(postgresUrl)('statements described once per connection on postgres', () => {
  // One raw connection, so the row descriptions the server sends it can be counted.
  let client: pg.Client;
  let schemaName: string;
  let descriptions = 0;
  beforeAll(async () => {
    schemaName = uniqueSchema();
    client = new pg.Client({ connectionString: postgresUrl, types: typeParsers() });
    await client.connect();
    await client.query(`CREATE SCHEMA ${schemaName}; SET search_path = ${schemaName};
      CREATE TABLE rows (id integer PRIMARY KEY, label text, doc jsonb, at timestamptz, big bigint, day date);
      INSERT INTO rows VALUES (1, 'a', '{"k": [1]}', '2026-11-25T01:00:00.5Z', 9007199254740991, '2026-11-25'), (2, NULL, NULL, NULL, NULL, NULL);`);
    (client as unknown as { connection: { on(event: string, listener: () => void): void } }).connection.on('rowDescription', () => {
      descriptions += 1;
    });
    return () => client.end();
  });

  function call(name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      const query = new DescribedOnceQuery({ name, text, values });
      (client as unknown as { query(q: unknown, cb: (e: Error | null, r: pg.QueryResult) => void): void }).query(query, (error, result) =>
        error ? reject(error) : resolve(result),
      );
    });
  }

  it('describes a statement on its first call only, and reads every later row by that description', async () => {
    const sql = 'SELECT * FROM rows WHERE id = $1';
    const before = descriptions;
    const first = await call('by_id', sql, [1]);
    const expected = { id: 1, label: 'a', doc: { k: [1] }, at: new Date('2026-11-25T01:00:00.5Z'), big: 2 ** 53 - 1, day: '2026-11-25' };
    expect(first.rows).toEqual([expected]);
    expect((await call('by_id', sql, [1])).rows).toEqual([expected]);
    expect((await call('by_id', sql, [2])).rows).toEqual([{ id: 2, label: null, doc: null, at: null, big: null, day: null }]);
    expect((await call('by_id', sql, [3])).rows).toEqual([]);
    expect(descriptions - before).toBe(1);
  });

  it('describes again after a call the server refused (as it refuses a statement left stale by DDL)', async () => {
    const sql = 'SELECT label FROM rows WHERE id = $1';
    const before = descriptions;
    expect((await call('label_by_id', sql, ['1'])).rows).toEqual([{ label: 'a' }]);
    await expect(call('label_by_id', sql, ['one'])).rejects.toMatchObject({ code: '22P02' });
    expect((await call('label_by_id', sql, ['1'])).rows).toEqual([{ label: 'a' }]);
    expect((await call('label_by_id', sql, ['2'])).rows).toEqual([{ label: null }]);
    expect(descriptions - before).toBe(2);
  });

  it('fails only the call whose value cannot be sent, and keeps its statement prepared', async () => {
    const sql = 'SELECT id FROM rows WHERE label = $1';
    expect((await call('by_label', sql, ['a'])).rows).toEqual([{ id: 1 }]);
    const unsendable = {
      toPostgres() {
        throw new Error('cannot be sent');
      },
    };
    await expect(call('by_label', sql, [unsendable])).rejects.toThrow('cannot be sent');
    // The statement stays prepared on the connection (pg's own Query closed it on the server while
    // still counting it as prepared: the next call failed with 26000).
    expect((await call('by_label', sql, ['a'])).rows).toEqual([{ id: 1 }]);
    const { rows } = await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
    expect(rows.map((row) => row.name)).toContain('by_label');
  });
});
