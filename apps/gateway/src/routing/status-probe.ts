/**
 * The status route's live probe of every registered service (GET <url> + HEALTH_PATH),
 * cached for the contract's cache_ttl_seconds so a burst of status calls makes
 * one probe.
 */
import { openapiDocument } from '@gateway-minds/contract/document';
import type { Schemas } from '@gateway-minds/contract';
import { HEALTH_PATH } from '@gateway-minds/service-kit/side-routes';
import type { SigningKeyTrust } from './signing-key-trust.js';
import { probeUpstream, type UpstreamRegistry } from './upstreams.js';

type GatewayStatus = Schemas['GatewayStatus'];
type ServiceStatus = Schemas['ServiceStatus'];

/** 30 seconds, read from the contract (GatewayStatus.cache_ttl_seconds). */
export const STATUS_CACHE_TTL_SECONDS = (
  openapiDocument.components!.schemas!.GatewayStatus as { properties: { cache_ttl_seconds: { const: 30 } } }
).properties.cache_ttl_seconds.const;


export class StatusProbe {
  private cached: { status: GatewayStatus; until: number } | undefined;
  private inFlight: Promise<GatewayStatus> | undefined;

  /**
   * `builtIn` services are answered by the gateway itself and always up. `signing`: whether the
   * services trust the gateway's signing key, or 'missing' when it has none; a service that answers
   * but would refuse its assertions is `degraded` with the reason (ServiceStatus.reason).
   */
  constructor(
    private readonly registry: UpstreamRegistry,
    private readonly builtIn: string[],
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
    const services: ServiceStatus[] = this.builtIn.map((service) => ({ service, state: 'up', http_status: 200, latency_ms: 0 }));
    services.push(...(await Promise.all(this.registry.all().map(async (upstream): Promise<ServiceStatus> => {
      if (!upstream.enabled) return { service: upstream.name, state: 'disabled', http_status: 503, latency_ms: 0 };
      const started = performance.now();
      try {
        const response = await probeUpstream(upstream, HEALTH_PATH);
        await response.body.dump();
        const latency = Math.round(performance.now() - started);
        const ok = response.statusCode >= 200 && response.statusCode < 300;
        if (!ok) return { service: upstream.name, state: 'degraded', http_status: response.statusCode, latency_ms: latency };
        // 503: what forwarding answers for it (FLOCKS_SIGNING_KEY_MISSING).
        if (this.signing === 'missing') return { service: upstream.name, state: 'degraded', http_status: 503, latency_ms: latency, reason: 'signing_key_missing' };
        if (this.signing && (await this.signing.ask(upstream)) === 'untrusted') {
          return { service: upstream.name, state: 'degraded', http_status: 503, latency_ms: latency, reason: 'signing_key_untrusted' };
        }
        return { service: upstream.name, state: 'up', http_status: response.statusCode, latency_ms: latency };
      } catch (error) {
        const latency = Math.round(performance.now() - started);
        const timedOut = error instanceof Error && /timeout|abort/i.test(`${error.name} ${error.message}`);
        return { service: upstream.name, state: 'down', http_status: timedOut ? 504 : 502, latency_ms: latency };
      }
    }))));
    const status: GatewayStatus = {
      object: 'gateway_status',
      checked_at: new Date().toISOString(),
      cache_ttl_seconds: STATUS_CACHE_TTL_SECONDS,
      services,
    };
    this.cached = { status, until: Date.now() + STATUS_CACHE_TTL_SECONDS * 1000 };
    return status;
  }
}
