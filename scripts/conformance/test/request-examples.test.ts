/**
 * Every request example of the published spec is a request the running server accepts, given the
 * state it needs: sent through the real gateway to the real Minds service, each must answer its
 * operation's success status. Examples are what the reference shows, the mocks serve and readers
 * copy; one the server refuses teaches a request that cannot work.
 *
 * "The state it needs" is substituted, field by field, and nothing else: a fresh Idempotency-Key
 * or `operationId` (each names one mutation), the version or generation the record has now
 * (`expectedVersion`, `expected_generation`), the Mind, agent, group, attachment or stored event
 * the request is about (they exist only on this server), and the server's clock: an `expiresAt`
 * is moved by as much as this server's time is past the examples' own (EXAMPLES_TIME), so an
 * example's place in its timeline is kept. Everything else is sent as written.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dereference, operationPath, operationTable, type OpenApiDocument, type OperationId } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { caller, newKey, readyMind, type Answer, type Call } from '../src/http.js';

/**
 * The time the examples are written at: their Minds' `created_at` (11:58:04), their events'
 * `timestamp`s and their usage windows place it at 2026-11-21 12:00 UTC.
 */
const EXAMPLES_TIME = Date.parse('2026-11-21T12:00:00Z');
/** Interface, "Limits": attachment `expiresAt` "future, at most 30 days after server time". */
const EXPIRES_AT_RANGE_MS = 30 * 86_400_000;

const document = dereference(structuredClone(openapiDocument) as OpenApiDocument);

interface RequestExample {
  operationId: OperationId;
  name: string;
  value: any;
}

/** The named request-body examples of every operation, in spec order. */
const bodyExamples: RequestExample[] = (Object.keys(operationTable) as OperationId[]).flatMap((operationId) => {
  const facts = operationTable[operationId];
  const media = document.paths[facts.path]?.[facts.method]?.requestBody?.content?.['application/json'];
  return Object.entries(media?.examples ?? {}).map(([name, example]) => ({ operationId, name, value: structuredClone((example as { value: unknown }).value) }));
});

/** What one example becomes on this server: its path and query parameters, headers, body and caller. */
interface Prepared {
  params?: Record<string, string>;
  headers?: Record<string, string>;
  body: unknown;
  as?: Call | 'anonymous';
}

let stack: Stack;
let owner: Call;
let agentCall: Call;
let agentId: string;
let mindId: string;
let groupId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = caller(stack.url, (await stack.issue('bridge_session')).token);
  mindId = (await readyMind(owner, 'Sandbox request examples')).mind_id;
  const agent = await stack.issue('agent_credential');
  agentId = agent.agent_id!;
  agentCall = caller(stack.url, agent.token);
  groupId = (await owner('POST', '/v1/minds/agent-groups', { body: { operationId: randomUUID(), name: 'Example state' } })).body.id;
  // The agent may use the Mind: the state the agent memory examples need.
  await attach({ kind: 'agent', agentId }, ['minds.agent_data.read', 'minds.agent_data.write']);
});
afterAll(() => stack?.close());

/** The current version of the attachment record of `subject` on the Mind, 0 when there is none. */
async function attachmentVersion(subject: object): Promise<number> {
  const list = await owner('GET', `/v1/minds/${mindId}/attachments`);
  return list.body.attachments.find((a: { subject: object }) => JSON.stringify(a.subject) === JSON.stringify(subject))?.version ?? 0;
}

