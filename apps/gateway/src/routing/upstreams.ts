/**
 * Registered upstream services: name -> URL, enabled flag, deadline. Each has
 * a keep-alive connection pool (over TCP, or in memory to a service in this
 * process); the status route probes them.
 */
import { Pool } from 'undici';
import { gatewayLimits } from '@gateway-minds/contract';
import type { UpstreamConfig } from '../config.js';

/** Upstream bodies above this are refused as BAD_GATEWAY (response_too_large; DECISIONS.md "Relay failures"). */
export const MAX_UPSTREAM_BODY_BYTES = gatewayLimits.maxUpstreamResponseBytes;

export interface Upstream extends UpstreamConfig {
  pool: Pool;
}

export class UpstreamRegistry {
  private readonly upstreams = new Map<string, Upstream>();

  constructor(configs: UpstreamConfig[]) {
    for (const config of configs) {
      this.upstreams.set(config.name, {
        ...config,
        pool: new Pool(config.url, { connections: 64, keepAliveTimeout: 30_000, pipelining: 1, maxResponseSize: MAX_UPSTREAM_BODY_BYTES, ...(config.connect ? { connect: config.connect } : {}) }),
      });
    }
  }

  get(name: string): Upstream | undefined {
    return this.upstreams.get(name);
  }

  all(): Upstream[] {
    return [...this.upstreams.values()];
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((u) => u.pool.close()));
  }
}

/** How long the gateway waits for a service's side route (its health, its admitted operations). */
export const PROBE_TIMEOUT_MS = 2000;

/** A GET of one of a service's side routes, outside the contract, bounded by PROBE_TIMEOUT_MS. */
export function probeUpstream(upstream: Upstream, path: string): ReturnType<Pool['request']> {
  return upstream.pool.request({ path, method: 'GET', headersTimeout: PROBE_TIMEOUT_MS, bodyTimeout: PROBE_TIMEOUT_MS, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
}
