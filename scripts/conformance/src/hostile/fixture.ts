/**
 * The world the hostile requests are sent into: one stack with a ready Mind,
 * an owner memory event, an agent attached to the Mind (read and write) with
 * its own event, a group with that agent in it, and a spare agent. Valid
 * credentials of the right kind for every operation, so that validation is
 * what refuses a broken request, never authentication.
 */
import { randomUUID } from 'node:crypto';
import { credentialSchemes } from '@gateway-minds/contract';
import type { Stack } from '@gateway-minds/testkit';
import { HttpClient, type RawAnswer, type RawRequest } from './client.js';
import type { Fixture } from './requests.js';
import type { OperationSpec, ParameterSpec } from './spec.js';
import { copy } from './values.js';

export interface World {
  session: string;
  agentToken: string;
  contextSha256: string;
  mindId: string;
  /** A Mind for the valid lifecycle samples (stopped and resumed). */
  scratchMindId: string;
  ownerEvent: { storageId: string; eventId: string };
  agentEvent: { storageId: string; eventId: string };
  groupId: string;
  agentId: string;
  spareAgentId: string;
  attachmentId: string;
}

const json = (body: unknown) => JSON.stringify(body);

export class Api {
  constructor(
    readonly client: HttpClient,
    readonly token: string | null,
  ) {}

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
    const request: RawRequest = {
      method,
      path,
      headers: { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: json(body) } : {}),
    };
    return this.client.send(request);
  }

  async ok(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
    const answer = await this.call(method, path, body, headers);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.json;
  }
}

