/**
 * The store the gateways of a deployment share (RATE_LIMIT_STORE): rate limits, used DPoP proofs
 * and the DPoP nonce secret, in Redis, in PostgreSQL, or in this process's memory when the gateway
 * runs alone. Every call to a shared store has a deadline (STORE_TIMEOUT_MS) and fails at once while
 * the store is disconnected, so a store that is down or stalled is answered with its catalog code
 * (RATE_LIMIT_UNAVAILABLE, AUTH_UNAVAILABLE) within about that deadline, never a hang or a 500.
 * Each store's outages are logged once when they begin and once when they end.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import type { Schemas } from '@gateway-minds/contract';
import { applicationName, isDatabaseUnavailable, type Database } from '@gateway-minds/db';
import type { Logger } from '@gateway-minds/service-kit';
import { MemoryReplayStore, processNonceSecret, StoreUnavailableError, type NonceSecret, type ReplayStore } from './auth/dpop.js';
import type { StoreHealth } from './auth/rate-limit.js';
import type { GatewayConfig, SharedStoreKind } from './config.js';

type StoreStatus = Schemas['StoreStatus'];

export interface SharedStores {
  kind: SharedStoreKind;
  /** What the rate limiters are built on (rate-limit.ts createRateLimiter). */
  limiter: { store: SharedStoreKind; redis?: unknown; postgres?: { pool: unknown; schema: string }; health?: StoreHealth };
  replay: ReplayStore;
  nonceSecret: NonceSecret;
  /** Every store shared with other gateways, probed now, each within the deadline. */
  probe(): Promise<StoreStatus[]>;
  /** Resolves true once every shared store answers, false if they still do not after `waitMs`. */
  waitUntilReady(waitMs: number): Promise<boolean>;
  /** The readiness side route (HEALTH_PATH): 200 while every shared store answers, else 503. */
  health(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
}

/**
 * Logs a store's availability once per change, without a stack: a store that is down fails every
 * call (and Redis reports each reconnection attempt), which would otherwise fill the log.
 */
class Availability implements StoreHealth {
  private up: boolean | undefined;

  constructor(
    private readonly store: StoreStatus['store'],
    private readonly logger: Logger,
  ) {}

  failed(error: unknown): void {
    if (this.up === false) return;
    this.up = false;
    this.logger.warn({ store: this.store, error: error instanceof Error ? error.message : String(error) }, `${this.store} unavailable: requests that need it are answered 503`);
  }

  answered(): void {
    if (this.up === false) this.logger.info({ store: this.store }, `${this.store} available again`);
    this.up = true;
  }
}

/**
 * Redis errors that mean the server or the connection, not the command: anything but a reply
 * (timeouts, a closed or unwritable connection), and the replies of a server that cannot serve now.
 */
function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return true;
  if (error.name !== 'ReplyError') return true;
  return /^(LOADING|READONLY|OOM|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|MISCONF) /.test(error.message);
}

/** Runs a call to a store, telling `health` how it went and turning its unavailability into StoreUnavailableError. */
async function call<T>(store: StoreStatus['store'], health: Availability, work: () => Promise<T>): Promise<T> {
  try {
    const result = await work();
    health.answered();
    return result;
  } catch (error) {
    const unavailable = store === 'redis' ? isRedisUnavailable(error) : isDatabaseUnavailable(error);
    if (!unavailable) throw error;
    health.failed(error);
    throw new StoreUnavailableError(store, error);
  }
}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Reads the shared secret once it exists; a failed read is tried again on the next call. */
function memoizedSecret(read: () => Promise<Uint8Array>): NonceSecret {
  let secret: Promise<Uint8Array> | undefined;
  return () =>
    (secret ??= read().catch((error: unknown) => {
      secret = undefined;
      throw error;
    }));
}

/** Used proofs in Redis: SET NX with an expiry, so the first gateway to claim a proof wins and Redis forgets it when it could no longer pass. */
class RedisReplayStore implements ReplayStore {
  constructor(
    private readonly redis: Redis,
    private readonly health: Availability,
  ) {}

  async claim(jti: string, ttlSeconds: number): Promise<boolean> {
    return (await call('redis', this.health, () => this.redis.set(`dpop:jti:${jti}`, '1', 'PX', ttlSeconds * 1000, 'NX'))) === 'OK';
  }
}

const EXPIRED_PROOFS_CLEANUP_MS = 60_000;

/** Used proofs in PostgreSQL (migration 0003): the primary key admits one claim per proof, from whichever gateway comes first. */
class PostgresReplayStore implements ReplayStore {
  private nextCleanup = 0;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly health: Availability,
  ) {}

  async claim(jti: string, ttlSeconds: number): Promise<boolean> {
    const result = await call('postgres', this.health, () =>
      this.pool.query(
        `insert into "${this.schema}".dpop_proofs (proof_key, expires_at) values ($1, now() + make_interval(secs => $2)) on conflict (proof_key) do nothing`,
        [jti, ttlSeconds],
      ),
    );
    this.cleanUpNowAndThen();
    return result.rowCount === 1;
  }

  /** At most once a minute per gateway, through the expiry index; a failure waits for the next turn (the claim itself already answered). */
  private cleanUpNowAndThen(): void {
    if (Date.now() < this.nextCleanup) return;
    this.nextCleanup = Date.now() + EXPIRED_PROOFS_CLEANUP_MS;
    this.pool.query(`delete from "${this.schema}".dpop_proofs where expires_at < now()`).catch(() => undefined);
  }
}

