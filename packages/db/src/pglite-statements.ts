/**
 * Statements on PGlite as prepared statements, spoken in the wire protocol directly.
 *
 * PGlite's `query()` answers a parameterised statement with five protocol round trips into its
 * WebAssembly backend (parse, describe, bind, execute, sync), and `exec()` parses and plans the
 * statement again on every call. Here a statement is parsed once per backend under a name, and
 * each call sends bind, describe, execute and sync in one message, which reads a wide row in well
 * under half of `query()`'s time (figures in bench/README.md). Its result columns are described once, when
 * it is prepared: a prepared statement's columns cannot change (PostgreSQL refuses it instead, and
 * it is prepared again), so later calls send bind, execute and sync only.
 *
 * Values are sent and rows are read exactly as `pg` does it (its `prepareValue`, its text-format
 * type parsers with the shared overrides), so a row reads the same on both drivers by construction.
 */
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import { serialize, type DatabaseError } from 'pg-protocol';
import type { BackendMessage, CommandCompleteMessage, DataRowMessage, RowDescriptionMessage } from 'pg-protocol/dist/messages.js';
import { Parser } from 'pg-protocol/dist/parser.js';
import { MAX_NAMED_STATEMENTS, preparedStatementStale } from './prepared-statements.js';
import type { QueryOptions } from './types.js';

export interface StatementResult<Row> {
  rows: Row[];
  /** The command tag's verb (SELECT, INSERT, ...), and the rows it returned or changed. */
  command: string | undefined;
  rowCount: number;
}

/** How one result column is read: its name and pg's text parser for its type. */
interface Column {
  name: string;
  parse: (text: string) => unknown;
}

interface Prepared {
  name: string;
  /** From the statement's first describe; undefined until one answered (a failed bind answers none). */
  columns: Column[] | undefined;
}

export class PgliteStatements {
  /** Statement text → what it is prepared as on this backend. */
  readonly #names = new Map<string, Prepared>();
  #nextName = 0;

  constructor(
    private readonly pg: PGlite,
    private readonly types: pg.CustomTypesConfig,
  ) {}

  /**
   * PGlite calls in flight that take its locks: statements on the locked path, and every `query`,
   * `exec`, `transaction` and `close` the database makes (through `locking`). While there are none,
   * no exchange or transaction can be half-way, so a statement needs no lock at all.
   */
  #lockingCalls = 0;

  /**
   * Runs a PGlite call that takes PGlite's own locks, so that statements queue behind it meanwhile.
   * A transaction needs it: its callback awaits whatever it likes. PGlite's query() and exec() move
   * between their exchanges through microtasks only, and statements here start after a macrotask
   * turn, so today they could not land in between anyway; counting them keeps that from resting on
   * PGlite's internals.
   */
  async locking<T>(call: () => Promise<T>): Promise<T> {
    this.#lockingCalls++;
    try {
      return await call();
    } finally {
      this.#lockingCalls--;
    }
  }

