/**
 * Memory search as memory grows, within one Mind, on the Minds service's own
 * schema and SQL (its migrations and searchEvents): the insert rate through
 * the service's insert, then a Mind grown by SQL to each size, and search
 * p50/p99 for a rare word, a word pair and a common word at each size, the
 * sizes searched in interleaved rounds, with the plan.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '@gateway-minds/db';
import { MINDS_PAGE_COST, migrationsDir, insertEvent, OWNER_NAMESPACE, SEARCH_SQL, searchEvents, searchParams, SEARCH_RANKING_WINDOW, type MemoryScope } from '@gateway-minds/minds/internals';
import { inRoundOrder, percentile } from './figures.js';

/** The owner search's ranking window (x-ranking-window in the spec). */
const rankingWindow = SEARCH_RANKING_WINDOW.owner;

export interface SearchRow {
  driver: string;
  events: number;
  term: string;
  matches: number;
  p50: number;
  p99: number;
  /** The p50 of each round, in round order: rows of one round ran seconds apart. */
  roundP50s: number[];
  /** The indexes the service's search statement used for this term at this size. */
  index: string;
}

/** A word in 0.1% of events, a pair in 0.8%, a word in 12%. */
export const searchTerms = ['zephyrine', 'orchid invoice', 'orchid'];
const indexNames: Record<string, string> = { memory_events_search: 'GIN (text)', memory_events_recent: 'recency' };

export interface SearchReport {
  rankingWindow: number;
  insertRates: { driver: string; perSecond: number }[];
  rows: SearchRow[];
  plans: { driver: string; events: number; term: string; plan: string }[];
}

const vocabulary = ['garden', 'river', 'invoice', 'meeting', 'deploy', 'kernel', 'orchid', 'budget', 'tensor', 'harbor', 'quartz', 'lantern', 'violet', 'canyon', 'sprocket', 'meadow'];

async function newMind(db: Database, scope: { org: string; project: string }): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO minds (mind_id, organization_id, project_id, created_by, name, region, plan, profile_id, cpus, memory_mb, volume_size_gb,
       services, volume_id, base_url, desired_state, desired_generation, observed_state, observed_generation, status, created_at, updated_at)
     VALUES ($1, $2, $3, 'usr_bench', 'Sandbox bench', 'local', 'pro', 'D1', 2, 4096, 20, '["memory"]', $4, 'https://bench.minds.localhost',
       'running', 1, 'running', 1, 'ready', now(), now())`,
    [id, scope.org, scope.project, randomUUID()],
  );
  return id;
}

/**
 * Fills a new Mind's memory with `target` events, 50k per statement: two word slots per
 * event, each filled independently (hashed, so each word is in about 12% of events and
 * a given pair in about 0.8%), one rare word per 1000 events, and one second
 * between events' created_at, as a stream of memories has. The words themselves are
 * not independent: an event holds at most two, so a pair is in 0.78% of events where
 * PostgreSQL's estimate, which multiplies the words' frequencies, expects 1.5%.
 */
async function grow(db: Database, mindId: string, scope: { org: string; project: string }, target: number): Promise<void> {
  const words = `ARRAY[${vocabulary.map((w) => `'${w}'`).join(',')}]`;
  const batch = 50_000;
  for (let start = 0; start < target; start += batch) {
    const end = Math.min(target, start + batch);
    await db.query(
      `INSERT INTO memory_events (storage_id, mind_id, organization_id, project_id, namespace, event_id, content, event_timestamp, event_type, tags, created_at, updated_at)
       SELECT gen_random_uuid(), $1, $2, $3, $4, gen_random_uuid(),
              'Event ' || i || ': the ' || (${words})[1 + abs(hashint4(i)) % 16] || ' near the ' || (${words})[1 + abs(hashint4(i + 7919)) % 16]
                || ' needed a review' || CASE WHEN i % 1000 = 0 THEN ' zephyrine' ELSE '' END,
              '2026-11-21T12:00:00Z', 'Context', '[]'::jsonb,
              now() - interval '2000000 seconds' + make_interval(secs => i), now()
         FROM generate_series($5::int, $6::int - 1) AS i`,
      [mindId, scope.org, scope.project, OWNER_NAMESPACE, start, end],
    );
  }
  // PostgreSQL's autovacuum analyzes after this much change, on its own schedule (within a
  // minute): analyze now, as it will have by the time anyone searches. PGlite has no autovacuum;
  // its driver analyzes by autovacuum's rule as the rows arrive (packages/db, AutoAnalyze), and
  // the bench relies on that, as the service does.
  if (db.driver === 'postgres') await db.query('ANALYZE memory_events');
}

/** Events inserted one by one for the insert rate. */
const sample = 2000;

/** One size's database: a Mind grown to `events`, searched in rounds interleaved with the other sizes. */
interface Dataset {
  db: Database;
  events: number;
  scope: MemoryScope;
  /** Per term: every timed search (ms), and the p50 of each round. */
  times: Map<string, { all: number[]; roundP50s: number[] }>;
}

const timed = async (dataset: Dataset, term: string): Promise<number> => {
  const started = performance.now();
  await searchEvents(dataset.db, dataset.scope, term, 20, rankingWindow);
  return performance.now() - started;
};

async function matchCount(dataset: Dataset, term: string): Promise<number> {
  const { rows } = await dataset.db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM memory_events WHERE mind_id = $1 AND search @@ websearch_to_tsquery('english', $2)`,
    [dataset.scope.mindId, term],
  );
  return rows[0]!.count;
}

