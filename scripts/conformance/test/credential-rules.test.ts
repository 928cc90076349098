/**
 * Credential rules as the interface words them, black-box through the real
 * stack: which session Memory, Mind and usage operations take, which
 * attachment reaches which agent namespace, and which credentials whoami
 * accepts. Each test names the sentence it
 * follows (gateway-minds-interface.md, section: "words").
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { caller, newKey, readyMind, type Answer, type Call } from '../src/http.js';

let stack: Stack;
let owner: Call;
let mindId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = caller(stack.url, (await stack.issue('bridge_session')).token);
  mindId = (await readyMind(owner, 'Sandbox credential rules')).mind_id;
});
afterAll(() => stack?.close());

const usageQuery = `/v1/minds/usage?from=${encodeURIComponent('2026-11-01T00:00:00Z')}&to=${encodeURIComponent('2026-11-02T00:00:00Z')}`;
const codeOf = (answer: Answer) => ({ status: answer.status, code: answer.body?.error?.code as string | undefined });
const refused = (status: number, code: string) => ({ status, code });

describe('Rules common to Minds operations: "Memory, Mind and usage operations: an original human account session with a verified Sandbox selection"', () => {
  let derived: Call;
  beforeAll(async () => {
    // What `npm run admin -- issue --kind bridge_session --derived` issues.
    derived = caller(stack.url, (await stack.issue('bridge_session', { original_session: false })).token);
  });

  it('a derived session gets 401 ORIGINAL_CONSOLE_REQUIRED on every Mind, memory and usage operation (Errors: "original Console session required, not a derived credential")', async () => {
    const list = await owner('GET', '/v1/minds/services');
    const attempts: [string, () => Promise<Answer>][] = [
      ['minds_listMinds', () => derived('GET', '/v1/minds/services')],
      ['minds_createMind', () => derived('POST', '/v1/minds/services', { body: { name: 'Sandbox derived' }, headers: { 'idempotency-key': newKey(), 'x-platform-minds-creation-context': list.body.context_sha256 } })],
      ['minds_getMind', () => derived('GET', `/v1/minds/services/${mindId}`)],
      ['minds_stopMind', () => derived('POST', `/v1/minds/services/${mindId}/stop`, { body: { expected_generation: 1 }, headers: { 'idempotency-key': newKey() } })],
      ['minds_resumeMind', () => derived('POST', `/v1/minds/services/${mindId}/resume`, { body: { expected_generation: 1 }, headers: { 'idempotency-key': newKey() } })],
      ['minds_getUsage', () => derived('GET', usageQuery)],
      ['minds_insertEpisodicMemory', () => derived('POST', `/v1/minds/memory/episodic?mind=${mindId}`, { body: { event: { id: randomUUID(), content: 'planted by a derived session', timestamp: '2026-11-21T12:00:00Z' } } })],
      ['minds_getEpisodicMemory', () => derived('GET', `/v1/minds/memory/episodic/${randomUUID()}?mind=${mindId}`)],
      ['minds_updateEpisodicMemory', () => derived('PUT', `/v1/minds/memory/episodic/${randomUUID()}?mind=${mindId}`, { body: { event_id: randomUUID(), content: 'x' } })],
      ['minds_searchMemory', () => derived('POST', `/v1/minds/search?mind=${mindId}`, { body: { text: 'planted' } })],
    ];
    for (const [operationId, attempt] of attempts) {
      expect({ operationId, ...codeOf(await attempt()) }).toEqual({ operationId, ...refused(401, 'ORIGINAL_CONSOLE_REQUIRED') });
    }
    // Bad input changes nothing: no Mind was created, no event stored, the Mind was neither stopped nor resumed.
    const after = await owner('GET', '/v1/minds/services');
    expect(after.body.items.map((m: any) => m.mind_id)).toEqual(list.body.items.map((m: any) => m.mind_id));
    expect((await owner('GET', `/v1/minds/services/${mindId}`)).body).toMatchObject({ desired_state: 'running', desired_generation: 1 });
    expect((await owner('POST', `/v1/minds/search?mind=${mindId}`, { body: { text: 'planted' } })).body.items).toEqual([]);
  });

  it('the original session of the same selection is admitted', async () => {
    expect((await owner('GET', '/v1/minds/services')).status).toBe(200);
    expect((await owner('GET', usageQuery)).status).toBe(200);
  });
});

describe('Agent memory: "searches private memory or an explicitly authorized group"', () => {
  const READ = ['minds.agent_data.read'];
  const READ_WRITE = ['minds.agent_data.read', 'minds.agent_data.write'];

  /** An agent with its own credential; its calls go through the gateway. */
  async function newAgent(): Promise<{ id: string; call: Call }> {
    const issued = await stack.issue('agent_credential');
    return { id: issued.agent_id!, call: caller(stack.url, issued.token) };
  }

  async function attach(subject: Record<string, string>, permissions: string[]): Promise<any> {
    const current = (await owner('GET', `/v1/minds/${mindId}/attachments`)).body.attachments.find((a: any) => JSON.stringify(a.subject) === JSON.stringify(subject));
    const reply = await owner('POST', `/v1/minds/${mindId}/attachments`, {
      body: { operationId: randomUUID(), expectedVersion: current?.version ?? 0, subject, permissions, expiresAt: Date.now() + 3_600_000 },
    });
    expect(reply.status).toBe(200);
    return reply.body;
  }

  async function detach(attachment: { id: string; version: number }): Promise<void> {
    const reply = await owner('DELETE', `/v1/minds/${mindId}/attachments/${attachment.id}`, { body: { operationId: randomUUID(), expectedVersion: attachment.version } });
    expect(reply.body.revokedAt).not.toBeNull();
  }

  async function newGroup(...members: string[]): Promise<string> {
    const id = (await owner('POST', '/v1/minds/agent-groups', { body: { operationId: randomUUID(), name: 'Judges' } })).body.id as string;
    for (const agentId of members) {
      expect((await owner('POST', `/v1/minds/agent-groups/${id}/members`, { body: { operationId: randomUUID(), expectedVersion: 0, agentId } })).status).toBe(200);
    }
    return id;
  }

  const where = (group?: string) => `?mind=${mindId}${group ? `&group=${group}` : ''}`;
  const insert = (call: Call, content: string, group?: string) =>
    call('POST', `/v1/minds/agent/memory/episodic${where(group)}`, { body: { event: { id: randomUUID(), content, timestamp: '2026-11-21T12:00:00Z' } } });
  const read = (call: Call, storageId: string, group?: string) => call('GET', `/v1/minds/agent/memory/episodic/${storageId}${where(group)}`);
  const search = (call: Call, text: string, group?: string) => call('POST', `/v1/minds/agent/search${where(group)}`, { body: { text } });

  /** Insert, read and search in one namespace all answer `expected`. */
  async function expectAllRefused(call: Call, storageId: string, group: string | undefined): Promise<void> {
    const capability = refused(403, 'INVALID_AGENT_CAPABILITY');
    expect({ insert: codeOf(await insert(call, 'refused write', group)), read: codeOf(await read(call, storageId, group)), search: codeOf(await search(call, 'refused', group)) })
      .toEqual({ insert: capability, read: capability, search: capability });
  }

  it('private memory needs the agent\'s own attachment: after it is detached, a group attachment grants no private insert, read or search', async () => {
    const agent = await newAgent();
    const own = await attach({ kind: 'agent', agentId: agent.id }, READ_WRITE);
    const stored = await insert(agent.call, 'private heron sighting');
    expect(stored.status).toBe(200);
    const team = await newGroup(agent.id);
    await attach({ kind: 'group', groupId: team }, READ);

    await detach(own);
    await expectAllRefused(agent.call, stored.body.id, undefined);
    // The group attachment still grants the group's shared namespace, which does not hold the private event.
    expect((await read(agent.call, stored.body.id, team)).body).toEqual({ item: null });
    expect((await search(agent.call, 'heron', team)).body).toEqual({ items: [] });
    // Attached again, the private event is there as it was.
    await attach({ kind: 'agent', agentId: agent.id }, READ);
    expect((await read(agent.call, stored.body.id)).body.item.content).toBe('private heron sighting');
  });

  it('a group namespace needs that group\'s attachment and active membership: the agent\'s own attachment grants no group insert, read or search', async () => {
    const [member, outsider] = [await newAgent(), await newAgent()];
    await attach({ kind: 'agent', agentId: outsider.id }, READ_WRITE);
    const team = await newGroup(member.id);
    await attach({ kind: 'group', groupId: team }, READ_WRITE);
    const shared = await insert(member.call, 'shared otter census', team);
    expect(shared.status).toBe(200);
    expect((await read(member.call, shared.body.id, team)).body.item.content).toBe('shared otter census');
    expect((await search(member.call, 'otter', team)).body.items.map((i: any) => i.content)).toEqual(['shared otter census']);

    // Directly attached, but not a member of the group.
    await expectAllRefused(outsider.call, shared.body.id, team);
    // A member of a group that is not attached to the Mind.
    const unattached = await newGroup(member.id, outsider.id);
    await expectAllRefused(member.call, shared.body.id, unattached);
    // Removed from the group: its direct attachment does not stand in for the membership.
    await attach({ kind: 'agent', agentId: member.id }, READ_WRITE);
    expect((await owner('DELETE', `/v1/minds/agent-groups/${team}/members/${member.id}`, { body: { operationId: randomUUID(), expectedVersion: 1 } })).status).toBe(200);
    await expectAllRefused(member.call, shared.body.id, team);
    // Its private memory, reached through its own attachment, is still its own.
    expect((await search(member.call, 'otter')).body).toEqual({ items: [] });
  });
});

describe('Gateway routes: whoami "any credential"; Authentication 1 "The token is an API key, a machine-to-machine token or a signed-in session"; Authentication 3 "Credential kinds reported by whoami: api_key, m2m_token, bridge_session"', () => {
  it.each(['api_key', 'm2m_token', 'bridge_session'] as const)('%s: 200, described with its kind', async (kind) => {
    const issued = await stack.issue(kind);
    const answer = await caller(stack.url, issued.token)('GET', '/v1/whoami');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ object: 'principal', kind, org: issued.organization_id });
  });

  it.each(['agent_credential', 'agent_token'] as const)('%s, not one of the credentials rule 1 names: 401 UNAUTHORIZED (DECISIONS "Which credentials whoami accepts")', async (kind) => {
    const issued = await stack.issue(kind);
    expect(codeOf(await caller(stack.url, issued.token)('GET', '/v1/whoami'))).toEqual(refused(401, 'UNAUTHORIZED'));
  });
});
