import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';
import lockfile from 'proper-lockfile';
import { classifyDatabaseError, DatabaseUnavailableError } from './availability.js';
import { seedFromEmptyCluster } from './empty-cluster.js';
import { migrate } from './migrations.js';
import { typeParsers } from './parsers.js';
import { PgliteStatements } from './pglite-statements.js';
import { pageCostSettings } from './planner.js';
import { assertNotInTransaction, isolationSql, runInTransactionScope } from './scope.js';
import type { Database, OpenDatabaseOptions, QueryOptions, QueryResult, Queryable, TransactionOptions } from './types.js';

/**
 * PGlite's buffer pool. Its data directory comes with PostgreSQL's default of 128MB, which PGlite
 * allocates and zeroes at every start (memset was PGlite's largest function in a start-up profile),
 * so each service held it resident while idle. 32MB takes about a third off each service's idle
 * memory and leaves a search over the newest of 100k events as fast, where 16MB slows it (figures
 * in bench/README.md). The kernel's page cache still holds what the pool does not.
 */
export const PGLITE_SHARED_BUFFERS = '32MB';

/**
 * Embedded PostgreSQL (PGlite, WebAssembly) in one data directory.
 *
 * PGlite is one single-user backend. Its own mutex already makes concurrent use safe: `query` and
 * `exec` take the same lock that `transaction` holds for the whole callback, so a transaction never
 * interleaves with other callers' statements; they queue behind it. Statements skip that lock while
 * no call that takes it is in flight (PgliteStatements.locking, through which every such call here
 * goes). This class adds the schema's search_path, the driver-neutral result shape, and an
 * inter-process lock on the directory.
 *
 * PGlite executes SQL synchronously and its promises resolve as microtasks only, so a loop of
 * awaited queries never lets the event loop turn: timers (the lock refresh), I/O and signal handlers
 * starve (measured: 0 ticks of a 10 ms interval during a 1 s insert loop). Every call here first
 * yields one macrotask turn, which costs no measurable throughput.
 *
 * Durability: PGlite's Node filesystem writes with synchronous write(2) calls, so a statement's WAL
 * is in the kernel before its promise resolves and survives the process being killed (tested with
 * SIGKILL). It never reaches fsync(2): PGlite starts PostgreSQL with fsync off, and the Emscripten
 * file layer turns fsync/fdatasync into no-ops, so an operating-system crash or power loss can lose
 * recent commits. Use PostgreSQL where that matters.
 *
 * Statistics: PGlite has no autovacuum either, so the planner would plan every statement with the
 * statistics of the day each table was created; AutoAnalyze below stands in for it.
 */
export async function openPglite(options: OpenDatabaseOptions, dataDir: string): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  const dir = inMemory ? dataDir : resolve(dataDir);
  const state: LockState = { lost: undefined };
  let releaseLock: (() => Promise<void>) | undefined;
  if (!inMemory) {
    mkdirSync(dir, { recursive: true });
    releaseLock = await lockDirectory(dir, options.lockStaleMs ?? 10_000, state);
  }
  let opened: PGlite | undefined;
  try {
    // Under the lock: an empty directory becomes a copy of the built cluster, not an initdb.
    if (!inMemory) seedFromEmptyCluster(dir);
    const pg = (opened = await PGlite.create({
      dataDir: dir,
      // The default, spelled out: true acknowledges writes before the filesystem layer has them
      // (a no-op for Node's filesystem today, but not a setting to flip for speed).
      relaxedDurability: false,
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
      // No parsers: rows are read by PgliteStatements with pg's; PGlite's own query() reads only
      // the driver's internal statements (migrations, statistics).
    }));
    // One backend, one session: a plain SET lasts for the life of the database.
    await pg.exec(`SET search_path TO "${options.schema}"`);
    for (const [name, value] of pageCostSettings(options.pageCost)) await pg.exec(`SET ${name} = ${value}`);
    await migrate(
      { query: (sql, params) => pg.query(sql, params), exec: (sql) => pg.exec(sql), transaction: (fn) => pg.transaction(fn) },
      options.schema,
      options.migrationsDir,
    );
    const statements = new PgliteStatements(pg, typeParsers());
    const analyze = new AutoAnalyze(pg, statements, await rowsInSchema(pg), options.analyzeIntervalMs ?? 10_000, () => !state.lost);
    return new PgliteDatabase(pg, statements, state, releaseLock, analyze);
  } catch (error) {
    await opened?.close().catch(() => {});
    await releaseLock?.();
    throw error;
  }
}

