/** What both drivers share about named prepared statements. */

/** Statements are constants of the code, so the names stay few; past this bound a statement runs unnamed. */
export const MAX_NAMED_STATEMENTS = 2000;

/**
 * A prepared statement's result columns are fixed when it is prepared. After DDL that changes them
 * (a column added to a table read with `*`, by a migration of another replica on PostgreSQL) the
 * server refuses the statement with SQLSTATE 0A000. Matched by the server function that raises it,
 * since the message text follows lc_messages.
 */
export function preparedStatementStale(error: unknown): boolean {
  const { code, routine } = error as { code?: string; routine?: string };
  return code === '0A000' && routine === 'RevalidateCachedQuery';
}
