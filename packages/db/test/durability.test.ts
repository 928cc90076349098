/**
 * Acknowledged writes survive kill -9 of the writing process, on both drivers: a child commits
 * two-row transactions in a loop and prints each id once its commit resolved; it is killed
 * mid-stream, the database is reopened, and every acknowledged id must be there with both rows.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type OpenDatabaseOptions } from '../src/index.js';
import { runWriter } from './support/child.js';
import { cleanUp, drivers, migrationsDir, target } from './support/db.js';

afterAll(cleanUp);

const schema = { '0001_writes.sql': 'CREATE TABLE writes (id integer NOT NULL, part integer NOT NULL, PRIMARY KEY (id, part));' };
// Short, so reopening after the kill waits ~2 s for the dead writer's lock to go stale.
const lockStaleMs = 2_000;

/** Opens, retrying while the directory lock of the killed writer is not yet stale. */
async function reopen(options: OpenDatabaseOptions): Promise<{ db: Database; waitedMs: number }> {
  const started = Date.now();
  for (;;) {
    try {
      return { db: await openDatabase(options), waitedMs: Date.now() - started };
    } catch (error) {
      if (!/in use by another process/.test((error as Error).message) || Date.now() - started > 4 * lockStaleMs) throw error;
      await sleep(200);
    }
  }
}

describe.each(drivers)('durability on %s', (driver) => {
  it('keeps every acknowledged transaction, whole, after kill -9', async () => {
    const where = target(driver);
    const options: OpenDatabaseOptions = { schema: where.schema, ...where.connection, migrationsDir: migrationsDir(schema), lockStaleMs };
    // Migrate first so the child only writes.
    const setup = await where.open(options);
    const settings = (await setup.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method') ORDER BY name`,
    )).rows;
    console.log(`${driver} settings: ${settings.map((row) => `${row.name}=${row.setting}`).join(', ')}`);
    await setup.close();

    let nextId = 1;
    for (const round of [1, 2]) {
      const run = await runWriter(options, { killAfter: 150, signal: 'SIGKILL', firstId: nextId });
      expect(run.signal, run.stderr).toBe('SIGKILL');
      expect(run.acknowledged.length).toBeGreaterThanOrEqual(150);

      const { db, waitedMs } = await reopen(options);
      const parts = (await db.query<{ id: number; parts: number }>('SELECT id, count(*)::int AS parts FROM writes GROUP BY id ORDER BY id')).rows;
      await db.close();

      const stored = new Set(parts.map((row) => row.id));
      const lost = run.acknowledged.filter((id) => !stored.has(id));
      const torn = parts.filter((row) => row.parts !== 2);
      const lastAcked = run.acknowledged.at(-1)!;
      const unacknowledged = parts.filter((row) => row.id > lastAcked).length;
      console.log(
        `${driver} round ${round}: killed after ${run.acknowledged.length} acknowledged transactions; ` +
          `${lost.length} lost, ${torn.length} half-written, ${unacknowledged} committed but not yet acknowledged; reopen waited ${waitedMs} ms`,
      );
      expect(lost).toEqual([]);
      expect(torn).toEqual([]);
      // At most the one transaction in flight at the kill may have committed without its acknowledgement.
      expect(unacknowledged).toBeLessThanOrEqual(1);
      nextId = Math.max(lastAcked, ...stored) + 1;
    }
  });
});
