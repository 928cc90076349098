/**
 * Availability failures against bugs: a database lost during a statement (its backend terminated
 * by pg_terminate_backend, the TCP path to it cut, a closed PGlite) throws DatabaseUnavailableError;
 * a statement that is wrong throws the server's own error. Services answer the first with their
 * catalog's unavailability code and the second with INTERNAL_ERROR (spec/DECISIONS.md, "A database
 * lost during a request").
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applicationName, DatabaseUnavailableError, isDatabaseUnavailable, openDatabase, type Database } from '../src/index.js';
import { throwawayDatabase, type ThrowawayDatabase } from '../src/testing.js';
import { cleanUp, drivers, migrationsDir, postgresUrl, target } from './support/db.js';

afterAll(cleanUp);

const schema = { '0001_init.sql': 'CREATE TABLE items (id integer PRIMARY KEY);' };

describe('isDatabaseUnavailable', () => {
  it.each([
    ['57P01 admin_shutdown', { code: '57P01' }],
    ['08006 connection_failure', { code: '08006' }],
    ['57014 query_canceled (statement_timeout)', { code: '57014' }],
    ['53300 too_many_connections', { code: '53300' }],
    ['ECONNRESET', { code: 'ECONNRESET' }],
    ['ECONNREFUSED', { code: 'ECONNREFUSED' }],
    ['25006 read_only_sql_transaction (a write on a read-only database)', { code: '25006' }],
    ['57P03 cannot_connect_now (starting up or shutting down)', { code: '57P03' }],
    ['a connection ended under a query', new Error('Connection terminated unexpectedly')],
    ['a pool connect timeout', new Error('timeout exceeded when trying to connect')],
  ])('%s is an availability failure', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['23505 unique_violation', { code: '23505' }],
    ['42601 syntax_error', { code: '42601' }],
    ['40001 serialization_failure', { code: '40001' }],
    ['55000 object_not_in_prerequisite_state raised by a statement', { code: '55000' }],
    ['a plain bug', new TypeError('x is undefined')],
  ])('%s is not', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe.each(drivers)('statement errors on %s', (driver) => {
  it('a wrong statement throws the server error, not DatabaseUnavailableError', async () => {
    const db = await target(driver).open({ migrationsDir: migrationsDir(schema) });
    try {
      await db.query('INSERT INTO items VALUES (1)');
      const duplicate = await db.query('INSERT INTO items VALUES (1)').catch((error: unknown) => error);
      expect(duplicate).not.toBeInstanceOf(DatabaseUnavailableError);
      expect((duplicate as { code?: string }).code).toBe('23505');
      const inTransaction = await db.transaction((tx) => tx.query('SELECT no_such_column FROM items')).catch((error: unknown) => error);
      expect(inTransaction).not.toBeInstanceOf(DatabaseUnavailableError);
    } finally {
      await db.close();
    }
  });
});

describe('a closed PGlite database', () => {
  it('is unavailable', async () => {
    const db = await target('pglite').open({ migrationsDir: migrationsDir(schema) });
    await db.close();
    await expect(db.query('SELECT 1')).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(db.transaction((tx) => tx.query('SELECT 1'))).rejects.toBeInstanceOf(DatabaseUnavailableError);
  });
});

/**
 * A TCP relay to PostgreSQL that the test owns and can cut (every connection through it is
 * destroyed, and new ones refused) or silence (its connections destroyed, and new ones accepted
 * and never answered, as a hung server or a dropped route would).
 */
