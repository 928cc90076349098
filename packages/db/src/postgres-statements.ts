/**
 * Named statements on PostgreSQL that are described once per connection, as on PGlite
 * (pglite-statements.ts).
 *
 * `pg` sends bind, describe, execute and sync for every call of a prepared statement, and for each
 * describe the server sends the row description again and `pg` rebuilds from it the column list,
 * a type parser per column and an empty row object. A prepared statement's result columns cannot
 * change (after DDL that changes them the server refuses the statement with 0A000 instead), so here
 * a statement's first call on a connection is described as `pg` does it, and later calls on that
 * connection send bind, execute and sync, and read their rows with what the first call built.
 * Measured on the Minds row read (24 columns, 10 concurrent callers): 29–37 µs of the client's CPU
 * per call with `pg`'s Query, 18–23 µs with this one; the server's fell from 23–26 to 18–22 µs.
 *
 * This subclasses `pg`'s Query and uses what it keeps of a result (`Result.fields`, `_parsers`,
 * `_prebuiltEmptyResultObject`) and of a connection (`parsedStatements`), which `pg` does not
 * document: the package pins `pg` to a minor version, and prepared-statements.test.ts checks on
 * PostgreSQL that a statement is described once per connection and reads the same rows after.
 */
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';

/** What a row description left in `pg`'s Result, kept to read later calls' rows with. */
interface Described {
  fields: unknown[];
  parsers: unknown[];
  emptyRow: Record<string, null>;
}

/** The parts of `pg`'s Query, Result and Connection this relies on (not in @types/pg). */
interface QueryInternals {
  name?: string;
  text: string;
  portal: string;
  values: unknown[];
  binary?: boolean;
  rows?: number;
  callback?: unknown;
  _accumulateRows: boolean;
  _result: { fields: unknown[]; _parsers: unknown[]; _prebuiltEmptyResultObject: Record<string, null> };
  listeners(event: 'row'): unknown[];
  handleError(error: Error, connection: Connection): void;
  _getRows(connection: Connection, rows: number | undefined): void;
}

interface Connection {
  parsedStatements: Record<string, string>;
  bind(config: { portal: string; statement: string; values: unknown[]; binary?: boolean; valueMapper: unknown }): void;
  close(config: { type: 'S'; name: string }): void;
  sync(): void;
}

const QueryBase = pg.Query as unknown as new (config: pg.QueryConfig) => QueryInternals & {
  prepare(connection: Connection): void;
  submit(connection: Connection): Error | null;
  handleRowDescription(message: { fields: unknown[] }): void;
  handleError(error: Error, connection: Connection): void;
};

/** Per connection (a connection's statements end with it): statement name → its description. */
const describedOn = new WeakMap<Connection, Map<string, Described>>();

/** A named statement's call: described on its first call on a connection, not on later ones. */
export class DescribedOnceQuery extends QueryBase {
  #connection: Connection | undefined;

  override submit(connection: Connection): Error | null {
    this.#connection = connection;
    return super.submit(connection);
  }

  override prepare(connection: Connection): void {
    const name = this.name!;
    const described = describedOn.get(connection)?.get(name);
    if (described === undefined || connection.parsedStatements[name] !== this.text) {
      super.prepare(connection);
      return;
    }
    // What handleRowDescription would have set up from the description the server no longer sends.
    const result = this._result;
    result.fields = described.fields;
    result._parsers = described.parsers;
    result._prebuiltEmptyResultObject = described.emptyRow;
    this._accumulateRows = Boolean(this.callback) || this.listeners('row').length === 0;
    try {
      connection.bind({ portal: this.portal, statement: name, values: this.values, binary: this.binary, valueMapper: pgUtils.prepareValue });
    } catch (error) {
      // As pg's own prepare does when a value cannot be sent: the statement is closed on the server.
      forget(connection, name);
      connection.close({ type: 'S', name });
      connection.sync();
      this.handleError(error as Error, connection);
      return;
    }
    this._getRows(connection, this.rows);
  }

  override handleRowDescription(message: { fields: unknown[] }): void {
    super.handleRowDescription(message);
    const connection = this.#connection;
    if (connection === undefined) return;
    let described = describedOn.get(connection);
    if (described === undefined) describedOn.set(connection, (described = new Map()));
    const result = this._result;
    described.set(this.name!, { fields: result.fields, parsers: result._parsers, emptyRow: result._prebuiltEmptyResultObject });
  }

  override handleError(error: Error, connection: Connection): void {
    // A statement that failed (stale after DDL, or anything else) is described again on its next call.
    if (this.#connection !== undefined) forget(this.#connection, this.name!);
    super.handleError(error, connection);
  }
}

function forget(connection: Connection, name: string): void {
  describedOn.get(connection)?.delete(name);
}