export async function openSharedStores(config: GatewayConfig, db: Database, logger: Logger): Promise<SharedStores> {
  const kind = config.rateLimit.store;
  const timeoutMs = config.stores.timeoutMs;
  const probes: Array<() => Promise<StoreStatus>> = [];
  const closers: Array<() => Promise<unknown>> = [];

  const timed = async (store: StoreStatus['store'], health: Availability, check: () => Promise<unknown>): Promise<StoreStatus> => {
    const started = performance.now();
    try {
      await check();
      health.answered();
      return { store, state: 'up', latency_ms: Math.round(performance.now() - started) };
    } catch (error) {
      health.failed(error);
      return { store, state: 'down', latency_ms: Math.round(performance.now() - started) };
    }
  };

  // The gateway's own database (credentials, usage) is shared whenever it is a PostgreSQL server.
  const postgresHealth = new Availability('postgres', logger);
  if (config.databaseUrl) probes.push(() => timed('postgres', postgresHealth, () => withDeadline(db.query('select 1'), timeoutMs, 'postgres')));

  let limiter: SharedStores['limiter'] = { store: kind };
  let replay: ReplayStore = new MemoryReplayStore();
  let nonceSecret = processNonceSecret();

  if (kind === 'redis') {
    const { Redis } = await import('ioredis');
    const health = new Availability('redis', logger);
    const redis = new Redis(config.rateLimit.redisUrl!, {
      keyPrefix: config.stores.redisKeyPrefix,
      commandTimeout: timeoutMs,
      // While disconnected a command fails at once instead of waiting in a queue for a reconnection.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: Math.max(timeoutMs, 2_000),
    });
    redis.on('error', (error: Error) => health.failed(error));
    redis.on('ready', () => health.answered());
    const connected = () =>
      redis.status === 'ready'
        ? Promise.resolve()
        : withDeadline(new Promise<void>((resolve) => redis.once('ready', () => resolve())), timeoutMs, `redis ${redis.status}`);
    probes.push(() => timed('redis', health, async () => {
      await connected();
      await redis.ping();
    }));
    limiter = { store: 'redis', redis, health };
    replay = new RedisReplayStore(redis, health);
    nonceSecret = memoizedSecret(async () => {
      // NX lets exactly one gateway's secret in; every gateway then reads that one.
      await call('redis', health, () => redis.set('dpop:nonce-secret', randomBytes(32).toString('base64url'), 'NX'));
      const secret = await call('redis', health, () => redis.get('dpop:nonce-secret'));
      if (!secret) throw new Error('redis lost the DPoP nonce secret');
      return Buffer.from(secret, 'base64url');
    });
    closers.push(() => redis.quit().catch(() => redis.disconnect()));
  }

  if (kind === 'postgres') {
    const { default: pg } = await import('pg');
    const health = postgresHealth;
    const pool = new pg.Pool({
      connectionString: config.databaseUrl,
      max: 4,
      connectionTimeoutMillis: timeoutMs,
      // The client stops waiting, and the server stops the statement (it would otherwise run on,
      // after a lock it waits for, with nobody to answer).
      query_timeout: timeoutMs,
      statement_timeout: timeoutMs,
      application_name: applicationName(config.databaseSchema),
    });
    // An idle connection that breaks is dropped and replaced on next use; without a listener the
    // pool's 'error' event would end the process.
    pool.on('error', (error) => health.failed(error));
    const schema = config.databaseSchema;
    limiter = { store: 'postgres', postgres: { pool, schema }, health };
    replay = new PostgresReplayStore(pool, schema, health);
    nonceSecret = memoizedSecret(async () => {
      // The primary key lets exactly one gateway's secret in; every gateway then reads that one.
      await call('postgres', health, () => pool.query(`insert into "${schema}".dpop_nonce_secret (id, secret) values (1, $1) on conflict (id) do nothing`, [randomBytes(32)]));
      const { rows } = await call('postgres', health, () => pool.query<{ secret: Buffer }>(`select secret from "${schema}".dpop_nonce_secret where id = 1`));
      if (!rows[0]) throw new Error('postgres lost the DPoP nonce secret');
      return rows[0].secret;
    });
    closers.push(() => pool.end());
  }

  const probe = () => Promise.all(probes.map((run) => run()));

  // The readiness route is unauthenticated: concurrent and back-to-back calls share one probe.
  let recent: { at: number; statuses: Promise<StoreStatus[]> } | undefined;
  const recentProbe = () => {
    if (!recent || Date.now() - recent.at > 1_000) recent = { at: Date.now(), statuses: probe() };
    return recent.statuses;
  };

  return {
    kind,
    limiter,
    replay,
    nonceSecret,
    probe,
    async waitUntilReady(waitMs) {
      const until = Date.now() + waitMs;
      for (;;) {
        if ((await probe()).every((s) => s.state === 'up')) return true;
        if (Date.now() >= until) return false;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    health(req, res) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
      void recentProbe().then((stores) => {
        const ready = stores.every((s) => s.state === 'up');
        const body = JSON.stringify({ status: ready ? 'ok' : 'unavailable', stores });
        res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : body);
      });
    },
    async close() {
      await Promise.all(closers.map((close) => close()));
    },
  };
}
