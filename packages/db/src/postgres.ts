import pg from 'pg';
import { classifyDatabaseError, DatabaseUnavailableError } from './availability.js';
import { migrate, type MigrationConnection } from './migrations.js';
import { typeParsers } from './parsers.js';
import { pageCostSettings } from './planner.js';
import { MAX_NAMED_STATEMENTS, preparedStatementStale } from './prepared-statements.js';
import { DescribedOnceQuery } from './postgres-statements.js';
import { assertNotInTransaction, isolationSql, runInTransactionScope } from './scope.js';
import type { Database, OpenDatabaseOptions, QueryOptions, QueryResult, Queryable, TransactionOptions } from './types.js';

/** PostgreSQL through a `pg` Pool whose connections all start with search_path set to the service's schema. */
export async function openPostgres(options: OpenDatabaseOptions, url: string): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    types: typeParsers(),
    // Names the service's connections in pg_stat_activity (an operator, or a test, can find and
    // terminate exactly them); at most 63 bytes, as the server keeps.
    application_name: applicationName(options.schema),
    // Sent in the startup packet: every pooled connection has these from its first statement.
    options: [`-c search_path=${options.schema}`, ...pageCostSettings(options.pageCost).map(([name, value]) => `-c ${name}=${value}`)].join(' '),
  });
  // An idle pooled connection that breaks (server restart, network) is dropped by the pool and
  // replaced on next use; without a listener the 'error' event would crash the process.
  pool.on('error', (error) => process.emitWarning(`idle PostgreSQL connection lost: ${error.message}`));
  // A new connection is handed to its caller while the read that completed it is still being
  // parsed: an error later in that read (the backend terminated as it started) reaches the client
  // after the pool removed its idle listener and before the caller attached its own (watchClient),
  // and an 'error' event with no listener ends the process. This one is always there; the error
  // also marks the connection unusable, so its statement fails as unavailable and the pool drops it.
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    await migrateLocked(pool, options);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PostgresDatabase(pool);
}

/** The application_name of a schema's connections: `gateway-minds:<schema>`. */
export function applicationName(schema: string): string {
  return `gateway-minds:${schema}`.slice(0, 63);
}

/**
 * Several replicas may start at once: a session-level advisory lock, keyed by the schema, lets one
 * of them migrate while the others wait on it and then find nothing left to do.
 */
async function migrateLocked(pool: pg.Pool, options: OpenDatabaseOptions): Promise<void> {
  const client = await pool.connect();
  const broken = watchClient(client);
  try {
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`gateway-minds:migrations:${options.schema}`]);
    const connection: MigrationConnection = { query: (sql, params) => client.query(sql, params), exec: (sql) => client.query(sql) };
    await migrate(
      { ...connection, transaction: (fn) => transact(client, 'BEGIN', () => fn(connection), broken) },
      options.schema,
      options.migrationsDir,
    );
  } finally {
    broken.stop();
    // Destroying the connection instead of returning it releases the advisory lock even if this
    // failed half-way, and drops whatever session state a migration may have set.
    client.release(true);
  }
}

interface ClientWatch {
  error: Error | undefined;
  stop(): void;
}

/** A checked-out client has no pool listener: its 'error' event must be caught here or it crashes the process. */
function watchClient(client: pg.PoolClient): ClientWatch {
  const watch: ClientWatch = {
    error: undefined,
    stop: () => client.removeListener('error', onError),
  };
  const onError = (error: Error) => {
    watch.error = error;
  };
  client.on('error', onError);
  return watch;
}

async function transact<T>(client: pg.PoolClient, begin: string, fn: () => Promise<T>, watch: ClientWatch): Promise<T> {
  await client.query(begin);
  try {
    const result = await fn();
    const commit = await client.query('COMMIT');
    // COMMIT of a transaction in which a statement failed (and fn caught the error) answers ROLLBACK
    // without an error; PGlite throws there, and so do we.
    if (commit.command === 'ROLLBACK') throw new Error('transaction was rolled back: a statement in it failed');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      watch.error ??= rollbackError;
    });
    throw error;
  }
}

/**
 * A statement is prepared once per connection under a name given to its text (with or without
 * parameters, as on PGlite: one statement per query() on both drivers; exec() takes several), and
 * from then on only bound and executed: the server neither parses nor analyses it again, and after
 * five calls it may reuse one plan (about half the server's CPU of a forwarded getMind; figures in
 * bench/README.md). Its result columns are described on its first call on a connection only
 * (postgres-statements.ts). Past the bound, and with `planEachCall`, a statement runs unnamed,
 * parsed and planned for each call. A statement left stale by another replica's migration is
 * refused (preparedStatementStale); the connection holding it is not used again.
 */
const statementNames = new Map<string, string>();

