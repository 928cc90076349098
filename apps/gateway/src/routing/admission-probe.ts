/**
 * Which operations each registered service admits now, asked of the service itself
 * (GET <url> + ADMITTED_OPERATIONS_PATH, of the first replica that answers), for
 * GET /v1/openapi.json. The service owns its admission settings (MINDS_OWNER_MANAGEMENT_ENABLED...), so the gateway asks rather than
 * reading a copy of them. An answer is cached for the status route's cache_ttl_seconds;
 * without one (unreachable, not 2xx, not the shape) the service counts as admitting only
 * its operations that no admission setting gates, and nothing is cached, so the next
 * request asks again (spec/DECISIONS.md, "The openapi.json body").
 */
import type { OperationFacts } from '@gateway-minds/contract';
import { ADMITTED_OPERATIONS_PATH } from '@gateway-minds/service-kit/side-routes';
import { STATUS_CACHE_TTL_SECONDS } from './status-probe.js';
import { probeReplica, type Upstream, type UpstreamRegistry } from './upstreams.js';

export class AdmissionProbe {
  private readonly cached = new Map<string, { admitted: Set<string>; until: number }>();
  private readonly inFlight = new Map<string, Promise<Set<string>>>();

  /** `operations`: every operation the gateway forwards, so that a service's answer is read against its own. */
  constructor(
    private readonly registry: UpstreamRegistry,
    private readonly operations: readonly OperationFacts[],
  ) {}

  /** The ids of the operations `service` admits now; empty for a service not registered or not enabled. */
  async admitted(service: string): Promise<Set<string>> {
    const upstream = this.registry.get(service);
    if (!upstream?.enabled) return new Set();
    const cached = this.cached.get(service);
    if (cached && cached.until > Date.now()) return cached.admitted;
    let asking = this.inFlight.get(service);
    if (!asking) {
      asking = this.ask(upstream).finally(() => this.inFlight.delete(service));
      this.inFlight.set(service, asking);
    }
    return asking;
  }

  /** Forget the cached answers (tests, and after a configuration change). */
  invalidate(): void {
    this.cached.clear();
  }

  private async ask(upstream: Upstream): Promise<Set<string>> {
    const own = this.operations.filter((o) => o.service === upstream.name);
    // Replicas share their settings: the first that answers speaks for the service.
    for (const replica of upstream.replicas.preferred()) {
      let response: Awaited<ReturnType<typeof probeReplica>>;
      try {
        response = await probeReplica(replica, ADMITTED_OPERATIONS_PATH);
      } catch {
        continue;
      }
      try {
        if (response.statusCode !== 200) {
          await response.body.dump();
          return ungated(own);
        }
        const body = (await response.body.json()) as { operations?: unknown };
        if (!Array.isArray(body?.operations)) return ungated(own);
        const named = new Set(body.operations.filter((id): id is string => typeof id === 'string'));
        // An operation the service names but the contract does not give it is ignored.
        const admitted = new Set(own.filter((o) => named.has(o.operationId)).map((o) => o.operationId));
        this.cached.set(upstream.name, { admitted, until: Date.now() + STATUS_CACHE_TTL_SECONDS * 1000 });
        return admitted;
      } catch {
        return ungated(own);
      }
    }
    return ungated(own);
  }
}

/** What a service admits whatever its settings: its operations no admission setting gates. */
function ungated(operations: readonly OperationFacts[]): Set<string> {
  return new Set(operations.filter((o) => !o.admissionSetting).map((o) => o.operationId));
}
