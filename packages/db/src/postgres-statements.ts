/**
 * Named statements on PostgreSQL that are described once per connection, as on PGlite
 * (pglite-statements.ts).
 *
 * `pg` sends bind, describe, execute and sync for every call of a prepared statement, and for each
 * describe the server sends the row description again and `pg` rebuilds from it the column list,
 * a type parser per column and an empty row object. A prepared statement's result columns cannot
 * change (after DDL that changes them the server refuses the statement with 0A000 instead), so here
 * a statement's first call on a connection is described as `pg` does it, and later calls on that
 * connection send bind, execute and sync, and read their rows with what the first call built,
 * which spares both the client's and the server's CPU on every call (figures in bench/README.md).
 *
 * This subclasses `pg`'s Query, replaces its prepare, and uses what it keeps of a result
 * (`Result.fields`, `_parsers`, `_prebuiltEmptyResultObject`) and of a connection (its protocol
 * messages, `submittedNamedStatements`), which `pg` does not document: the package pins `pg` to a
 * minor version, and prepared-statements.test.ts checks on PostgreSQL that a statement is described
 * once per connection, reads the same rows after, and survives a value that cannot be sent.
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
  types?: unknown;
  callback?: unknown;
  _accumulateRows: boolean;
  _canceledDueToError: Error | false;
  hasBeenParsed(connection: Connection): boolean;
  _result: { fields: unknown[]; _parsers: unknown[]; _prebuiltEmptyResultObject: Record<string, null> };
  listeners(event: 'row'): unknown[];
  _getRows(connection: Connection, rows: number | undefined): void;
}

interface Connection {
  submittedNamedStatements: Record<string, string>;
  parse(config: { text: string; name: string; types: unknown }): void;
  describe(config: { type: 'P'; name: string }): void;
  bind(config: { portal: string; statement: string; values: unknown[]; binary?: boolean; valueMapper: unknown }): void;
  sync(): void;
}

const QueryBase = pg.Query as unknown as new (config: pg.QueryConfig) => QueryInternals & {
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

  /**
   * pg's own prepare, except that a described statement is not described again, and that a value
   * that cannot be sent leaves the statement prepared: pg's closes it on the server but still counts
   * it as prepared, so the connection's next call of it failed with 26000 (a transaction's
   * connection goes back to the pool). Here the error is answered once the server has synced.
   */
  prepare(connection: Connection): void {
    const name = this.name!;
    const parsed = this.hasBeenParsed(connection);
    if (!parsed) {
      connection.parse({ text: this.text, name, types: this.types });
      connection.submittedNamedStatements[name] = this.text;
    }
    try {
      connection.bind({ portal: this.portal, statement: name, values: this.values, binary: this.binary, valueMapper: pgUtils.prepareValue });
    } catch (error) {
      this._canceledDueToError = error as Error;
      connection.sync();
      return;
    }
    const described = parsed ? describedOn.get(connection)?.get(name) : undefined;
    if (described === undefined) {
      connection.describe({ type: 'P', name: this.portal });
    } else {
      // What handleRowDescription would have set up from the description the server no longer sends.
      const result = this._result;
      result.fields = described.fields;
      result._parsers = described.parsers;
      result._prebuiltEmptyResultObject = described.emptyRow;
      this._accumulateRows = Boolean(this.callback) || this.listeners('row').length === 0;
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
