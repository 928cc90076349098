/** The public shapes of the data-access layer; the drivers implement them. */

export interface QueryResult<Row> {
  rows: Row[];
  /** Rows returned (SELECT) or affected (INSERT/UPDATE/DELETE) by the statement; 0 for DDL. */
  rowCount: number;
}

export interface QueryOptions {
  /**
   * Plan the statement for its parameter values on every call. Statements are prepared once (per
   * PostgreSQL connection, per PGlite backend), and after five calls the server may settle on one
   * generic plan for all values. A statement whose best plan depends on the values (a text search:
   * a rare word reads the text index, a common one walks the recency index) must not get one: with
   * this option it stays unnamed, parsed and planned for each call.
   */
  planEachCall?: boolean;
}

export interface Queryable {
  /** One statement, `$1`-style parameters. Pass JSON values as `JSON.stringify(value)`: `pg` would send a JS array as a PostgreSQL array. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult<Row>>;
}

export type IsolationLevel = 'read committed' | 'repeatable read' | 'serializable';

export interface TransactionOptions {
  /** Default 'read committed'. A 'serializable' transaction can fail with SQLSTATE 40001 on PostgreSQL: retrying is the caller's job. */
  isolation?: IsolationLevel;
}

export interface Database extends Queryable {
  readonly driver: 'pglite' | 'postgres';
  /**
   * Runs fn in one transaction: COMMIT when it resolves, ROLLBACK when it throws.
   * Use only `tx` inside fn: calling this Database from inside fn throws (on PGlite it would deadlock,
   * on PostgreSQL it would silently run outside the transaction).
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Multi-statement SQL without parameters (migrations, fixtures). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres://... → PostgreSQL through a `pg` Pool; absent → embedded PGlite in dataDir. */
  url?: string;
  /** PGlite data directory, created if missing; required when url is absent. 'memory://' for throwaway databases. */
  dataDir?: string;
  /** The service's schema ([a-z_][a-z0-9_]*, e.g. 'gateway', 'minds'): created if missing and the only entry of search_path. */
  schema: string;
  /** Directory of numbered migrations (0001_name.sql, ...), applied at open in order, each once, each in its own transaction. */
  migrationsDir: string;
  /**
   * The planner's price of reading one page (seq_page_cost and random_page_cost alike), set for
   * every session of this database. Absent: the server's own (PostgreSQL's defaults, 1 and 4, price
   * a read from disk). PostgreSQL's documentation advises setting both equal and low, 0.1 for
   * example, when the data is in memory.
   */
  pageCost?: number;
  /** PostgreSQL pool size, default 10. */
  poolSize?: number;
  /**
   * PostgreSQL: how long a call may wait for a connection (a new one's TCP connect and start-up, or
   * a free one from a full pool) before it fails as unavailable. Default 5 000 ms: without a bound
   * a database that accepts connections and never answers held the call until the gateway's 10 s
   * upstream deadline, so the caller got 504 UPSTREAM_TIMEOUT instead of the service's 503.
   */
  connectTimeoutMs?: number;
  /**
   * PGlite directory lock: a lock not refreshed for this long (its holder was killed) is taken over.
   * Default 10 000 ms, minimum 2 000. Every opener of one directory must use the same value.
   */
  lockStaleMs?: number;
  /**
   * PGlite has no autovacuum; the driver analyzes by its rule, but at most once per this many
   * milliseconds (default 10 000), like autovacuum's naptime: while a fresh table fills, the rule
   * alone would re-analyze it every 10% of growth.
   */
  analyzeIntervalMs?: number;
}