  /**
   * Runs one statement. `inTransaction`: the caller holds PGlite's transaction lock (inside
   * `transaction()`); otherwise the statement never lands inside another caller's transaction.
   * `#send` serialises the statement and makes the exchange before its first await, so nothing
   * runs between the check of `#lockingCalls` and the exchange.
   *
   * With no locking call in flight, the exchange runs at once without PGlite's locks: it is one
   * synchronous call into the backend, so nothing can interleave with it. Its three async-mutexes
   * (transaction, query, filesystem sync) cost more than the read itself: with them skipped and the
   * columns described once, a primary-key read took about half the CPU (scripts/bench/statements.ts).
   * Otherwise it takes them, as `query()` does.
   */
  async run<Row>(sql: string, params: readonly unknown[], options: QueryOptions | undefined, inTransaction: boolean): Promise<StatementResult<Row>> {
    try {
      // Inside transaction(), itself a locking call that holds the transaction lock.
      if (inTransaction) return await this.#send<Row>(sql, params, options, 'in-transaction');
      if (this.#lockingCalls === 0) return await this.#send<Row>(sql, params, options, 'unlocked');
      return await this.locking(() => this.pg._runExclusiveTransaction(() => this.#send<Row>(sql, params, options, 'locked')));
    } catch (error) {
      if (!preparedStatementStale(error)) throw error;
      // The statement's result columns changed (DDL since it was prepared): it is prepared again
      // under a new name. Inside a transaction the transaction has failed and cannot retry.
      this.#names.delete(sql);
      if (inTransaction) throw error;
      return this.run(sql, params, options, false);
    }
  }

  async #send<Row>(sql: string, params: readonly unknown[], options: QueryOptions | undefined, mode: 'unlocked' | 'locked' | 'in-transaction'): Promise<StatementResult<Row>> {
    // Prepared already, or to be prepared now under a new name, or (planEachCall, past the bound) unnamed.
    const prepared = options?.planEachCall ? undefined : this.#names.get(sql);
    const naming = prepared === undefined && !options?.planEachCall && this.#names.size < MAX_NAMED_STATEMENTS ? `s${this.#nextName++}` : undefined;
    const name = prepared?.name ?? naming ?? '';
    const known = prepared?.columns;
    const parts: Buffer[] = [];
    if (prepared === undefined) parts.push(serialize.parse({ name, text: sql, types: [] }));
    parts.push(serialize.bind({ statement: name, values: params.map((value) => pgUtils.prepareValue(value)) }));
    if (known === undefined) parts.push(serialize.describe({ type: 'P', name: '' }));
    parts.push(serialize.execute({}), serialize.sync());
    const message = Buffer.concat(parts);
    const chunks: Uint8Array[] = [];
    // The stream variant, because execProtocolRaw also parses every reply with PGlite's own parser
    // and keeps each parsed message until the next execProtocol call: measured, 4 KB retained per
    // 10-row query, never freed on a service that only runs statements. It runs the exchange
    // synchronously, before returning. A chunk is a view into WebAssembly memory: copied.
    const exchange = (syncToFs: boolean) =>
      this.pg.execProtocolRawStream(new Uint8Array(message.buffer, message.byteOffset, message.byteLength), {
        syncToFs,
        onRawData: (chunk) => chunks.push(chunk.slice()),
      });
    // PGlite syncs its filesystem after each statement outside a transaction, under the query lock
    // its own query() takes. The unlocked path skips the sync: on Node the data directory is PGlite's
    // NodeFS (or its in-memory one), whose syncToFs does nothing; every write is already a write(2).
    await (mode === 'unlocked' ? exchange(false) : this.pg._runExclusiveQuery(() => exchange(mode === 'locked')));
    const reply = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const result = this.#read<Row>(reply, known);
    if (naming && result.parsed) this.#names.set(sql, { name: naming, columns: result.columns });
    else if (prepared && !known) prepared.columns = result.columns;
    if (result.error) throw result.error;
    return result;
  }

  /** Reads a reply; `known`: the statement's columns, when no describe was sent. */
  #read<Row>(reply: Uint8Array, known: Column[] | undefined): StatementResult<Row> & { parsed: boolean; columns: Column[] | undefined; error: DatabaseError | undefined } {
    const rows: Row[] = [];
    let columns = known;
    let command: string | undefined;
    let rowCount = 0;
    let parsed = false;
    let error: DatabaseError | undefined;
    new Parser().parse(Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength), (message: BackendMessage) => {
      switch (message.name) {
        case 'parseComplete':
          parsed = true;
          break;
        case 'rowDescription':
          columns = (message as RowDescriptionMessage).fields.map((field) => ({ name: field.name, parse: this.types.getTypeParser(field.dataTypeID, 'text') }));
          break;
        case 'noData':
          columns = [];
          break;
        case 'dataRow': {
          const values = (message as DataRowMessage).fields;
          const row: Record<string, unknown> = {};
          const read = columns ?? [];
          for (let i = 0; i < read.length; i++) {
            const value = values[i];
            row[read[i]!.name] = value === null || value === undefined ? null : read[i]!.parse(value);
          }
          rows.push(row as Row);
          break;
        }
        case 'commandComplete': {
          // "SELECT 3", "UPDATE 2", "INSERT 0 1": the verb first, the count last.
          const tag = (message as CommandCompleteMessage).text.split(' ');
          command = tag[0];
          rowCount = Number(tag.at(-1)) || 0;
          break;
        }
        case 'error':
          error = message as DatabaseError;
          break;
      }
    });
    return { rows, command, rowCount, parsed, columns, error };
  }
}
