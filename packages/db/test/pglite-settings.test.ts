/** The settings the PGlite driver starts PostgreSQL with: its own buffer pool, and PGlite's defaults kept. */
import { afterAll, expect, it } from 'vitest';
import { PGLITE_SHARED_BUFFERS } from '../src/pglite.js';
import { cleanUp, migrationsDir, target } from './support/db.js';

afterAll(cleanUp);

it("runs with the driver's buffer pool and PGlite's own start parameters", async () => {
  const db = await target('pglite').open({ migrationsDir: migrationsDir({ '0001_nothing.sql': 'SELECT 1;' }) });
  try {
    const setting = async (name: string) => (await db.query<{ value: string }>('SELECT current_setting($1) AS value', [name])).rows[0]!.value;
    // The data directory's postgresql.conf says 128MB: the start parameter wins.
    expect(await setting('shared_buffers')).toBe(PGLITE_SHARED_BUFFERS);
    // Passing start parameters replaces PGlite's defaults unless they are repeated: one of them.
    expect(await setting('max_worker_processes')).toBe('0');
  } finally {
    await db.close();
  }
});
