/**
 * Wake-ups across replicas on PostgreSQL: a desired-state change notifies WORK_CHANNEL with its
 * schema (in the transaction that makes it, so the notification leaves at commit), and every replica
 * listens on a connection of its own and wakes its controller at once. Only a hint: the due-time
 * queue is what the controller claims from, so a notification lost with a connection costs at
 * most one tick. The listener reconnects after a second and then wakes the controller once, for
 * whatever changed while it was away.
 */
import pg from 'pg';
import { applicationName, type Queryable } from '@gateway-minds/db';
import type { Logger } from '@gateway-minds/service-kit';

export const WORK_CHANNEL = 'minds_work';
const RECONNECT_MS = 1000;

/** Tells every listening replica that a Mind of this schema has changed work. */
export async function notifyWork(tx: Queryable): Promise<void> {
  await tx.query(`SELECT pg_notify('${WORK_CHANNEL}', current_schema())`);
}

export class WorkListener {
  readonly #url: string;
  readonly #schema: string;
  readonly #onWork: () => void;
  readonly #logger: Logger;
  #client: pg.Client | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(url: string, schema: string, onWork: () => void, logger: Logger) {
    this.#url = url;
    this.#schema = schema;
    this.#onWork = onWork;
    this.#logger = logger;
  }

  /** Resolves once listening, or after the first attempt failed (it then keeps trying). */
  async start(): Promise<void> {
    await this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: this.#url, application_name: applicationName(this.#schema) });
    let lost = false;
    const reconnect = (error?: unknown) => {
      if (lost) return;
      lost = true;
      if (this.#client === client) this.#client = undefined;
      client.end().catch(() => {});
      if (this.#closed) return;
      this.#logger.warn({ err: error }, 'controller wake-up connection lost; the queue is still read every tick');
      this.#retry = setTimeout(() => void this.#connect(), RECONNECT_MS);
      this.#retry.unref();
    };
    client.on('notification', (message) => {
      if (message.channel === WORK_CHANNEL && message.payload === this.#schema) this.#onWork();
    });
    client.on('error', reconnect);
    client.on('end', () => reconnect());
    try {
      await client.connect();
      await client.query(`LISTEN ${WORK_CHANNEL}`);
    } catch (error) {
      reconnect(error);
      return;
    }
    if (this.#closed) {
      lost = true;
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
    this.#onWork();
  }
}
