/**
 * Per-credential rate limits (rate-limiter-flexible): in memory by default,
 * shared through Redis or PostgreSQL so that several gateway replicas enforce
 * one limit.
 */
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ServiceError } from '@gateway-minds/service-kit';

/** Told how each call to a shared store went, so that its outages are logged once each (stores.ts). */
export interface StoreHealth {
  failed(error: unknown): void;
  answered(): void;
}

const healthOf = new WeakMap<RateLimiterAbstract, StoreHealth>();

export interface RateLimitOptions {
  points: number;
  durationSeconds: number;
  store: 'memory' | 'redis' | 'postgres';
  redis?: unknown;
  /** A pg Pool and the schema for the postgres store. */
  postgres?: { pool: unknown; schema: string };
  /** Separates this limiter's counters from another's in a shared store (default `gateway`). */
  keyPrefix?: string;
  health?: StoreHealth;
}

export async function createRateLimiter(options: RateLimitOptions): Promise<RateLimiterAbstract> {
  const limiter = limiterIn(options);
  if (options.health) healthOf.set(limiter, options.health);
  return limiter;
}

function limiterIn(options: RateLimitOptions): RateLimiterAbstract {
  const common = { points: options.points, duration: options.durationSeconds, keyPrefix: options.keyPrefix ?? 'gateway' };
  if (options.store === 'redis') return new RateLimiterRedis({ ...common, storeClient: options.redis, rejectIfRedisNotReady: true });
  if (options.store === 'postgres') {
    // The table is the gateway's migration 0002, made under the migration lock: replicas starting
    // at once do not race to create it, and the limiter has nothing to wait for.
    return new RateLimiterPostgres({ ...common, storeClient: options.postgres?.pool, storeType: 'pool', schemaName: options.postgres?.schema, tableName: 'rate_limits', tableCreated: true });
  }
  return new RateLimiterMemory(common);
}

/**
 * Spends one point for the request's client address (the connection's peer: behind a proxy, the
 * proxy's), for requests that carry no credential to count against (DECISIONS.md "Rate limits").
 */
export function consumeForAddress(limiter: RateLimiterAbstract, req: { socket: { remoteAddress?: string } }): Promise<void> {
  return consume(limiter, `addr:${req.socket.remoteAddress ?? 'unknown'}`, 'this client address');
}

/** Spends one point for the key (a credential, or a client address); refuses with RATE_LIMITED and Retry-After when the window's points are gone. */
export async function consume(limiter: RateLimiterAbstract, key: string, whose = 'this credential'): Promise<void> {
  const health = healthOf.get(limiter);
  try {
    await limiter.consume(key);
    health?.answered();
  } catch (outcome) {
    if (outcome instanceof RateLimiterRes) {
      health?.answered();
      throw new ServiceError('RATE_LIMITED', `Too many requests for ${whose}.`, {
        retryAfterSeconds: Math.max(1, Math.ceil(outcome.msBeforeNext / 1000)),
      });
    }
    // The store did not answer within its deadline, or is disconnected: nothing was counted.
    health?.failed(outcome);
    throw new ServiceError('RATE_LIMIT_UNAVAILABLE', 'Rate limiting is unavailable.');
  }
}
