/** Result types: the same row reads the same from PGlite and from PostgreSQL. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/index.js';
import { cleanUp, drivers, migrationsDir, postgresUrl, target, type DriverName } from './support/db.js';

afterAll(cleanUp);

const schema = {
  '0001_samples.sql': `
    CREATE TABLE samples (
      id bigint PRIMARY KEY,
      amount numeric(12, 2) NOT NULL,
      ratio numeric NOT NULL,
      at timestamptz NOT NULL,
      day date NOT NULL,
      doc jsonb NOT NULL,
      raw json NOT NULL,
      bytes bytea NOT NULL,
      ids bigint[] NOT NULL,
      prices numeric[] NOT NULL,
      flag boolean NOT NULL,
      small integer NOT NULL,
      real_number double precision NOT NULL,
      uid uuid NOT NULL
    );`,
};

const at = new Date('2024-03-01T12:34:56.789Z');
const doc = { name: 'mind', tags: ['a', 'b'], nested: { n: 1, none: null } };

/** One sample row inserted with parameters, read back with the aggregates and casts services use. */
async function sample(db: Database) {
  const insert = await db.query(
    `INSERT INTO samples VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      9007199254740991, // Number.MAX_SAFE_INTEGER
      '1234.50',
      0.125,
      at,
      '2024-02-29',
      JSON.stringify(doc),
      JSON.stringify([1, 'two']),
      Buffer.from([0, 1, 254, 255]),
      '{1,2,3}',
      '{1.5,2.25}',
      true,
      42,
      2.5,
      '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b',
    ],
  );
  const select = await db.query(`
    SELECT s.*, (SELECT count(*) FROM samples) AS total, sum(amount) OVER () AS sum_amount, avg(small) OVER () AS avg_small
    FROM samples s`);
  const update = await db.query('UPDATE samples SET flag = false');
  const none = await db.query('SELECT 1 WHERE false');
  const ddl = await db.query('CREATE TABLE scratch (x integer)');
  return { row: select.rows[0], rowCounts: [insert.rowCount, select.rowCount, update.rowCount, none.rowCount, ddl.rowCount] };
}

const expected = {
  row: {
    id: 9007199254740991,
    amount: 1234.5,
    ratio: 0.125,
    at,
    day: '2024-02-29',
    doc,
    raw: [1, 'two'],
    bytes: Buffer.from([0, 1, 254, 255]),
    ids: [1, 2, 3],
    prices: [1.5, 2.25],
    flag: true,
    small: 42,
    real_number: 2.5,
    uid: '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b',
    total: 1,
    sum_amount: 1234.5,
    avg_small: 42,
  },
  rowCounts: [1, 1, 1, 0, 0],
};

const seen = new Map<DriverName, unknown>();

describe.each(drivers)('types on %s', (driver) => {
  let db: Database;
  beforeAll(async () => {
    db = await target(driver).open({ migrationsDir: migrationsDir(schema) });
    return () => db.close();
  });

  it('come back as numbers, Dates, parsed JSON, date strings and Buffers', async () => {
    const result = await sample(db);
    expect(result).toEqual(expected);
    expect(result.row!.at).toBeInstanceOf(Date);
    expect(Buffer.isBuffer(result.row!.bytes)).toBe(true);
    seen.set(driver, result);
  });

  it('refuse an int8 beyond Number.MAX_SAFE_INTEGER instead of rounding it', async () => {
    await expect(db.query('SELECT 9007199254740992::int8 AS n')).rejects.toThrow(/outside JavaScript's safe integer range/);
    await expect(db.query(`SELECT '{1,9007199254740993}'::int8[] AS n`)).rejects.toThrow(RangeError);
    expect((await db.query(`SELECT 9007199254740993::int8::text AS n`)).rows).toEqual([{ n: '9007199254740993' }]);
    // The database stays usable after the refusal, in and out of transactions.
    expect((await db.query('SELECT -9007199254740991::int8 AS n')).rows).toEqual([{ n: -9007199254740991 }]);
    await expect(db.transaction((tx) => tx.query('SELECT (2 ^ 60)::numeric::int8 AS n'))).rejects.toThrow(RangeError);
    expect(await db.transaction(async (tx) => (await tx.query('SELECT 1::int8 AS n')).rows)).toEqual([{ n: 1 }]);
  });
});

describe.runIf(postgresUrl)('types across drivers', () => {
  it('are identical on PGlite and PostgreSQL', () => {
    expect(seen.get('pglite')).toBeDefined();
    expect(seen.get('postgres')).toEqual(seen.get('pglite'));
  });
});
