/**
 * One data-access layer over PostgreSQL SQL for the gateway and the Minds service: embedded PGlite
 * by default, a PostgreSQL server when a URL is given. Each service keeps its tables in its own
 * schema, migrated at open from a directory of numbered .sql files.
 */
import { pageCostSettings } from './planner.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';
import type { Database, OpenDatabaseOptions } from './types.js';

export type { Database, IsolationLevel, OpenDatabaseOptions, Queryable, QueryOptions, QueryResult, TransactionOptions } from './types.js';
export { readMigrations, type Migration } from './migrations.js';
export { isPageCost } from './planner.js';
export { DatabaseUnavailableError, isDatabaseUnavailable } from './availability.js';
export { applicationName } from './postgres.js';

/** Schema names are spliced into SQL and connection options, so only plain lower-case identifiers pass. */
const schemaName = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (!schemaName.test(options.schema)) {
    throw new Error(`schema must match ${schemaName.source}, got ${JSON.stringify(options.schema)}`);
  }
  pageCostSettings(options.pageCost); // refuses a bad value before anything is opened
  if (options.url) return openPostgres(options, options.url);
  if (!options.dataDir) throw new Error('openDatabase needs either url (PostgreSQL) or dataDir (PGlite)');
  return openPglite(options, options.dataDir);
}
