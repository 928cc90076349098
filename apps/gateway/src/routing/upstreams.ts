/**
 * Registered upstream services: name -> URL, enabled flag, deadline. Each has
 * a keep-alive connection pool; the status route probes them.
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
        pool: new Pool(config.url, { connections: 64, keepAliveTimeout: 30_000, pipelining: 1, maxResponseSize: MAX_UPSTREAM_BODY_BYTES }),
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
