/**
 * Registered upstream services: name -> URL, enabled flag, deadline. Each has
 * a keep-alive connection pool; the status route probes them.
 */
import { Pool } from 'undici';
import type { UpstreamConfig } from '../config.js';

export interface Upstream extends UpstreamConfig {
  pool: Pool;
}

export class UpstreamRegistry {
  private readonly upstreams = new Map<string, Upstream>();

  constructor(configs: UpstreamConfig[]) {
    for (const config of configs) {
      this.upstreams.set(config.name, {
        ...config,
        pool: new Pool(config.url, { connections: 64, keepAliveTimeout: 30_000, pipelining: 1 }),
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
