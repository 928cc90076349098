/**
 * Statements on PGlite skip PGlite's locks while no other call holds them (pglite-statements.ts).
 * What must stay true: no statement lands inside another caller's exchange or transaction. PGlite's
 * own query() and exec() are several exchanges with awaits between (parse, describe, bind, execute,
 * sync); one of ours slipped in between would run on, or replace, their unnamed statement.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/index.js';
import { cleanUp, migrationsDir, target } from './support/db.js';

afterAll(cleanUp);

const schema = {
  '0001_init.sql': `
    CREATE TABLE pairs (id integer PRIMARY KEY, pair integer NOT NULL);
    CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL);`,
};

describe('statements without locks on pglite', () => {
  let db: Database;
  beforeAll(async () => {
    // ANALYZE after every 50 written rows: its statements are PGlite's own query() and exec().
    db = await target('pglite').open({ migrationsDir: migrationsDir(schema), analyzeIntervalMs: 0 });
    return () => db.close();
  });

  it('never run inside the background ANALYZE, an exec or a transaction, under load', async () => {
    // What fails today if statements ignore the count is the transactions (checked). PGlite's own
    // query() and exec() step between their exchanges through microtasks only, so a statement that
    // starts after an event-loop turn cannot land between them yet; the ANALYZE and exec workers
    // are here for the day a PGlite release awaits something longer there.
    const failures: string[] = [];
    const onWarning = (warning: Error) => failures.push(warning.message);
    process.on('warning', onWarning);
    try {
      const seen: number[] = [];
      let transactions = 0;
      // Callers that overlap in time, as a service's requests do.
      const worker = async (kind: number) => {
        for (let i = 0; i < 100; i++) {
          const id = kind * 1000 + i;
          if (kind % 4 === 0) {
            // A transaction that writes its two rows across a turn of the event loop.
            await db.transaction(async (tx) => {
              await tx.query('INSERT INTO pairs (id, pair) VALUES ($1, $2)', [2 * id, id]);
              await sleep(1);
              await tx.query('INSERT INTO pairs (id, pair) VALUES ($1, $2)', [2 * id + 1, id]);
            });
            transactions++;
          } else if (kind % 4 === 1) {
            // Writes that keep ANALYZE (PGlite's own query() and exec()) starting in the background.
            await db.query('INSERT INTO notes (id, body) VALUES ($1, $2)', [id, `note ${id}`]);
            if (i % 10 === 0) await db.exec('SELECT 1; SELECT 2');
          } else if (kind % 4 === 2) {
            // Unnamed statements, the kind that would replace PGlite's own half-way one.
            const { rows } = await db.query<{ n: number }>('SELECT $1::integer AS n', [id], { planEachCall: true });
            expect(rows[0]!.n).toBe(id);
          } else {
            seen.push((await db.query<{ n: number }>('SELECT count(*)::integer AS n FROM pairs')).rows[0]!.n);
          }
        }
      };
      await Promise.all(Array.from({ length: 12 }, (_, kind) => worker(kind)));
      await sleep(50);
      await db.query('SELECT 1'); // the last ANALYZE queues ahead of this

      expect(failures).toEqual([]);
      // Every transaction was seen whole or not at all, and the readers did run while they were open.
      expect(seen.filter((n) => n % 2 !== 0)).toEqual([]);
      expect(new Set(seen).size).toBeGreaterThan(10);
      expect((await db.query('SELECT count(*)::integer AS n FROM pairs')).rows).toEqual([{ n: 2 * transactions }]);
      expect((await db.query('SELECT count(*)::integer AS n FROM notes')).rows).toEqual([{ n: 300 }]);
      // ANALYZE did run meanwhile.
      const { rows } = await db.query<{ tuples: number }>(`SELECT reltuples::integer AS tuples FROM pg_class WHERE relname = 'notes' AND relnamespace = current_schema()::regnamespace`);
      expect(rows[0]!.tuples).toBeGreaterThan(0);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('queue behind a transaction in flight, and run again once it is over', async () => {
    const order: string[] = [];
    const transaction = db.transaction(async (tx) => {
      await sleep(30);
      order.push('transaction');
      await tx.query('SELECT 1');
    });
    await sleep(5); // the transaction holds PGlite's lock now
    await db.query('SELECT 1').then(() => order.push('statement'));
    await transaction;
    expect(order).toEqual(['transaction', 'statement']);
    // Nothing in flight: answered without waiting on anything.
    expect((await db.query<{ n: number }>('SELECT 41 + $1::integer AS n', [1])).rows).toEqual([{ n: 42 }]);
  });

  it('are refused once the database is closed, even if they were waiting for their turn', async () => {
    const other = await target('pglite').open({ migrationsDir: migrationsDir(schema) });
    const waiting = other.query('SELECT 1');
    const closing = other.close();
    await expect(waiting).rejects.toMatchObject({ name: 'DatabaseUnavailableError' });
    await closing;
  });
});