/** The plan of the service's own search statement, with the timings of one run. */
async function plan(dataset: Dataset, term: string): Promise<string> {
  // Planned for its values each call, as the service's search is (searchEvents): never a generic plan.
  const { rows } = await dataset.db.query<Record<string, string>>(`EXPLAIN (ANALYZE, COSTS OFF) ${SEARCH_SQL}`, searchParams(dataset.scope, term, 20, rankingWindow), {
    planEachCall: true,
  });
  return rows.map((r) => Object.values(r)[0]).join('\n');
}

/**
 * Every size is built first, each in a database of its own, and then searched in rounds: in
 * each round every term is searched `runsPerRound` times at every size, one size after the other
 * (the order alternating between rounds). The growth from the smallest to the largest size is a
 * ratio of two timings, and on this shared host timings taken minutes apart differ by more than
 * the growth being judged: back to back, one size's p50 moved from 6.7 to 9.9 ms within seconds.
 * Taken within one round they are seconds apart, and the median round's ratio is reported.
 */
export async function runSearch(options: { sizes: Record<string, number[]>; rounds: number; runsPerRound: number }): Promise<SearchReport> {
  const report: SearchReport = { rankingWindow, insertRates: [], rows: [], plans: [] };
  for (const [driver, sizes] of Object.entries(options.sizes)) {
    if (driver === 'postgres' && !process.env.BENCH_DATABASE_URL) continue;
    const dir = mkdtempSync(join(tmpdir(), 'bench-search-'));
    const schemas: string[] = [];
    const opened: Database[] = [];
    const open = async (name: string, options: { analyzeIntervalMs?: number } = {}) => {
      const schema = `bench_search_${Date.now()}_${name}`;
      schemas.push(schema);
      // Planned as the service plans (its page cost): the search's plan choice depends on it.
      const common = { migrationsDir, pageCost: MINDS_PAGE_COST };
      const db = await openDatabase(
        driver === 'postgres' ? { url: process.env.BENCH_DATABASE_URL, schema, ...common } : { dataDir: join(dir, name), schema: 'minds', ...common, ...options },
      );
      opened.push(db);
      return db;
    };
    const scope = { org: 'org_bench', project: 'prj_bench' };
    try {
      // The insert rate of a fresh Mind through the service's own insert (one statement per event, as
      // the API does it), on a database opened as the service opens it.
      const fresh = await open('inserts');
      const freshScope = { mindId: await newMind(fresh, scope), org: scope.org, project: scope.project, namespace: OWNER_NAMESPACE };
      const started = performance.now();
      for (let i = 0; i < sample; i++) {
        await insertEvent(fresh, freshScope, { id: randomUUID(), content: `warm-up event ${i} about the ${vocabulary[i % 16]}`, timestamp: '2026-11-21T12:00:00Z' });
      }
      report.insertRates.push({ driver, perSecond: Math.round(sample / ((performance.now() - started) / 1000)) });

      const datasets: Dataset[] = [];
      for (const events of sizes) {
        // Growth by SQL packs hours of inserts into seconds: on PGlite the driver's ANALYZE (autovacuum's
        // rule) runs after every batch instead of at most every 10 s, as it would have over those hours.
        const db = await open(`events${events}`, { analyzeIntervalMs: 0 });
        const mindId = await newMind(db, scope);
        const loadStart = performance.now();
        await grow(db, mindId, scope, events);
        console.log(`  ${driver}: grew a Mind to ${events} events in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);
        const dataset: Dataset = { db, events, scope: { mindId, org: scope.org, project: scope.project, namespace: OWNER_NAMESPACE }, times: new Map() };
        // Warm-up, untimed: the first search also waits for an ANALYZE that growth started on PGlite.
        for (const term of searchTerms) for (let i = 0; i < 3; i++) await timed(dataset, term);
        for (const term of searchTerms) dataset.times.set(term, { all: [], roundP50s: [] });
        datasets.push(dataset);
      }
      for (let round = 0; round < options.rounds; round++) {
        for (const term of searchTerms) {
          for (const dataset of inRoundOrder(datasets, round)) {
            // One untimed search: the previous size's search left other pages in the caches.
            await timed(dataset, term);
            const times: number[] = [];
            for (let i = 0; i < options.runsPerRound; i++) times.push(await timed(dataset, term));
            const record = dataset.times.get(term)!;
            record.all.push(...times);
            record.roundP50s.push(percentile([...times].sort((a, b) => a - b), 0.5));
          }
        }
      }
      for (const dataset of datasets) {
        for (const term of searchTerms) {
          const { all, roundP50s } = dataset.times.get(term)!;
          all.sort((a, b) => a - b);
          const text = await plan(dataset, term);
          const indexes = [...new Set(text.match(/memory_events_\w+/g) ?? [])].map((name) => indexNames[name] ?? name);
          report.rows.push({
            driver,
            events: dataset.events,
            term,
            matches: await matchCount(dataset, term),
            p50: percentile(all, 0.5),
            p99: percentile(all, 0.99),
            roundP50s,
            index: indexes.join(' + ') || 'none (sequential scan)',
          });
          if (dataset === datasets.at(-1)) report.plans.push({ driver, events: dataset.events, term, plan: text });
        }
      }
    } finally {
      if (driver === 'postgres' && opened[0]) for (const schema of schemas) await opened[0].query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
      for (const db of opened) await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return report;
}