export async function waitForMind(api: Api, mindId: string, status: string, timeoutMs = 15_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const mind = await api.ok('GET', `/v1/minds/services/${mindId}`);
    if (mind.status === status && mind.observed_generation === mind.desired_generation) return mind;
    if (Date.now() > until) throw new Error(`Mind ${mindId} not ${status} in time: ${JSON.stringify(mind)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function createMind(api: Api, name: string): Promise<string> {
  const list = await api.ok('GET', '/v1/minds/services');
  const created = await api.ok('POST', '/v1/minds/services', { name }, { 'idempotency-key': randomUUID(), 'x-platform-minds-creation-context': list.context_sha256 });
  return created.mind_id as string;
}

/** Every Mind of the session's selection, all pages. */
export async function allMinds(api: Api): Promise<any[]> {
  const items: any[] = [];
  let after: string | null = null;
  do {
    const page: any = await api.ok('GET', `/v1/minds/services?limit=100${after ? `&after=${after}` : ''}`);
    items.push(...page.items);
    after = page.next_cursor;
  } while (after);
  return items;
}

/** Waits until no Mind has work left for the controller (its observed state caught up with the desired one). */
export async function settle(api: Api, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const minds = await allMinds(api);
    const busy = minds.filter((m) => !['ready', 'stopped', 'failed'].includes(m.status) || m.observed_generation !== m.desired_generation);
    if (busy.length === 0) return;
    if (Date.now() > until) throw new Error(`Minds still moving: ${JSON.stringify(busy.map((m) => [m.mind_id, m.status]))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function buildWorld(stack: Stack, client: HttpClient): Promise<World> {
  const session = (await stack.issue('bridge_session')).token;
  const api = new Api(client, session);
  const agent = await stack.createAgent();
  const spare = await stack.createAgent();
  const agentToken = (await stack.issue('agent_token', { agent_id: agent.id })).token;

  const mindId = await createMind(api, 'Sandbox hostile input');
  const scratchMindId = await createMind(api, 'Sandbox lifecycle samples');
  await waitForMind(api, mindId, 'ready');
  await waitForMind(api, scratchMindId, 'ready');
  const { context_sha256: contextSha256 } = await api.ok('GET', '/v1/minds/services');

  const group = await api.ok('POST', '/v1/minds/agent-groups', { operationId: randomUUID(), name: 'Hostile input' });
  await api.ok('POST', `/v1/minds/agent-groups/${group.id}/members`, { operationId: randomUUID(), expectedVersion: 0, agentId: agent.id });
  const attachment = await api.ok('POST', `/v1/minds/${mindId}/attachments`, {
    operationId: randomUUID(),
    expectedVersion: 0,
    subject: { kind: 'agent', agentId: agent.id },
    permissions: ['minds.agent_data.read', 'minds.agent_data.write'],
    expiresAt: Date.now() + 7 * 24 * 3_600_000,
  });

  const ownerEventId = randomUUID();
  const owner = await api.ok('POST', `/v1/minds/memory/episodic?mind=${mindId}`, {
    event: { id: ownerEventId, content: 'hostile probe zebra: the owner event', timestamp: '2026-11-21T12:00:00Z', tags: ['probe'] },
  });
  const agentApi = new Api(client, agentToken);
  const agentEventId = randomUUID();
  const agentEvent = await agentApi.ok('POST', `/v1/minds/agent/memory/episodic?mind=${mindId}`, {
    event: { id: agentEventId, content: 'hostile probe zebra: the agent event', timestamp: '2026-11-21T12:00:00Z' },
  });

  return {
    session,
    agentToken,
    contextSha256,
    mindId,
    scratchMindId,
    ownerEvent: { storageId: owner.id, eventId: ownerEventId },
    agentEvent: { storageId: agentEvent.id, eventId: agentEventId },
    groupId: group.id,
    agentId: agent.id,
    spareAgentId: spare.id,
    attachmentId: attachment.id,
  };
}

/**
 * A world of identifiers in the shapes the contract gives them, with nothing behind them: for
 * servers and mocks that keep no state (an echoing app, the MSW handlers). `label` names its tokens.
 */
export function statelessWorld(label: string): World {
  return {
    session: `bs_${label}`,
    agentToken: `mat_${label}`,
    contextSha256: 'c'.repeat(64),
    mindId: '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b',
    scratchMindId: '4a3b2c1d-6e5f-4a7b-9c8d-0e1f2a3b4c5d',
    ownerEvent: { storageId: '5b4c3d2e-7f60-4b8c-8d9e-1f2a3b4c5d6e', eventId: '6c5d4e3f-8071-4c9d-9eaf-2a3b4c5d6e7f' },
    agentEvent: { storageId: '7d6e5f40-9182-4dae-afb0-3b4c5d6e7f80', eventId: '8e7f6051-a293-4ebf-b0c1-4c5d6e7f8091' },
    groupId: 'agp_01JD5Z6Q7R8S9T0V1W2X3Y4Z5A',
    agentId: 'a_01JD5Z6Q7R8S9T0V1W2X3Y4Z5B',
    spareAgentId: 'a_01JD5Z6Q7R8S9T0V1W2X3Y4Z5C',
    attachmentId: 'mat_01JD5Z6Q7R8S9T0V1W2X3Y4Z5D',
  };
}

const agentSchemes = new Set<string>([credentialSchemes.agent_credential.scheme, credentialSchemes.agent_token.scheme]);
export const isAgentOperation = (operation: OperationSpec) => operation.facts.security.some((s) => agentSchemes.has(s.scheme));

/** The valid values of every operation's parameters in a world. */
export function fixtureOf(world: World): Fixture {
  return {
    credential(operation) {
      if (operation.facts.security.length === 0) return null;
      return isAgentOperation(operation) ? world.agentToken : world.session;
    },
    pathValue(operation, parameter: ParameterSpec) {
      switch (parameter.name) {
        case 'mind_id':
          return world.mindId;
        case 'storage_id':
          return isAgentOperation(operation) ? world.agentEvent.storageId : world.ownerEvent.storageId;
        case 'group_id':
          return world.groupId;
        case 'agent_id':
          return world.agentId;
        case 'attachment_id':
          return world.attachmentId;
        default:
          throw new Error(`no fixture value for path parameter ${parameter.name}`);
      }
    },
    queryValue(_operation, parameter) {
      if (parameter.name === 'mind') return world.mindId;
      if (parameter.name === 'from') return '2026-01-01T00:00:00Z';
      if (parameter.name === 'to') return '2026-01-31T00:00:00Z';
      if (parameter.required) throw new Error(`no fixture value for required query parameter ${parameter.name}`);
      return undefined;
    },
    headerValue(_operation, parameter, fresh) {
      if (parameter.name === 'Idempotency-Key') return fresh;
      if (parameter.name === 'x-platform-minds-creation-context') return world.contextSha256;
      if (parameter.required) throw new Error(`no fixture value for required header ${parameter.name}`);
      return undefined;
    },
    body(operation) {
      if (!operation.examples.length) throw new Error(`${operation.id} has no request example`);
      return copy(operation.examples[0]);
    },
  };
}
