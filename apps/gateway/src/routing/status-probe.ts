/**
 * The status route's live probe of every registered service (GET <url> + HEALTH_PATH on each
 * of its replicas: up while one of them is) and of the stores shared with other gateways, cached
 * for the contract's cache_ttl_seconds so a burst of status calls makes one probe.
 */
import { openapiDocument } from '@gateway-minds/contract/document';
import type { Schemas } from '@gateway-minds/contract';
import { HEALTH_PATH } from '@gateway-minds/service-kit/side-routes';
import type { SigningKeyTrust } from './signing-key-trust.js';
import { probeReplica, type Replica, type UpstreamRegistry } from './upstreams.js';

type GatewayStatus = Schemas['GatewayStatus'];
type ServiceStatus = Schemas['ServiceStatus'];
type StoreStatus = Schemas['StoreStatus'];

/** 30 seconds, read from the contract (GatewayStatus.cache_ttl_seconds). */
export const STATUS_CACHE_TTL_SECONDS = (
  openapiDocument.components!.schemas!.GatewayStatus as { properties: { cache_ttl_seconds: { const: 30 } } }
).properties.cache_ttl_seconds.const;

export class StatusProbe {
  private cached: { status: GatewayStatus; until: number } | undefined;
  private inFlight: Promise<GatewayStatus> | undefined;

  /**
   * `builtIn` services are answered by the gateway itself and always up; `stores` probes the shared
   * stores (stores.ts). `signing`: whether the services trust the gateway's signing key, or
   * 'missing' when it has none; a service that answers but would refuse its assertions is
   * `degraded` with the reason (ServiceStatus.reason).
   */
  constructor(
    private readonly registry: UpstreamRegistry,
    private readonly builtIn: string[],
    private readonly stores: () => Promise<StoreStatus[]> = async () => [],
    private readonly signing?: SigningKeyTrust | 'missing',
  ) {}

  async status(): Promise<GatewayStatus> {
    if (this.cached && this.cached.until > Date.now()) return this.cached.status;
    this.inFlight ??= this.probeAll().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /** Forget the cached probe (tests, and after a configuration change). */
  invalidate(): void {
    this.cached = undefined;
  }

  private async probeAll(): Promise<GatewayStatus> {
    const stores = this.stores();
    const services: ServiceStatus[] = this.builtIn.map((service) => ({ service, state: 'up', http_status: 200, latency_ms: 0 }));
    services.push(...(await Promise.all(this.registry.all().map(async (upstream): Promise<ServiceStatus> => {
      if (!upstream.enabled) return { service: upstream.name, state: 'disabled', http_status: 503, latency_ms: 0 };
      const seen = await Promise.all(upstream.replicas.replicas.map((replica) => probeHealth(upstream.name, replica)));
      // The service is up while one replica answers (spec/DECISIONS.md, "Several replicas of a service").
      const best = seen.sort((a, b) => stateRank[a.state] - stateRank[b.state] || a.latency_ms - b.latency_ms)[0]!;
      if (best.state !== 'up') return best;
      // 503: what forwarding answers for it (FLOCKS_SIGNING_KEY_MISSING).
      if (this.signing === 'missing') return { ...best, state: 'degraded', http_status: 503, reason: 'signing_key_missing' };
      if (this.signing && (await this.signing.ask(upstream)) === 'untrusted') return { ...best, state: 'degraded', http_status: 503, reason: 'signing_key_untrusted' };
      return best;
    }))));
    const status: GatewayStatus = {
      object: 'gateway_status',
      checked_at: new Date().toISOString(),
      cache_ttl_seconds: STATUS_CACHE_TTL_SECONDS,
      services,
      stores: await stores,
    };
    this.cached = { status, until: Date.now() + STATUS_CACHE_TTL_SECONDS * 1000 };
    return status;
  }
}

const stateRank: Record<ServiceStatus['state'], number> = { up: 0, degraded: 1, down: 2, disabled: 3 };

/** One replica's health as the status route reports a service. */
async function probeHealth(service: string, replica: Replica): Promise<ServiceStatus> {
  const started = performance.now();
  try {
    const response = await probeReplica(replica, HEALTH_PATH);
    await response.body.dump();
    const latency = Math.round(performance.now() - started);
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return { service, state: ok ? 'up' : 'degraded', http_status: response.statusCode, latency_ms: latency };
  } catch (error) {
    const latency = Math.round(performance.now() - started);
    const timedOut = error instanceof Error && /timeout|abort/i.test(`${error.name} ${error.message}`);
    return { service, state: 'down', http_status: timedOut ? 504 : 502, latency_ms: latency };
  }
}