/** A checked-out connection, as it runs a query object (which @types/pg does not declare). */
interface StatementTarget {
  query(query: pg.Submittable, callback: (error: Error | null, result: pg.QueryResult) => void): unknown;
}

function run<Row>(on: pg.PoolClient, sql: string, params: unknown[] = [], options: QueryOptions | undefined): Promise<QueryResult<Row>> {
  let name: string | undefined;
  if (!options?.planEachCall) {
    name = statementNames.get(sql);
    if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
      name = `s${statementNames.size}`;
      statementNames.set(sql, name);
    }
  }
  // Unnamed statements too go through the extended protocol, which takes exactly one statement
  // (pg's `queryMode`, which @types/pg does not declare).
  const config = { name, text: sql, values: params, queryMode: 'extended' as const };
  const query = name === undefined ? new pg.Query(config) : new DescribedOnceQuery(config);
  // With a callback, a client runs a query object and answers through it.
  return new Promise((resolve, reject) => {
    (on as unknown as StatementTarget).query(query as unknown as pg.Submittable, (error, result) => (error ? reject(error) : resolve(toResult<Row>(result))));
  });
}

/**
 * A connection from the pool. Failing to get one is always the database being unavailable,
 * whatever the server said: refused (ECONNREFUSED), not accepting connections (55000, after
 * `ALTER DATABASE ... ALLOW_CONNECTIONS false`), too many connections (53300), starting up or
 * shutting down (57P03), gone (3D000), or no answer within connectTimeoutMs. No statement ran, so
 * none of these is a statement's bug; some of their SQLSTATEs (55000) are a statement's bug when a
 * statement raises them, which is why the place, not the code, decides here.
 */
function checkOut(pool: pg.Pool): Promise<pg.PoolClient> {
  return pool.connect().catch((error: unknown) => {
    throw error instanceof DatabaseUnavailableError ? error : new DatabaseUnavailableError(error);
  });
}

/**
 * Runs `work` on a pooled connection and gives it back, as pg-pool's own `pool.query` does (a
 * connection whose work failed is destroyed rather than reused: it may hold a stale statement or
 * be broken), with the connection's failure told apart from the statement's (checkOut).
 */
async function onPooledConnection<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await checkOut(pool);
  const watch = watchClient(client);
  let failure: unknown;
  try {
    return await work(client);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    watch.stop();
    client.release(failure === undefined ? watch.error : (failure as Error));
  }
}

function toResult<Row>(result: pg.QueryResult): QueryResult<Row> {
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
}

class PostgresDatabase implements Database {
  readonly driver = 'postgres' as const;

  constructor(private readonly pool: pg.Pool) {}

  async query<Row = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult<Row>> {
    assertNotInTransaction(this);
    try {
      return await onPooledConnection(this.pool, (client) => run<Row>(client, sql, params, options));
    } catch (error) {
      if (!preparedStatementStale(error)) throw classifyDatabaseError(error);
      // The connection holding the stale statement was destroyed, and its statements with it;
      // nothing was done, so the statement runs once more, unnamed, as other connections may hold
      // the same stale one.
      return await onPooledConnection(this.pool, (client) => run<Row>(client, sql, params, { planEachCall: true })).catch((retryError: unknown) => {
        throw classifyDatabaseError(retryError);
      });
    }
  }

  async exec(sql: string): Promise<void> {
    assertNotInTransaction(this);
    // Without parameters pg uses the simple query protocol, which accepts several statements.
    await onPooledConnection(this.pool, (client) => client.query(sql)).catch((error: unknown) => {
      throw classifyDatabaseError(error);
    });
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
    assertNotInTransaction(this);
    const begin = `BEGIN ISOLATION LEVEL ${isolationSql(options?.isolation)}`;
    const client = await checkOut(this.pool);
    const watch = watchClient(client);
    let stale: Error | undefined;
    const tx: Queryable = {
      query: async <Row>(sql: string, params?: unknown[], options?: QueryOptions) => {
        try {
          return await run<Row>(client, sql, params, options);
        } catch (error) {
          // The transaction has failed; the connection holding the stale statement is not reused.
          if (preparedStatementStale(error)) stale = error as Error;
          throw classifyDatabaseError(error);
        }
      },
    };
    try {
      return await transact(client, begin, () => runInTransactionScope(this, () => fn(tx)), watch);
    } catch (error) {
      // BEGIN or COMMIT lost with the connection: after COMMIT was sent, the outcome is unknown.
      throw classifyDatabaseError(error);
    } finally {
      watch.stop();
      // A connection that failed is closed rather than handed to the next caller.
      client.release(watch.error ?? stale ?? false);
    }
  }

  async close(): Promise<void> {
    if (this.pool.ended) return;
    await this.pool.end();
  }
}
