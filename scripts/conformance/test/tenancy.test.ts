/**
 * Tenancy: a second organization, and a second project of the same
 * organization, try every read and write on the first one's Minds, memories,
 * groups, members and attachments, and on guessed ids. None succeeds, none
 * learns whether the resource exists (the answer is the one a random id
 * gets), and nothing changes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { caller, newKey, readyMind, type Answer, type Call } from '../src/http.js';

let stack: Stack;
let owner: Call;
const victim: Record<string, string> = {};
let agentId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = caller(stack.url, (await stack.issue('bridge_session')).token);
  const mind = await readyMind(owner, 'Sandbox victim');
  victim.mind = mind.mind_id;
  victim.generation = String(mind.desired_generation);
  const eventId = randomUUID();
  victim.event = eventId;
  victim.storage = (await owner('POST', `/v1/minds/memory/episodic?mind=${victim.mind}`, { body: { event: { id: eventId, content: 'secret plans for the orchid garden', timestamp: '2026-11-21T12:00:00Z' } } })).body.id;
  agentId = (await stack.createAgent()).id;
  victim.group = (await owner('POST', '/v1/minds/agent-groups', { body: { operationId: randomUUID(), name: 'victims' } })).body.id;
  await owner('POST', `/v1/minds/agent-groups/${victim.group}/members`, { body: { operationId: randomUUID(), expectedVersion: 0, agentId } });
  victim.attachment = (await owner('POST', `/v1/minds/${victim.mind}/attachments`, {
    body: { operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId }, permissions: ['minds.agent_data.read'], expiresAt: Date.now() + 3_600_000 },
  })).body.id;
});
afterAll(() => stack?.close());

/** Every read and write of another tenant's resources, by ids (the victim's, or guessed ones of the same shape). */
function attempts(ids: Record<string, string>): [string, (call: Call) => Promise<Answer>][] {
  const memory = `mind=${ids.mind}`;
  return [
    ['getMind', (c) => c('GET', `/v1/minds/services/${ids.mind}`)],
    ['stopMind', (c) => c('POST', `/v1/minds/services/${ids.mind}/stop`, { body: { expected_generation: Number(ids.generation) }, headers: { 'idempotency-key': newKey() } })],
    ['resumeMind', (c) => c('POST', `/v1/minds/services/${ids.mind}/resume`, { body: { expected_generation: Number(ids.generation) }, headers: { 'idempotency-key': newKey() } })],
    ['getEpisodicMemory', (c) => c('GET', `/v1/minds/memory/episodic/${ids.storage}?${memory}`)],
    ['updateEpisodicMemory', (c) => c('PUT', `/v1/minds/memory/episodic/${ids.storage}?${memory}`, { body: { event_id: ids.event, content: 'defaced' } })],
    ['insertEpisodicMemory', (c) => c('POST', `/v1/minds/memory/episodic?${memory}`, { body: { event: { id: randomUUID(), content: 'planted', timestamp: '2026-11-21T12:00:00Z' } } })],
    ['searchMemory', (c) => c('POST', `/v1/minds/search?${memory}`, { body: { text: 'orchid' } })],
    ['listMindAttachments', (c) => c('GET', `/v1/minds/${ids.mind}/attachments`)],
    ['attachMind', (c) => c('POST', `/v1/minds/${ids.mind}/attachments`, { body: { operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId }, permissions: ['minds.agent_data.read'], expiresAt: Date.now() + 3_600_000 } })],
    ['detachMind', (c) => c('DELETE', `/v1/minds/${ids.mind}/attachments/${ids.attachment}`, { body: { operationId: randomUUID(), expectedVersion: 1 } })],
    ['listAgentGroupMembers', (c) => c('GET', `/v1/minds/agent-groups/${ids.group}/members`)],
    ['addAgentGroupMember', (c) => c('POST', `/v1/minds/agent-groups/${ids.group}/members`, { body: { operationId: randomUUID(), expectedVersion: 0, agentId } })],
    ['removeAgentGroupMember', (c) => c('DELETE', `/v1/minds/agent-groups/${ids.group}/members/${agentId}`, { body: { operationId: randomUUID(), expectedVersion: 1 } })],
  ];
}

const guessed = () => ({
  mind: randomUUID(), generation: '1', storage: randomUUID(), event: randomUUID(), group: 'agp_01JD3M8Q4Z9X7V6T5S4R3P2N1M', attachment: 'mat_01JD3M9A7B6C5D4E3F2G1H0J9K',
});

/** What a caller can observe of an answer, without the per-request id. */
const observable = (a: Answer) => ({ status: a.status, code: a.body?.error?.code, reason: a.body?.error?.reason, body: a.body?.error ? undefined : a.body });

async function snapshot(): Promise<unknown> {
  const read = async (method: string, path: string, body?: unknown) => (await owner(method, path, body ? { body } : {})).body;
  // updated_at moves with the controller's host heartbeats, whoever calls; everything else must hold still.
  const { updated_at: _heartbeat, ...mind } = await read('GET', `/v1/minds/services/${victim.mind}`);
  return {
    mind,
    memory: await read('GET', `/v1/minds/memory/episodic/${victim.storage}?mind=${victim.mind}`),
    search: await read('POST', `/v1/minds/search?mind=${victim.mind}`, { text: 'orchid planted defaced' }),
    attachments: await read('GET', `/v1/minds/${victim.mind}/attachments`),
    members: await read('GET', `/v1/minds/agent-groups/${victim.group}/members`),
    groups: await read('GET', '/v1/minds/agent-groups'),
  };
}

describe('another tenant', () => {
  it.each([
    ['another organization', async () => {
      const other = await stack.admin<{ organization_id: string; project_id: string }>('/admin/organizations', { name: 'Intruders' });
      return stack.issue('bridge_session', { organization_id: other.organization_id, project_id: other.project_id });
    }],
    ['another project of the same organization', async () => {
      const defaults = await fetch(`${stack.adminUrl}/admin/defaults`, { headers: { authorization: `Bearer ${stack.gateway.adminToken}` } }).then((r) => r.json()) as { organization_id: string };
      const project = await stack.admin<{ project_id: string }>('/admin/projects', { organization_id: defaults.organization_id, name: 'Other project' });
      return stack.issue('bridge_session', { organization_id: defaults.organization_id, project_id: project.project_id });
    }],
  ])('%s can neither read nor change the first one, nor tell its resources from guessed ids', async (_name, credential) => {
    const intruder = caller(stack.url, (await credential()).token);
    const before = await snapshot();
    const real = attempts(victim);
    const fake = attempts(guessed());
    for (let i = 0; i < real.length; i++) {
      const [operation, attempt] = real[i]!;
      const onReal = await attempt(intruder);
      const onGuess = await fake[i]![1](intruder);
      expect(onReal.status, `${operation} must not succeed`).toBeGreaterThanOrEqual(400);
      expect({ operation, ...observable(onReal) }).toEqual({ operation, ...observable(onGuess) });
    }
    // Lists show nothing of the first tenant.
    expect((await intruder('GET', '/v1/minds/services')).body.items).toEqual([]);
    const groups = (await intruder('GET', '/v1/minds/agent-groups')).body.groups as { id: string }[];
    expect(groups.map((g) => g.id)).not.toContain(victim.group);
    expect(await snapshot()).toEqual(before);
  });
});
