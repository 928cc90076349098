/** The PGlite data directory is locked against a second opener, in this process or another. */
import { existsSync, mkdirSync, rmSync, utimesSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabaseOptions } from '../src/index.js';
import { runWriter } from './support/child.js';
import { cleanUp, freshDataDir, migrationsDir } from './support/db.js';

afterAll(cleanUp);

const migrations = migrationsDir({ '0001_writes.sql': 'CREATE TABLE writes (id integer NOT NULL, part integer NOT NULL, PRIMARY KEY (id, part));' });
const optionsFor = (dataDir: string): OpenDatabaseOptions => ({ dataDir, schema: 'gateway', migrationsDir: migrations });

describe('PGlite directory lock', () => {
  it('makes a second open fail at once, naming the directory, until the first closes', async () => {
    const dataDir = freshDataDir();
    const first = await openDatabase(optionsFor(dataDir));
    expect(existsSync(`${dataDir}.lock`)).toBe(true);

    const started = Date.now();
    const second = openDatabase(optionsFor(dataDir));
    await expect(second).rejects.toThrow(`PGlite data directory ${dataDir} is in use by another process`);
    expect(Date.now() - started).toBeLessThan(1_000);

    await first.close();
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
    const third = await openDatabase(optionsFor(dataDir));
    expect((await third.query('SELECT count(*) AS n FROM writes')).rows).toEqual([{ n: 0 }]);
    await third.close();
  });

  it('holds against another process, which releases it when terminated', async () => {
    const dataDir = freshDataDir();
    await (await openDatabase(optionsFor(dataDir))).close();
    let attempt: Promise<unknown> | undefined;
    const result = await runWriter(optionsFor(dataDir), {
      killAfter: 50,
      signal: 'SIGTERM',
      whileWriting: () => (attempt = openDatabase(optionsFor(dataDir)).then(() => 'opened', (error: Error) => error.message)),
    });
    expect(await attempt).toMatch(`PGlite data directory ${dataDir} is in use by another process`);
    expect(result.signal).toBe('SIGTERM');

    // SIGTERM runs the lock's exit handler: the directory opens again at once, with every acknowledged write.
    const db = await openDatabase(optionsFor(dataDir));
    const ids = (await db.query<{ id: number }>('SELECT DISTINCT id FROM writes')).rows.map((row) => row.id);
    expect(ids).toEqual(expect.arrayContaining(result.acknowledged));
    await db.close();
  });

  it('takes over a stale lock left by a killed process, not a fresh one', async () => {
    const dataDir = freshDataDir();
    mkdirSync(`${dataDir}.lock`);
    await expect(openDatabase(optionsFor(dataDir))).rejects.toThrow(/is in use by another process/);

    // As a killed holder leaves it: no longer refreshed for longer than the stale period (10 s by default).
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(`${dataDir}.lock`, longAgo, longAgo);
    const db = await openDatabase(optionsFor(dataDir));
    await db.close();
  });

  it('stops using the directory once the lock was taken away', async () => {
    const dataDir = freshDataDir();
    const db = await openDatabase({ ...optionsFor(dataDir), lockStaleMs: 2_000 });
    rmSync(`${dataDir}.lock`, { recursive: true });
    // The holder notices at its next refresh (every lockStaleMs / 2).
    await sleep(1_500);
    await expect(db.query('SELECT 1')).rejects.toThrow(`lost the lock on PGlite data directory ${dataDir}`);
    await db.close();
  });

  it('is not needed for memory://', async () => {
    const db = await openDatabase({ dataDir: 'memory://', schema: 'minds', migrationsDir: migrations });
    expect((await db.query(`SELECT current_schema() AS schema`)).rows).toEqual([{ schema: 'minds' }]);
    await db.close();
  });
});
