/**
 * Tells a database that is unavailable (could not be reached, refused the connection, was lost
 * during a statement, is read-only, shutting down or out of connections) from a bug in a
 * statement. Both drivers throw DatabaseUnavailableError for the first and the original error for
 * the second, so each service can answer its catalog's unavailability code instead of a 500 that
 * claims to know what happened.
 */

/**
 * The database could not be reached or refused the connection, the connection was lost or timed
 * out during the call, or the database refused a write because it is read-only.
 * After a write the outcome is unknown: the statement (or COMMIT) may or may not have taken effect.
 */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`database unavailable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * SQLSTATE classes and codes that mean "the server or the connection", not "the statement":
 * 08 connection exception; 57 operator intervention (57P01 admin_shutdown, i.e.
 * pg_terminate_backend or a fast shutdown; 57P02 crash_shutdown; 57P03 cannot_connect_now;
 * 57P04 database_dropped; 57014 query_canceled by statement_timeout or a cancel); 53 insufficient
 * resources (53300 too_many_connections); 58 system error (I/O). Serialization failures (40001,
 * 40P01) are not here: retrying them is the caller's job, and the server is available.
 */
const unavailableSqlStateClasses = ['08', '57', '53', '58'];

/**
 * Single codes of other classes that mean the database, not the statement: 25006
 * read_only_sql_transaction, which a write meets on a database made read-only (`ALTER DATABASE ...
 * SET default_transaction_read_only = on`, a hot standby, a server in recovery). The services never
 * open a read-only transaction themselves, so a write refused this way is the database's state.
 * A failure to get a connection at all is unavailability whatever its code: the PostgreSQL driver
 * wraps it where it happens (postgres.ts, checkOut).
 */
const unavailableSqlStates = new Set(['25006']);

/** Socket-level failures of the pg driver (Node errno codes). */
const unavailableSocketCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * Errors node-postgres and pg-pool raise without a code when a connection ends, times out or is
 * unusable (pg/lib/client.js, pg-pool/index.js). Their text is the only thing that tells them apart.
 */
const unavailableMessages = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^timeout exceeded when trying to connect$/,
  /^Query read timeout$/,
  /^Cannot use a pool after calling end on the pool$/,
];

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (/^[0-9A-Z]{5}$/.test(code)) return unavailableSqlStateClasses.includes(code.slice(0, 2)) || unavailableSqlStates.has(code);
    if (unavailableSocketCodes.has(code)) return true;
  }
  return typeof message === 'string' && unavailableMessages.some((pattern) => pattern.test(message));
}

/** The error to throw for `error`: DatabaseUnavailableError when it is an availability failure, else `error` itself. */
export function classifyDatabaseError(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError || !isDatabaseUnavailable(error)) return error;
  return new DatabaseUnavailableError(error);
}