async function attach(subject: object, permissions: string[]): Promise<any> {
  const answer = await owner('POST', `/v1/minds/${mindId}/attachments`, {
    body: { operationId: randomUUID(), expectedVersion: await attachmentVersion(subject), subject, permissions, expiresAt: Date.now() + 86_400_000 },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

async function memberVersion(group: string, agent: string): Promise<number> {
  const list = await owner('GET', `/v1/minds/agent-groups/${group}/members`);
  return list.body.members.find((m: { agentId: string }) => m.agentId === agent)?.version ?? 0;
}

/** An `expiresAt` of the examples' timeline, on this server's: as far after its time as the example is after EXAMPLES_TIME. */
function onServerClock(expiresAt: number): number {
  // The example is possible where it was written: in the future and at most 30 days after.
  expect(expiresAt - EXAMPLES_TIME, `expiresAt ${new Date(expiresAt).toISOString()} against the examples' ${new Date(EXAMPLES_TIME).toISOString()}`).toBeGreaterThan(0);
  expect(expiresAt - EXAMPLES_TIME).toBeLessThanOrEqual(EXPIRES_AT_RANGE_MS);
  return expiresAt + (Date.now() - EXAMPLES_TIME);
}

/** Per operation, the state its examples need, substituted into them. */
const prepare: Partial<Record<OperationId, (value: any) => Promise<Prepared>>> = {
  iam_verifyCredential: async (value) => ({ body: value, as: 'anonymous' }),
  minds_createMind: async (value) => ({
    headers: { 'idempotency-key': newKey(), 'x-platform-minds-creation-context': (await owner('GET', '/v1/minds/services')).body.context_sha256 },
    body: value,
  }),
  minds_resumeMind: async (value) => lifecycle(value),
  minds_stopMind: async (value) => lifecycle(value),
  minds_attachMind: async (value) => {
    const subject = value.subject.kind === 'agent' ? { ...value.subject, agentId: (await stack.createAgent()).id } : { ...value.subject, groupId };
    // A re-attach example is about a detached record: that is its state.
    if (value.expectedVersion > 0 && subject.kind === 'agent') {
      const attached = await attach(subject, ['minds.agent_data.read']);
      await owner('DELETE', `/v1/minds/${mindId}/attachments/${attached.id}`, { body: { operationId: randomUUID(), expectedVersion: attached.version } });
    }
    return {
      params: { mind_id: mindId },
      body: { ...value, operationId: randomUUID(), expectedVersion: await attachmentVersion(subject), subject, expiresAt: onServerClock(value.expiresAt) },
    };
  },
  minds_detachMind: async (value) => {
    const attached = await attach({ kind: 'agent', agentId: (await stack.createAgent()).id }, ['minds.agent_data.read']);
    return { params: { mind_id: mindId, attachment_id: attached.id }, body: { ...value, operationId: randomUUID(), expectedVersion: attached.version } };
  },
  minds_createAgentGroup: async (value) => ({ body: { ...value, operationId: randomUUID() } }),
  minds_addAgentGroupMember: async (value) => {
    const agent = (await stack.createAgent()).id;
    return { params: { group_id: groupId }, body: { ...value, operationId: randomUUID(), agentId: agent, expectedVersion: await memberVersion(groupId, agent) } };
  },
  minds_removeAgentGroupMember: async (value) => {
    const agent = (await stack.createAgent()).id;
    const added = await owner('POST', `/v1/minds/agent-groups/${groupId}/members`, { body: { operationId: randomUUID(), expectedVersion: 0, agentId: agent } });
    expect(added.status).toBe(200);
    return { params: { group_id: groupId, agent_id: agent }, body: { ...value, operationId: randomUUID(), expectedVersion: added.body.version } };
  },
  minds_insertEpisodicMemory: async (value) => ({ params: { mind: mindId }, body: value }),
  minds_searchMemory: async (value) => ({ params: { mind: mindId }, body: value }),
  minds_updateEpisodicMemory: async (value) => {
    const eventId = randomUUID();
    const stored = await owner('POST', `/v1/minds/memory/episodic?mind=${mindId}`, { body: { event: { id: eventId, content: 'the event the update is about', timestamp: '2026-11-21T12:00:00Z' } } });
    return { params: { mind: mindId, storage_id: stored.body.id }, body: { ...value, event_id: eventId } };
  },
  minds_agentInsertEpisodicMemory: async (value) => ({ params: { mind: mindId }, body: value, as: agentCall }),
  minds_agentSearchMemory: async (value) => ({ params: { mind: mindId }, body: value, as: agentCall }),
};

/** Resume and stop: a Mind of their own, at the generation it has now, with a fresh key. */
async function lifecycle(value: any): Promise<Prepared> {
  const mind = await readyMind(owner, 'Sandbox lifecycle example');
  return { params: { mind_id: mind.mind_id }, headers: { 'idempotency-key': newKey() }, body: { ...value, expected_generation: mind.desired_generation } };
}

async function send(operationId: OperationId, prepared: Prepared): Promise<Answer> {
  const facts = operationTable[operationId];
  const call = prepared.as === 'anonymous' ? caller(stack.url, null) : (prepared.as ?? owner);
  return call(facts.method.toUpperCase(), operationPath(operationId, prepared.params), { body: prepared.body, headers: prepared.headers });
}

describe('request examples of the published spec, sent to the running server with the state they need', () => {
  it('every operation with a request body has examples here, and a preparation for them', () => {
    const withBodies = (Object.keys(operationTable) as OperationId[]).filter((id) => operationTable[id].hasRequestBody);
    expect(withBodies.filter((id) => !bodyExamples.some((e) => e.operationId === id))).toEqual([]);
    expect(withBodies.filter((id) => !prepare[id])).toEqual([]);
  });

  it.each(bodyExamples.map((example) => [`${example.operationId} ${example.name}`, example] as const))('%s is accepted', async (_label, example) => {
    const answer = await send(example.operationId, await prepare[example.operationId]!(example.value));
    expect({ status: answer.status, error: answer.body?.error }).toEqual({ status: operationTable[example.operationId].successStatus, error: undefined });
  });

  it('the parameter examples of minds_getUsage (a window of the examples\' time) are accepted', async () => {
    const parameters = document.paths[operationTable.minds_getUsage.path]!.get!.parameters as { name: string; example?: string }[];
    const params = Object.fromEntries(parameters.filter((p) => p.example !== undefined).map((p) => [p.name, p.example!]));
    expect(Object.keys(params).sort()).toEqual(['from', 'to']);
    const answer = await owner('GET', operationPath('minds_getUsage', params));
    expect({ status: answer.status, error: answer.body?.error }).toEqual({ status: 200, error: undefined });
  });
});
