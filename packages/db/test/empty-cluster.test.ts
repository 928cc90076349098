/**
 * A new PGlite data directory starts as a copy of the empty cluster the package's build initialised
 * (src/empty-cluster.ts): the same cluster, without an initdb of its own.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, expect, it } from 'vitest';
import { builtEmptyCluster, seedFromEmptyCluster } from '../src/empty-cluster.js';
import { cleanUp, freshDataDir, migrationsDir, target } from './support/db.js';

afterAll(cleanUp);

// initdb draws a new system identifier for every cluster it makes: an equal one is a copy.
const systemIdentifier = async (query: (sql: string) => Promise<{ rows: unknown[] }>) =>
  ((await query('SELECT system_identifier::text AS id FROM pg_control_system()')).rows[0] as { id: string }).id;

it('the build left an empty cluster made by the PGlite installed now', () => {
  expect(builtEmptyCluster()).toBeDefined();
});

it('the built cluster holds the one database PGlite opens, postgres, and not the templates only CREATE DATABASE reads', async () => {
  const copy = freshDataDir();
  cpSync(builtEmptyCluster()!, copy, { recursive: true });
  const pglite = await PGlite.create({ dataDir: copy });
  try {
    expect((await pglite.query('SELECT datname FROM pg_database')).rows).toEqual([{ datname: 'postgres' }]);
  } finally {
    await pglite.close();
  }
  expect(readdirSync(join(copy, 'base'))).toHaveLength(1);
});

it('an empty data directory opens as a copy of that cluster, its migrations applied', async () => {
  const copy = freshDataDir();
  cpSync(builtEmptyCluster()!, copy, { recursive: true });
  const pglite = await PGlite.create({ dataDir: copy });
  const built = await systemIdentifier((sql) => pglite.query(sql));
  await pglite.close();

  const db = await target('pglite').open({ migrationsDir: migrationsDir({ '0001_notes.sql': 'CREATE TABLE notes (body text);' }) });
  try {
    expect(await systemIdentifier((sql) => db.query(sql))).toBe(built);
    expect((await db.query('SELECT count(*)::int AS n FROM notes')).rows).toEqual([{ n: 0 }]);
  } finally {
    await db.close();
  }
});

it('a directory that holds anything is not seeded: PGlite opens what is there', () => {
  const dir = freshDataDir();
  mkdirSync(dir);
  writeFileSync(join(dir, 'PG_VERSION'), '17\n');
  expect(seedFromEmptyCluster(dir)).toBe(false);
  expect(readdirSync(dir)).toEqual(['PG_VERSION']);
});

/** Every file under `dir`, as paths relative to it. */
const filesUnder = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((path) => statSync(join(dir, path)).isFile()).sort();

it('a seeded directory holds the built cluster byte for byte, its blocks of zeros left as holes', () => {
  const dir = freshDataDir();
  mkdirSync(dir);
  expect(seedFromEmptyCluster(dir)).toBe(true);
  const cluster = builtEmptyCluster()!;
  const files = filesUnder(cluster);
  expect(filesUnder(dir)).toEqual(files);
  for (const path of files) expect(readFileSync(join(dir, path)).equals(readFileSync(join(cluster, path))), path).toBe(true);
  // The WAL segment (16 MiB) is zeros past its first block (scripts/empty-cluster.ts): the copy
  // allocates a fraction of it. stat's blocks are 512 bytes whatever the file system's block size.
  const [segment] = readdirSync(join(dir, 'pg_wal')).filter((name) => /^[0-9A-F]{24}$/.test(name));
  const copied = statSync(join(dir, 'pg_wal', segment!));
  expect(copied.size).toBe(16 * 1024 * 1024);
  expect(copied.blocks * 512).toBeLessThan(copied.size / 8);
});
