/**
 * Registered upstream services: name -> replica URLs, enabled flag, deadline. Each replica has
 * a keep-alive connection pool (over TCP, or in memory to a service in this process); the
 * replica set keeps the ones that answer in the rotation (replicas.ts), and the status route
 * probes them.
 */
import { gatewayLimits } from '@gateway-minds/contract';
import type { UpstreamConfig } from '../config.js';
import { ReplicaSet } from './replicas.js';

export { PROBE_TIMEOUT_MS, probeReplica, type Replica } from './replicas.js';

/** Upstream bodies above this are refused as BAD_GATEWAY (response_too_large; DECISIONS.md "Relay failures"). */
export const MAX_UPSTREAM_BODY_BYTES = gatewayLimits.maxUpstreamResponseBytes;

export interface Upstream extends UpstreamConfig {
  replicas: ReplicaSet;
}

export class UpstreamRegistry {
  private readonly upstreams = new Map<string, Upstream>();

  constructor(configs: UpstreamConfig[]) {
    for (const config of configs) {
      // An in-process connector reaches the one service in this process: it cannot stand for several.
      if (config.connect && config.urls.length !== 1) throw new Error(`the ${config.name} service is in this process, so it has one URL, not ${config.urls.length}`);
      const poolOptions = { connections: 64, keepAliveTimeout: 30_000, pipelining: 1, maxResponseSize: MAX_UPSTREAM_BODY_BYTES, ...(config.connect ? { connect: config.connect } : {}) };
      this.upstreams.set(config.name, { ...config, replicas: new ReplicaSet(config.urls, poolOptions, config.healthIntervalMs) });
    }
  }

  get(name: string): Upstream | undefined {
    return this.upstreams.get(name);
  }

  all(): Upstream[] {
    return [...this.upstreams.values()];
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((u) => u.replicas.close()));
  }
}