async function relayTo(url: string): Promise<{ url: string; cut(): Promise<void>; silence(): void; refuseWith(sqlState: string, message: string): void }> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let silent = false;
  let refusal: Buffer | undefined;
  const server: Server = createServer((inbound) => {
    if (silent || refusal) {
      sockets.add(inbound);
      inbound.on('error', () => {});
      inbound.on('close', () => sockets.delete(inbound));
      // As a server starting up or shutting down answers a start-up message: one ErrorResponse, then the end.
      const answer = refusal;
      if (answer) inbound.once('data', () => inbound.end(answer));
      return;
    }
    const outbound = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as { port: number }).port);
  return {
    url: relayed.toString(),
    cut: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    silence: () => {
      silent = true;
      for (const socket of sockets) socket.destroy();
    },
    refuseWith: (sqlState, message) => {
      refusal = errorResponse(sqlState, message);
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** A FATAL ErrorResponse message of the PostgreSQL wire protocol (protocol 3.0, "Message Formats"). */
function errorResponse(sqlState: string, message: string): Buffer {
  const fields = Buffer.concat([...['SFATAL', 'VFATAL', `C${sqlState}`, `M${message}`].map((field) => Buffer.from(`${field}\0`, 'utf8')), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0, 'latin1');
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

describe.skipIf(!postgresUrl)('PostgreSQL lost during a call', () => {
  /** Holds the table locked from another session until release(): a statement on it waits, as a slow server would. */
  async function lockTable(schemaName: string): Promise<{ release(): Promise<void> }> {
    const locker = new pg.Client({ connectionString: postgresUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE "${schemaName}".items IN ACCESS EXCLUSIVE MODE`);
    return {
      release: async () => {
        await locker.query('ROLLBACK');
        await locker.end();
      },
    };
  }

  /** Waits until a backend of the schema's application_name waits on a lock, then terminates all of its backends. */
  async function terminateWhenWaiting(schemaName: string): Promise<number> {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    try {
      for (let attempt = 0; attempt < 500; attempt++) {
        const { rows } = await admin.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
          [applicationName(schemaName)],
        );
        if (rows[0]!.waiting > 0) {
          const { rowCount } = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName(schemaName)]);
          return rowCount ?? 0;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error('the statement never waited on the lock');
    } finally {
      await admin.end();
    }
  }

  it('pg_terminate_backend during a statement: DatabaseUnavailableError (57P01), and the next call reconnects', async () => {
    const place = target('postgres');
    const db: Database = await place.open({ migrationsDir: migrationsDir(schema) });
    try {
      const lock = await lockTable(place.schema);
      const pending = db.query('INSERT INTO items VALUES (1)').catch((error: unknown) => error);
      expect(await terminateWhenWaiting(place.schema)).toBeGreaterThan(0);
      await lock.release();
      const error = await pending;
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(((error as Error).cause as { code?: string }).code).toBe('57P01');
      // The pool drops the dead connection: once the terminated backends' notices are read, calls succeed again.
      let rows: unknown[] | undefined;
      for (let attempt = 0; attempt < 20 && !rows; attempt++) {
        rows = await db.query('SELECT id FROM items').then(
          (result) => result.rows,
          (failure: unknown) => {
            expect(failure).toBeInstanceOf(DatabaseUnavailableError);
            return undefined;
          },
        );
      }
      // The terminated INSERT never committed: the true state has no row.
      expect(rows).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('pg_terminate_backend inside a transaction: DatabaseUnavailableError, nothing committed', async () => {
    const place = target('postgres');
    const db: Database = await place.open({ migrationsDir: migrationsDir(schema) });
    try {
      const lock = await lockTable(place.schema);
      const pending = db
        .transaction(async (tx) => {
          await tx.query('INSERT INTO items VALUES (2)');
          await tx.query('INSERT INTO items VALUES (3)');
        })
        .catch((error: unknown) => error);
      await terminateWhenWaiting(place.schema);
      await lock.release();
      expect(await pending).toBeInstanceOf(DatabaseUnavailableError);
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      expect((await admin.query(`SELECT id FROM "${place.schema}".items`)).rows).toEqual([]);
      await admin.end();
    } finally {
      await db.close();
    }
  });

  it('a cut TCP path: DatabaseUnavailableError for statements and transactions', async () => {
    const relay = await relayTo(postgresUrl!);
    const place = target('postgres');
    const db = await place.open({ migrationsDir: migrationsDir(schema), url: relay.url });
    try {
      expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await relay.cut();
      await expect(db.query('SELECT 1')).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await expect(db.transaction((tx) => tx.query('INSERT INTO items VALUES (4)'))).rejects.toBeInstanceOf(DatabaseUnavailableError);
    } finally {
      await db.close();
    }
  });

  // DECISIONS.md "A database lost during a request": a database that is gone is the service's
  // unavailability code; a silent one must become that too, within the gateway's upstream deadline.
  it('a server that accepts and never answers: DatabaseUnavailableError once connectTimeoutMs has passed', async () => {
    const relay = await relayTo(postgresUrl!);
    const place = target('postgres');
    const db = await place.open({ migrationsDir: migrationsDir(schema), url: relay.url, connectTimeoutMs: 300 });
    try {
      expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      relay.silence();
      // The pool notices its connections ended; a later call opens a new one into the silence.
      let error: unknown;
      const started = performance.now();
      for (let attempt = 0; attempt < 5 && !(error instanceof DatabaseUnavailableError && /timeout/.test(String((error as Error).cause))); attempt++) {
        error = await db.query('SELECT 1').catch((failure: unknown) => failure);
      }
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(String((error as Error).cause)).toMatch(/timeout/);
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await relay.cut();
      await db.close();
    }
  });
});

/**
 * Every way a PostgreSQL database can be unavailable that a test can cause without touching the
 * shared server: each on a database of the test's own, dropped after (throwawayDatabase). Refused
 * (`ALLOW_CONNECTIONS false`, SQLSTATE 55000 at connection), read-only (25006 on a write), too many
 * connections (53300), shutting down (57P03, which only a server stopping or starting sends: a
 * relay answers the start-up as such a server does), lost (above). spec/DECISIONS.md, "A database
 * lost during a request": each is DatabaseUnavailableError, which the services answer with their
 * unavailability code.
 */
describe.skipIf(!postgresUrl)('PostgreSQL made unavailable', () => {
  const itemsSchema = { '0001_init.sql': 'CREATE TABLE items (id integer PRIMARY KEY); CREATE SEQUENCE counter;' };
  let place: ThrowawayDatabase;
  let db: Database;
  beforeEach(async () => {
    place = await throwawayDatabase(postgresUrl!, 'gm_db_avail');
    db = await openDatabase({ url: place.url, schema: 'app', migrationsDir: migrationsDir(itemsSchema), connectTimeoutMs: 2_000 });
    await db.query('INSERT INTO items VALUES (1)');
  });
  afterEach(async () => {
    await db?.close();
    await place?.drop();
  });

  /** The error of the first call that fails with `code` underneath, after the connections the pool held were cut (each earlier failure must be unavailability too). */
  async function failureWith(code: string, call: () => Promise<unknown>): Promise<DatabaseUnavailableError> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const error = await call().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error, 'the call succeeded').toBeInstanceOf(DatabaseUnavailableError);
      if (((error as Error).cause as { code?: string }).code === code) return error as DatabaseUnavailableError;
    }
    throw new Error(`no call failed with ${code}`);
  }

  it('refusing connections (ALLOW_CONNECTIONS false, 55000 at connection): statements, exec and transactions are unavailable; allowed again, they work', async () => {
    await place.admin(`ALTER DATABASE "${place.name}" ALLOW_CONNECTIONS false`);
    await place.terminateSessions();
    const refused = await failureWith('55000', () => db.query('SELECT id FROM items'));
    expect(String((refused.cause as Error).message)).toMatch(/not currently accepting connections/);
    await failureWith('55000', () => db.exec('SELECT 1'));
    await failureWith('55000', () => db.transaction((tx) => tx.query('INSERT INTO items VALUES (2)')));
    await place.admin(`ALTER DATABASE "${place.name}" ALLOW_CONNECTIONS true`);
    expect((await db.query('SELECT id FROM items')).rows).toEqual([{ id: 1 }]);
  });

  it('a statement of its own that raises 55000 is still that statement\'s error, not unavailability', async () => {
    const error = await db.query(`SELECT currval('counter')`).catch((failure: unknown) => failure);
    expect(error).not.toBeInstanceOf(DatabaseUnavailableError);
    expect((error as { code?: string }).code).toBe('55000');
  });

  it('read-only (default_transaction_read_only, 25006 on a write): writes are unavailable and change nothing, reads work', async () => {
    await place.admin(`ALTER DATABASE "${place.name}" SET default_transaction_read_only = on`);
    await place.terminateSessions();
    await failureWith('25006', () => db.query('INSERT INTO items VALUES (3)'));
    await failureWith('25006', () => db.transaction((tx) => tx.query('UPDATE items SET id = 4')));
    expect((await db.query('SELECT id FROM items')).rows).toEqual([{ id: 1 }]);
  });

  it('too many connections (CONNECTION LIMIT 0, 53300 at connection): unavailable', async () => {
    await place.admin(`ALTER DATABASE "${place.name}" CONNECTION LIMIT 0`);
    await place.terminateSessions();
    const error = await failureWith('53300', () => db.query('SELECT id FROM items'));
    expect(String((error.cause as Error).message)).toMatch(/too many connections/);
    await failureWith('53300', () => db.transaction((tx) => tx.query('SELECT 1')));
  });

  it('shutting down (57P03 at connection, as a server stopping answers): unavailable', async () => {
    const relay = await relayTo(place.url);
    const viaRelay = await openDatabase({ url: relay.url, schema: 'app', migrationsDir: migrationsDir(itemsSchema) });
    try {
      expect((await viaRelay.query('SELECT id FROM items')).rows).toEqual([{ id: 1 }]);
      relay.refuseWith('57P03', 'the database system is shutting down');
      const error = await failureWith('57P03', () => viaRelay.query('SELECT id FROM items'));
      expect(String((error.cause as Error).message)).toBe('the database system is shutting down');
      await failureWith('57P03', () => viaRelay.transaction((tx) => tx.query('SELECT 1')));
    } finally {
      await relay.cut();
      await viaRelay.close();
    }
  });
});
