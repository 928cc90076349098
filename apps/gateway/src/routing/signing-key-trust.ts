/**
 * Whether each registered service trusts the key this gateway signs its assertions with: the
 * service lists the ids of its trusted keys at ASSERTION_KEY_IDS_PATH, and the gateway looks for
 * its own signing key's id there. A service that would refuse every assertion is then reported
 * (one log line when it is found, GET /v1/status) and its operations are answered 503
 * FLOCKS_SIGNING_KEY_MISSING (reason signing_key_untrusted) instead of relaying its 401
 * (spec/DECISIONS.md, "Assertion keys and their rotation").
 *
 * An answer is reused for TRUST_RECHECK_MS. Past that, a trusted answer keeps serving while the
 * next is asked in the background; any other is asked again before answering, so a deployment
 * that has been put right forwards at once, and a service that started after the gateway is
 * asked before the first call to it is forwarded. A service that does not answer the route
 * (not reachable, not 2xx, not the shape) counts as trusting: its own answer then decides.
 */
import type { Logger } from '@gateway-minds/service-kit';
import { ASSERTION_KEY_IDS_PATH } from '@gateway-minds/service-kit/side-routes';
import { probeReplica, type Upstream, type UpstreamRegistry } from './upstreams.js';

export type SigningKeyTrustState = 'trusted' | 'untrusted' | 'unknown';

/** How long one service's answer is reused: how soon a gateway notices a service dropped its key. */
export const TRUST_RECHECK_MS = 5000;

export class SigningKeyTrust {
  private readonly known = new Map<string, { state: SigningKeyTrustState; until: number }>();
  private readonly asking = new Map<string, Promise<SigningKeyTrustState>>();

  /** `kid`: the id of the key this gateway signs with. */
  constructor(
    private readonly registry: UpstreamRegistry,
    private readonly kid: string,
    private readonly logger: Logger,
  ) {}

  /** Asks every enabled service now, so that a mismatch is in the log from the start. */
  checkAll(): Promise<SigningKeyTrustState[]> {
    return Promise.all(this.registry.all().filter((u) => u.enabled).map((u) => this.ask(u)));
  }

  /** Whether forwarding to `upstream` would be refused for the signing key; cheap while an answer is fresh. */
  async refuses(upstream: Upstream): Promise<boolean> {
    const known = this.known.get(upstream.name);
    if (known && known.until > Date.now()) return known.state === 'untrusted';
    if (known?.state === 'trusted') {
      void this.ask(upstream);
      return false;
    }
    return (await this.ask(upstream)) === 'untrusted';
  }

  /** A fresh answer from `upstream` (the status route asks this). */
  ask(upstream: Upstream): Promise<SigningKeyTrustState> {
    let asking = this.asking.get(upstream.name);
    if (!asking) {
      asking = this.askNow(upstream).finally(() => this.asking.delete(upstream.name));
      this.asking.set(upstream.name, asking);
    }
    return asking;
  }

  private async askNow(upstream: Upstream): Promise<SigningKeyTrustState> {
    let state: SigningKeyTrustState = 'unknown';
    let kids: string[] | undefined;
    // The first replica that answers speaks for the service: its replicas share one key set.
    for (const replica of upstream.replicas.preferred()) {
      try {
        const response = await probeReplica(replica, ASSERTION_KEY_IDS_PATH);
        if (response.statusCode === 200) {
          const body = (await response.body.json()) as { kids?: unknown };
          if (Array.isArray(body?.kids)) {
            kids = body.kids.filter((kid): kid is string => typeof kid === 'string');
            state = kids.includes(this.kid) ? 'trusted' : 'untrusted';
          }
        } else {
          await response.body.dump();
        }
        break;
      } catch {
        // Unreachable: the next replica, else the status route and forwarding report it on their own.
      }
    }
    const before = this.known.get(upstream.name)?.state;
    this.known.set(upstream.name, { state, until: Date.now() + TRUST_RECHECK_MS });
    if (state === 'untrusted' && before !== 'untrusted') {
      this.logger.error(
        { service: upstream.name, kid: this.kid, trustedKids: kids },
        `the ${upstream.name} service does not trust this gateway's assertion signing key (kid ${this.kid}): its operations answer 503 FLOCKS_SIGNING_KEY_MISSING until the service's key set (ASSERTION_PUBLIC_KEYS or ASSERTION_PUBLIC_KEYS_FILE) holds this key`,
      );
    } else if (state === 'trusted' && before === 'untrusted') {
      this.logger.info({ service: upstream.name, kid: this.kid }, `the ${upstream.name} service trusts this gateway's assertion signing key again`);
    }
    return state;
  }
}
