/**
 * PGlite has no autovacuum: the driver runs ANALYZE itself once enough rows were written
 * (autovacuum's rule, 50 + 10% of the rows at the last ANALYZE), at most once per interval, so
 * the planner sees the data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/index.js';
import { cleanUp, migrationsDir, target } from './support/db.js';

afterAll(cleanUp);

const schema = { '0001_init.sql': `CREATE TABLE notes (id integer PRIMARY KEY, kind text NOT NULL);` };

/** The planner's row estimate for a filter, read from EXPLAIN. */
async function estimatedRows(db: Database, where: string): Promise<number> {
  const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT * FROM notes WHERE ${where}`);
  return Number(/rows=(\d+)/.exec(rows[0]!['QUERY PLAN'])![1]);
}

/** Statistics as ANALYZE leaves them: reltuples and whether pg_stats has the column. */
async function statistics(db: Database) {
  const { rows } = await db.query<{ reltuples: number; analyzed: boolean }>(
    `SELECT c.reltuples::float8 AS reltuples,
            EXISTS (SELECT 1 FROM pg_stats s WHERE s.schemaname = current_schema() AND s.tablename = 'notes' AND s.attname = 'kind') AS analyzed
       FROM pg_class c WHERE c.oid = 'notes'::regclass`,
  );
  return rows[0]!;
}

/** Waits for the ANALYZE the driver started in the background (it queues behind the next statement). */
async function settle(db: Database) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  await db.query('SELECT 1');
}

describe('statistics on pglite', () => {
  let db: Database;
  beforeAll(async () => {
    db = await target('pglite').open({ migrationsDir: migrationsDir(schema), analyzeIntervalMs: 0 });
    return () => db.close();
  });

  it('are not refreshed before 50 rows were written', async () => {
    await db.query(`INSERT INTO notes SELECT i, 'common' FROM generate_series(1, 40) AS i`);
    await settle(db);
    expect((await statistics(db)).analyzed).toBe(false);
  });

  it('are refreshed once the written rows cross the line, in a transaction too, so estimates follow the data', async () => {
    await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO notes SELECT i, CASE WHEN i % 100 = 0 THEN 'rare' ELSE 'common' END FROM generate_series(41, 5000) AS i`);
    });
    await settle(db);
    expect(await statistics(db)).toEqual({ reltuples: 5000, analyzed: true });
    // With statistics the planner knows 'rare' is 1% of the rows; without, it guesses from the table size.
    expect(await estimatedRows(db, `kind = 'rare'`)).toBeGreaterThanOrEqual(30);
    expect(await estimatedRows(db, `kind = 'rare'`)).toBeLessThanOrEqual(70);
  });

  it('then wait for 10% of the table to change again', async () => {
    await db.query(`UPDATE notes SET kind = 'rare' WHERE id <= 400`); // 400 < 50 + 500
    await settle(db);
    expect(await estimatedRows(db, `kind = 'rare'`)).toBeLessThanOrEqual(70);
    await db.query(`UPDATE notes SET kind = 'rare' WHERE id > 400 AND id <= 1000`); // 1000 written in all
    await settle(db);
    expect(await estimatedRows(db, `kind = 'rare'`)).toBeGreaterThanOrEqual(900);
  });
});

describe('statistics on pglite, paced', () => {
  let db: Database;
  beforeAll(async () => {
    db = await target('pglite').open({ migrationsDir: migrationsDir(schema), analyzeIntervalMs: 1_000 });
    return () => db.close();
  });

  it('are refreshed at most once per interval, and at its end without waiting for another write', async () => {
    await db.query(`INSERT INTO notes SELECT i, 'common' FROM generate_series(1, 1000) AS i`);
    await settle(db);
    expect(await estimatedRows(db, `kind = 'rare'`)).toBeLessThanOrEqual(10);
    await db.query(`UPDATE notes SET kind = 'rare' WHERE id <= 500`); // crosses the line within the interval
    await settle(db);
    expect(await estimatedRows(db, `kind = 'rare'`)).toBeLessThanOrEqual(10);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await settle(db);
    expect(await estimatedRows(db, `kind = 'rare'`)).toBeGreaterThanOrEqual(400);
  });
});
