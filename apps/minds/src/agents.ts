/**
 * Agent identities belong to the gateway's IAM. The Minds service asks it
 * whether an agent exists in the caller's organization (adding a group member,
 * attaching an agent) and copies the agent's DID and creation time.
 */
import type { ErrorReason } from '@gateway-minds/contract';
import { ServiceError, ASSERTION_HEADER } from '@gateway-minds/service-kit';

export interface AgentRecord {
  id: string;
  organizationId: string;
  did: string;
  createdAtMs: number;
}

export interface AgentLookupContext {
  /** The caller's organization: an agent of another organization is reported as missing. */
  org: string;
  /** The gateway assertion this request arrived with, forwarded as the caller's authority. */
  assertion: string;
  requestId: string;
}

export interface AgentDirectory {
  /** The agent, or null when it does not exist in ctx.org. Throws ServiceError when the directory cannot answer. */
  find(agentId: string, ctx: AgentLookupContext): Promise<AgentRecord | null>;
}

const didPattern = /^did:[A-Za-z0-9:._%-]{1,512}$/;

function isAgentRecord(value: unknown): value is AgentRecord {
  const v = value as Partial<AgentRecord> | null;
  return (
    typeof v === 'object' && v !== null &&
    typeof v.id === 'string' && typeof v.organizationId === 'string' &&
    typeof v.did === 'string' && didPattern.test(v.did) &&
    typeof v.createdAtMs === 'number' && Number.isSafeInteger(v.createdAtMs) && v.createdAtMs >= 1
  );
}

/**
 * The request could not open a connection (refused, name not found, host unreachable, no
 * connection in time): nothing reached that gateway, so another may be asked.
 */
function connectionNotOpened(error: unknown): boolean {
  const code = ((error as { cause?: { code?: unknown } } | null)?.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'].includes(code);
}

/**
 * GET {baseUrl}/internal/iam/agents/{agent_id} with the caller's assertion: 200 the agent, 404 none.
 * With several gateways (IAM_INTERNAL_URL lists their admin URLs) each lookup starts at the next
 * one in turn, and moves on to another only when a connection to it could not be opened: a
 * lookup that reached a gateway is answered by that gateway, as with one URL
 * (spec/DECISIONS.md, "Several replicas of a service").
 */
export class HttpAgentDirectory implements AgentDirectory {
  readonly #baseUrls: string[];
  readonly #timeoutMs: number;
  #turn = 0;

  constructor(baseUrls: string | readonly string[], timeoutMs = 3000) {
    this.#baseUrls = (typeof baseUrls === 'string' ? [baseUrls] : [...baseUrls]).map((url) => url.replace(/\/+$/, ''));
    if (this.#baseUrls.length === 0) throw new Error('the agent directory needs at least one URL');
    this.#timeoutMs = timeoutMs;
  }

  async find(agentId: string, ctx: AgentLookupContext): Promise<AgentRecord | null> {
    const unavailable = (why: ErrorReason<'SERVICE_UNAVAILABLE'>) => new ServiceError('SERVICE_UNAVAILABLE', 'The agent directory is unavailable; try again.', { reason: why });
    // One deadline for the lookup, whichever gateways it asks.
    const signal = AbortSignal.timeout(this.#timeoutMs);
    const first = this.#turn++ % this.#baseUrls.length;
    let response: Response | undefined;
    for (let i = 0; i < this.#baseUrls.length && !response; i++) {
      const baseUrl = this.#baseUrls[(first + i) % this.#baseUrls.length]!;
      try {
        response = await fetch(`${baseUrl}/internal/iam/agents/${encodeURIComponent(agentId)}`, {
          headers: { [ASSERTION_HEADER]: ctx.assertion, 'x-request-id': ctx.requestId, accept: 'application/json' },
          signal,
          redirect: 'error',
        });
      } catch (error) {
        if (!connectionNotOpened(error) || signal.aborted) break;
      }
    }
    if (!response) throw unavailable('agent_directory_unreachable');
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw unavailable('agent_directory_refused');
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw unavailable('agent_directory_invalid_response');
    }
    if (!isAgentRecord(body) || body.id !== agentId) throw unavailable('agent_directory_invalid_response');
    return body.organizationId === ctx.org ? body : null;
  }
}
