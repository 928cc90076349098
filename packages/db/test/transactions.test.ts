/** Transactions: commit, rollback, isolation level, and no interleaving with other callers on PGlite's single connection. */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../src/index.js';
import { cleanUp, drivers, migrationsDir, target } from './support/db.js';

afterAll(cleanUp);

const schema = {
  '0001_init.sql': `
    CREATE TABLE items (id integer PRIMARY KEY, label text NOT NULL);
    CREATE TABLE counter (id integer PRIMARY KEY, value integer NOT NULL);
    INSERT INTO counter VALUES (1, 0);`,
};

describe.each(drivers)('transactions on %s', (driver) => {
  let db: Database;
  beforeAll(async () => {
    db = await target(driver).open({ migrationsDir: migrationsDir(schema) });
    return () => db.close();
  });

  const count = async (from: Queryable = db) => (await from.query<{ n: number }>('SELECT count(*) AS n FROM items')).rows[0]!.n;

  it('commits when fn resolves and returns its value', async () => {
    const result = await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO items VALUES (1, 'a')`);
      await tx.query(`INSERT INTO items VALUES (2, 'b')`);
      return 'done';
    });
    expect(result).toBe('done');
    expect((await db.query('SELECT id, label FROM items WHERE id <= 2 ORDER BY id')).rows).toEqual([
      { id: 1, label: 'a' },
      { id: 2, label: 'b' },
    ]);
  });

  it('rolls back when fn throws, and rethrows', async () => {
    const before = await count();
    const failure = new Error('changed my mind');
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO items VALUES (10, 'x')`);
        expect(await count(tx)).toBe(before + 1);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await count()).toBe(before);
  });

  it('does not commit a transaction whose failed statement fn swallowed', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO items VALUES (20, 'y')`);
        await tx.query('SELECT no_such_column FROM items').catch(() => undefined);
      }),
    ).rejects.toThrow();
    expect((await db.query('SELECT id FROM items WHERE id = 20')).rows).toEqual([]);
  });

  it('runs at the requested isolation level, read committed by default', async () => {
    const level = (tx: Queryable) => tx.query<{ level: string }>(`SELECT current_setting('transaction_isolation') AS level`);
    expect((await db.transaction(level)).rows[0]!.level).toBe('read committed');
    expect((await db.transaction(level, { isolation: 'serializable' })).rows[0]!.level).toBe('serializable');
    expect((await db.transaction(level, { isolation: 'repeatable read' })).rows[0]!.level).toBe('repeatable read');
    // Not a level: the compiler refuses it (transactions.test-d.ts), the Database too.
    await expect(db.transaction(level, { isolation: 'chaos' as never })).rejects.toThrow(/unknown isolation level/);
  });

  it('refuses calls to the Database from inside its transaction callback', async () => {
    await expect(db.transaction(() => db.query('SELECT 1'))).rejects.toThrow(/use the tx argument/);
    await expect(db.transaction(() => db.transaction(async () => 1))).rejects.toThrow(/use the tx argument/);
    // Outside it, the Database works as usual.
    expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('never shows other callers half a transaction', async () => {
    let inserted!: () => void;
    const firstInsert = new Promise<void>((resolve) => (inserted = resolve));
    const slow = db.transaction(async (tx) => {
      await tx.query(`INSERT INTO items VALUES (100, 'first half')`);
      inserted();
      await sleep(150);
      await tx.query(`INSERT INTO items VALUES (101, 'second half')`);
    });
    await firstInsert;
    const seen = (await db.query<{ n: number }>('SELECT count(*) AS n FROM items WHERE id IN (100, 101)')).rows[0]!.n;
    await slow;
    // PGlite queues the outside query behind the transaction (2); PostgreSQL answers from before the commit (0).
    expect(seen).toBe(driver === 'pglite' ? 2 : 0);
  });

  it('answers many concurrent queries correctly', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => db.query<{ n: number }>('SELECT $1::integer AS n', [i])),
    );
    expect(answers.map((answer) => answer.rows[0]!.n)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('keeps 50 concurrent read-modify-write increments', async () => {
    await db.query('UPDATE counter SET value = 0 WHERE id = 1');
    const increment = (tx: Queryable) => async () => {
      const { rows } = await tx.query<{ value: number }>('SELECT value FROM counter WHERE id = 1');
      await sleep(1); // let the other callers run: on PGlite they must wait, not interleave
      await tx.query('UPDATE counter SET value = $1 WHERE id = 1', [rows[0]!.value + 1]);
    };
    if (driver === 'pglite') {
      await Promise.all(Array.from({ length: 50 }, () => db.transaction((tx) => increment(tx)())));
    } else {
      // PostgreSQL runs them at once: a lost update is prevented by serializable isolation, whose
      // losers fail with 40001 and are retried.
      await Promise.all(Array.from({ length: 50 }, () => retrySerializable(() => db.transaction((tx) => increment(tx)(), { isolation: 'serializable' }))));
    }
    expect((await db.query('SELECT value FROM counter WHERE id = 1')).rows).toEqual([{ value: 50 }]);

    // Control: the same increments outside transactions do interleave and lose updates.
    await db.query('UPDATE counter SET value = 0 WHERE id = 1');
    await Promise.all(Array.from({ length: 50 }, () => increment(db)()));
    expect((await db.query<{ value: number }>('SELECT value FROM counter WHERE id = 1')).rows[0]!.value).toBeLessThan(50);
  });

  it('lets timers run during a tight loop of queries and transactions', async () => {
    // PGlite alone would never yield to the event loop here: the lock refresh and signal handlers would starve.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const started = Date.now();
    while (Date.now() - started < 300) {
      await db.query('SELECT 1');
      await db.transaction((tx) => tx.query('SELECT 1'));
    }
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(5);
  });

  it('runs multi-statement SQL with exec', async () => {
    await db.exec(`INSERT INTO items VALUES (200, 'e1'); INSERT INTO items VALUES (201, 'e2');`);
    expect((await db.query('SELECT count(*) AS n FROM items WHERE id >= 200')).rows).toEqual([{ n: 2 }]);
  });
});

async function retrySerializable<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if ((error as { code?: string }).code !== '40001' || attempt >= 200) throw error;
      await sleep(Math.random() * 5);
    }
  }
}
