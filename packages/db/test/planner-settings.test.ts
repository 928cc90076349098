/** OpenDatabaseOptions.pageCost: the planner's page costs in every session of the database, on both drivers. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/index.js';
import { cleanUp, drivers, migrationsDir, target, tempDir } from './support/db.js';

afterAll(cleanUp);

const nothing = () => migrationsDir({ '0001_nothing.sql': 'SELECT 1;' });

/** Both page costs as every session sees them: several statements at once, so PostgreSQL's pool opens several connections. */
async function pageCosts(db: Database): Promise<string[]> {
  const results = await Promise.all(
    Array.from({ length: 4 }, () =>
      db.query<{ seq: string; random: string }>(`SELECT current_setting('seq_page_cost') AS seq, current_setting('random_page_cost') AS random, pg_sleep(0.05)`),
    ),
  );
  return [...new Set(results.map(({ rows }) => `${rows[0]!.seq}/${rows[0]!.random}`))];
}

describe.each(drivers)('page cost on %s', (driver) => {
  it('sets both page costs for every session when given', async () => {
    const db = await target(driver).open({ migrationsDir: nothing(), pageCost: 0.1 });
    try {
      expect(await pageCosts(db)).toEqual(['0.1/0.1']);
      // Inside a transaction too (a connection of its own on PostgreSQL).
      const inside = await db.transaction((tx) => tx.query<{ value: string }>(`SELECT current_setting('random_page_cost') AS value`));
      expect(inside.rows[0]!.value).toBe('0.1');
    } finally {
      await db.close();
    }
  });

  it("keeps the server's own page costs when absent", async () => {
    const db = await target(driver).open({ migrationsDir: nothing() });
    try {
      expect(await pageCosts(db)).toEqual(['1/4']);
    } finally {
      await db.close();
    }
  });
});

it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses a page cost of %s before opening anything', async (pageCost) => {
  const dataDir = join(tempDir('refused'), 'pgdata');
  await expect(target('pglite').open({ migrationsDir: nothing(), dataDir, pageCost })).rejects.toThrow(/pageCost must be a positive number/);
  expect(existsSync(dataDir)).toBe(false);
});
