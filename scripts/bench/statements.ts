/**
 * CPU per PGlite statement, this checkout's `packages/db` against another's, in one process:
 * `BENCH_AB_BASE=<other checkout> npx tsx scripts/bench/statements.ts [rounds]` (the other
 * checkout built, as for ab.ts; without BENCH_AB_BASE only this one is measured). Each build
 * opens its own database with the same 1,000-row table, then the rounds read rows by primary key,
 * 4,000 awaited reads per build per round, alternating which goes first; the first two rounds warm
 * up and the median of the rest is printed. This is how the PGlite locks and row descriptions were
 * judged (packages/db/README.md): it isolates the driver from HTTP, which a service A/B cannot.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Database, OpenDatabaseOptions } from '@gateway-minds/db';
import { inRoundOrder, median } from './figures.js';
import { repoRoot } from './processes.js';

const rounds = Number(process.argv[2] ?? 12);
const readsPerRound = 4_000;
const checkouts = { head: repoRoot, ...(process.env.BENCH_AB_BASE ? { base: resolve(process.env.BENCH_AB_BASE) } : {}) };
const scratch = mkdtempSync(join(tmpdir(), 'bench-statements-'));

/** A row as wide as the kinds a service reads: text, integers, an instant, JSON, a flag. */
const TABLE = `CREATE TABLE items (id uuid PRIMARY KEY, name text NOT NULL, size integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
  doc jsonb NOT NULL, region text NOT NULL, plan text NOT NULL, generation integer NOT NULL, archived boolean NOT NULL DEFAULT false)`;

async function setUp(name: string, checkout: string) {
  const { openDatabase } = (await import(join(checkout, 'packages/db/dist/index.js'))) as { openDatabase: (options: OpenDatabaseOptions) => Promise<Database> };
  const migrationsDir = join(scratch, name, 'migrations');
  mkdirSync(migrationsDir, { recursive: true });
  writeFileSync(join(migrationsDir, '0001_items.sql'), `${TABLE};`);
  const db = await openDatabase({ schema: 'bench', dataDir: join(scratch, name, 'data'), migrationsDir });
  const ids = Array.from({ length: 1_000 }, () => randomUUID());
  for (const [i, id] of ids.entries()) {
    await db.query('INSERT INTO items (id, name, size, doc, region, plan, generation) VALUES ($1, $2, $3, $4, $5, $6, $7)', [id, `item ${i}`, i, JSON.stringify({ i }), 'eu-west', 'standard', 1]);
  }
  return { name, checkout, db, ids, cpu: [] as number[] };
}

const setups = [];
for (const [name, checkout] of Object.entries(checkouts)) setups.push(await setUp(name, checkout));
try {
  for (let round = 0; round < rounds; round++) {
    for (const setup of inRoundOrder(setups, round)) {
      const before = process.cpuUsage();
      for (let i = 0; i < readsPerRound; i++) await setup.db.query('SELECT * FROM items WHERE id = $1', [setup.ids[i % setup.ids.length]]);
      const used = process.cpuUsage(before);
      if (round >= 2) setup.cpu.push((used.user + used.system) / readsPerRound);
    }
  }
  for (const s of setups) console.log(`${s.name} (${s.checkout}): ${median(s.cpu).toFixed(1)} µs of CPU per primary-key read (rounds ${Math.min(...s.cpu).toFixed(1)} to ${Math.max(...s.cpu).toFixed(1)})`);
} finally {
  for (const s of setups) await s.db.close();
  rmSync(scratch, { recursive: true, force: true });
}
