/**
 * Per-credential rate limits (rate-limiter-flexible): in memory by default,
 * shared through Redis or PostgreSQL so that several gateway replicas enforce
 * one limit.
 */
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ServiceError } from '@gateway-minds/service-kit';

export interface RateLimitOptions {
  points: number;
  durationSeconds: number;
  store: 'memory' | 'redis' | 'postgres';
  redis?: unknown;
  /** A pg Pool and the schema for the postgres store. */
  postgres?: { pool: unknown; schema: string };
  /** Separates this limiter's counters from another's in a shared store (default `gateway`). */
  keyPrefix?: string;
}

export async function createRateLimiter(options: RateLimitOptions): Promise<RateLimiterAbstract> {
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
  try {
    await limiter.consume(key);
  } catch (outcome) {
    if (outcome instanceof RateLimiterRes) {
      throw new ServiceError('RATE_LIMITED', `Too many requests for ${whose}.`, {
        retryAfterSeconds: Math.max(1, Math.ceil(outcome.msBeforeNext / 1000)),
      });
    }
    throw new ServiceError('RATE_LIMIT_UNAVAILABLE', 'Rate limiting is unavailable.');
  }
}
