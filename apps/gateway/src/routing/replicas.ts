/**
 * The replicas of one service (MINDS_URL may list several): a keep-alive pool per replica, which
 * of them answer their health route, and the choice of one for each request
 * (spec/DECISIONS.md, "Several replicas of a service").
 *
 * With more than one replica each is probed every healthIntervalMs at HEALTH_PATH: one that does
 * not answer 2xx leaves the rotation, and comes back when it answers 2xx again. A replica that
 * refuses a connection leaves at once, without waiting for its probe. A request goes to the least
 * busy replica in the rotation (ties in turn). When none is in the rotation the replicas are still
 * tried, since a probe may be behind: a single replica, or every replica down, behaves as one
 * URL always has.
 */
import { Pool } from 'undici';
import { HEALTH_PATH } from '@gateway-minds/service-kit/side-routes';

export interface Replica {
  readonly url: string;
  readonly pool: Pool;
  /** In the rotation: answered its last health probe, or has not yet failed one. */
  healthy: boolean;
  /** Requests dispatched to it and not yet answered. */
  inFlight: number;
}

/** How long the gateway waits for a service's side route (its health, its admitted operations). */
export const PROBE_TIMEOUT_MS = 2000;

/** A GET of one of a replica's side routes, outside the contract, bounded by PROBE_TIMEOUT_MS. */
export function probeReplica(replica: Replica, path: string): ReturnType<Pool['request']> {
  return replica.pool.request({ path, method: 'GET', headersTimeout: PROBE_TIMEOUT_MS, bodyTimeout: PROBE_TIMEOUT_MS, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
}

export class ReplicaSet {
  readonly replicas: readonly Replica[];
  /** Where the search for a tie's winner starts, advanced on every choice: round robin among equals. */
  private turn = 0;
  private readonly probing = new Set<Replica>();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(urls: readonly string[], poolOptions: Pool.Options, healthIntervalMs: number) {
    if (urls.length === 0) throw new Error('a service needs at least one replica URL');
    this.replicas = urls.map((url) => ({ url, pool: new Pool(url, poolOptions), healthy: true, inFlight: 0 }));
    // One replica has no other to send a request to: it is always tried, and needs no probe.
    if (this.replicas.length > 1) {
      if (!(healthIntervalMs > 0)) throw new Error(`the health probe interval must be a positive number of milliseconds, got ${healthIntervalMs}`);
      this.timer = setInterval(() => this.probeAll(), healthIntervalMs).unref();
      this.probeAll();
    }
  }

  /**
   * The replica for the next attempt, never one already `tried`: the least busy in the rotation,
   * else (none in it) the least busy of the rest; undefined when every replica has been tried.
   */
  choose(tried: ReadonlySet<Replica> = new Set()): Replica | undefined {
    const untried = this.replicas.filter((r) => !tried.has(r));
    const healthy = untried.filter((r) => r.healthy);
    const candidates = healthy.length > 0 ? healthy : untried;
    if (candidates.length === 0) return undefined;
    const start = this.turn++ % candidates.length;
    let best = candidates[start]!;
    for (let i = 1; i < candidates.length; i++) {
      const candidate = candidates[(start + i) % candidates.length]!;
      if (candidate.inFlight < best.inFlight) best = candidate;
    }
    return best;
  }

  /** Every replica, those in the rotation first: the order to ask a side route in. */
  preferred(): Replica[] {
    return [...this.replicas].sort((a, b) => Number(b.healthy) - Number(a.healthy));
  }

  /** The connection to `replica` could not be opened: out of the rotation until its probe answers. */
  unreachable(replica: Replica): void {
    if (this.replicas.length > 1) replica.healthy = false;
  }

  /** `replica` answered a request: it is reachable again, whatever its last probe said. */
  answered(replica: Replica): void {
    replica.healthy = true;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.replicas.map((r) => r.pool.close()));
  }

  private probeAll(): void {
    for (const replica of this.replicas) {
      // A probe still waiting (at most PROBE_TIMEOUT_MS) is not doubled.
      if (this.probing.has(replica)) continue;
      this.probing.add(replica);
      void this.probe(replica).finally(() => this.probing.delete(replica));
    }
  }

  private async probe(replica: Replica): Promise<void> {
    try {
      const response = await probeReplica(replica, HEALTH_PATH);
      await response.body.dump();
      replica.healthy = response.statusCode >= 200 && response.statusCode < 300;
    } catch {
      replica.healthy = false;
    }
  }
}