interface LockState {
  lost: Error | undefined;
}

/** Takes `<dir>.lock` (a directory, created atomically) or fails at once: two backends on one directory corrupt it. */
async function lockDirectory(dir: string, staleMs: number, state: LockState): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(dir, {
      // The holder refreshes the lock's mtime every staleMs / 2; one not refreshed for staleMs
      // belongs to a process that died (kill -9 skips the exit handler that removes it) and is taken over.
      stale: staleMs,
      retries: 0,
      // The default throws from a timer, which would crash the process. The lock is only lost when
      // another process took it over; from then on this one must not touch the directory.
      onCompromised: (error) => {
        state.lost = new Error(`lost the lock on PGlite data directory ${dir}: ${error.message}`, { cause: error });
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new Error(
        `PGlite data directory ${dir} is in use by another process (lock ${dir}.lock). ` +
          `Only one process may open it; a lock left by a killed process is taken over after ${staleMs} ms.`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** The rows of the schema's tables as of their last ANALYZE (a never-analyzed table counts 0). */
async function rowsInSchema(pg: PGlite): Promise<number> {
  const { rows } = await pg.query<{ tuples: number }>(
    `SELECT coalesce(sum(greatest(reltuples, 0)), 0)::float8 AS tuples FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r'`,
  );
  return rows[0]?.tuples ?? 0;
}

const writeCommands = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'COPY']);

/**
 * Autovacuum's analyze rule for a backend without autovacuum: once the rows written since the last
 * ANALYZE exceed 50 + 10% of the rows it saw (autovacuum_analyze_threshold and _scale_factor), the
 * schema's tables are analyzed, right after the write that crossed the line or, if the last
 * ANALYZE began less than `intervalMs` ago, when that interval ends (autovacuum's naptime does the
 * same). Without it the planner keeps an empty table's statistics: measured at 100k memory events,
 * a search for a rare word took 39 ms (it walked every event) and 3 ms after ANALYZE. Only the
 * schema's tables: a bare ANALYZE also samples the system catalogs, 90 ms each time. Without the
 * interval, a fresh table filling up was re-analyzed every 10% of growth: 20k inserts ran at
 * 1,806/s instead of 2,665/s.
 */
class AutoAnalyze {
  #written = 0;
  #lastStartedAt = -Infinity;
  #running: Promise<void> | undefined;
  #scheduled: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly pg: PGlite,
    /** Its calls go through `statements.locking`, like every PGlite call that takes PGlite's locks. */
    private readonly statements: PgliteStatements,
    private rowsAtLastAnalyze: number,
    private readonly intervalMs: number,
    /** False once the directory lock is lost: ANALYZE writes statistics into the directory. */
    private readonly lockHeld: () => boolean,
  ) {}

  /** Counts a statement's written rows and starts (or schedules) an ANALYZE when they cross the line. */
  note(result: { command?: string; affectedRows?: number }): void {
    if (!result.command || !writeCommands.has(result.command)) return;
    this.#written += result.affectedRows ?? 0;
    if (this.#running || this.#scheduled || this.#closed || this.#written < 50 + 0.1 * this.rowsAtLastAnalyze) return;
    const wait = this.#lastStartedAt + this.intervalMs - Date.now();
    if (wait <= 0) return this.#start();
    this.#scheduled = setTimeout(() => {
      this.#scheduled = undefined;
      this.#start();
    }, wait);
    this.#scheduled.unref();
  }

  #start(): void {
    if (this.#closed || !this.lockHeld()) return;
    this.#lastStartedAt = Date.now();
    this.#running = this.#analyze().finally(() => {
      this.#running = undefined;
    });
  }

  async #analyze(): Promise<void> {
    // After the caller's statement has returned: ANALYZE queues behind any open transaction.
    await yieldToEventLoop();
    this.#written = 0;
    try {
      const { rows } = await this.statements.locking(() =>
        this.pg.query<{ tables: string | null }>(
          `SELECT string_agg(format('%I.%I', n.nspname, c.relname), ', ') AS tables
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
        ),
      );
      const tables = rows[0]?.tables;
      if (tables) await this.statements.locking(() => this.pg.exec(`ANALYZE ${tables}`));
      this.rowsAtLastAnalyze = await this.statements.locking(() => rowsInSchema(this.pg));
    } catch (error) {
      process.emitWarning(`PGlite ANALYZE failed: ${(error as Error).message}`);
    }
  }

  /** Cancels a scheduled ANALYZE and waits for a running one (before closing). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#scheduled);
    await this.#running;
  }
}

class PgliteDatabase implements Database {
  readonly driver = 'pglite' as const;
  #closed = false;

  constructor(
    private readonly pg: PGlite,
    private readonly statements: PgliteStatements,
    private readonly lock: LockState,
    private readonly releaseLock: (() => Promise<void>) | undefined,
    private readonly analyze: AutoAnalyze,
  ) {}

  /** A closed database, or a directory another process took over, is unavailable rather than broken (availability.ts). */
  #checkUsable(): void {
    assertNotInTransaction(this);
    this.#checkOpen();
  }

  #checkOpen(): void {
    if (this.lock.lost) throw new DatabaseUnavailableError(this.lock.lost);
    if (this.#closed) throw new DatabaseUnavailableError(new Error('database is closed'));
  }

  async query<Row = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult<Row>> {
    this.#checkUsable();
    await yieldToEventLoop();
    // Again after the turn: a statement without locks must not reach a backend closed meanwhile.
    this.#checkOpen();
    return this.#run<Row>(sql, params, options, false);
  }

  async #run<Row>(sql: string, params: unknown[] | undefined, options: QueryOptions | undefined, inTransaction: boolean): Promise<QueryResult<Row>> {
    try {
      const result = await this.statements.run<Row>(sql, params ?? [], options, inTransaction);
      this.analyze.note({ command: result.command, affectedRows: result.rowCount });
      return { rows: result.rows, rowCount: result.rowCount };
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  async exec(sql: string): Promise<void> {
    this.#checkUsable();
    await yieldToEventLoop();
    try {
      for (const result of await this.statements.locking(() => this.pg.exec(sql))) this.analyze.note(result);
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
    this.#checkUsable();
    const isolation = isolationSql(options?.isolation);
    await yieldToEventLoop();
    return this.statements.locking(() => this.pg.transaction(async (tx) => {
      // A single backend runs transactions one at a time, so every level behaves as serializable;
      // setting it anyway keeps current_setting('transaction_isolation') the same as on PostgreSQL.
      await tx.query(`SET TRANSACTION ISOLATION LEVEL ${isolation}`);
      const scoped: Queryable = {
        query: async <Row>(sql: string, params?: unknown[], options?: QueryOptions) => {
          await yieldToEventLoop();
          return this.#run<Row>(sql, params, options, true);
        },
      };
      return runInTransactionScope(this, () => fn(scoped));
    }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.analyze.close();
    // After losing the lock another process may own the directory: skip the shutdown checkpoint,
    // which would write into its files.
    if (this.lock.lost) return;
    await this.statements.locking(() => this.pg.close());
    await this.releaseLock?.();
  }
}
