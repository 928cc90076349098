/**
 * Agent memory over real HTTP: an agent needs an active, unexpired, unrevoked
 * attachment with the needed permission; its private namespace only through
 * its own attachment, a group's shared namespace only through that group's
 * attachment while it is an active member (spec/DECISIONS.md, "Agent namespaces").
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifiedPrincipal } from '@gateway-minds/service-kit';
import { admissionSettings } from '../src/spec.js';
import { agent, cleanUp, human, readyMind, startHarness, waitForMind, type Harness, type TestAgent } from './support/harness.js';

let h: Harness;
const owner = human({ org: 'org_agt', project: 'prj_agt' });
let mindId: string;
const READ = ['minds.agent_data.read'];
const READ_WRITE = ['minds.agent_data.read', 'minds.agent_data.write'];

beforeAll(async () => {
  h = await startHarness({ admissions: Object.fromEntries(admissionSettings.map((name) => [name, true])) });
  mindId = (await readyMind(h, owner, { name: 'Sandbox agents' })).mind_id;
});
afterAll(async () => {
  await h?.close();
  await cleanUp();
});

const as = (a: TestAgent, overrides: Partial<VerifiedPrincipal> = {}) => agent(a.id, { org: a.organizationId, ...overrides });
const event = (content: string) => ({ id: randomUUID(), content, timestamp: '2026-11-21T12:00:00Z' });
const q = (mind: string, group?: string) => `?mind=${mind}${group ? `&group=${group}` : ''}`;
const agentInsert = (who: VerifiedPrincipal, content: string, group?: string, mind = mindId) =>
  h.call('POST', `/v1/minds/agent/memory/episodic${q(mind, group)}`, { as: who, body: { event: event(content) } });
const agentGet = (who: VerifiedPrincipal, storageId: string, group?: string, mind = mindId) =>
  h.call('GET', `/v1/minds/agent/memory/episodic/${storageId}${q(mind, group)}`, { as: who });
const agentSearch = (who: VerifiedPrincipal, text: string, group?: string, mind = mindId) =>
  h.call('POST', `/v1/minds/agent/search${q(mind, group)}`, { as: who, body: { text } });

async function attach(subject: Record<string, string>, permissions: string[], expiresAt = Date.now() + 86_400_000, mind = mindId) {
  const list = await h.call('GET', `/v1/minds/${mind}/attachments`, { as: owner });
  const current = list.body.attachments.find((a: any) => JSON.stringify(a.subject) === JSON.stringify(subject));
  const reply = await h.call('POST', `/v1/minds/${mind}/attachments`, {
    as: owner,
    body: { operationId: randomUUID(), expectedVersion: current?.version ?? 0, subject, permissions, expiresAt },
  });
  expect(reply.status).toBe(200);
  return reply.body;
}

async function group(...members: TestAgent[]): Promise<string> {
  const id = (await h.call('POST', '/v1/minds/agent-groups', { as: owner, body: { operationId: randomUUID(), name: 'Team' } })).body.id as string;
  for (const m of members) {
    const added = await h.call('POST', `/v1/minds/agent-groups/${id}/members`, { as: owner, body: { operationId: randomUUID(), expectedVersion: 0, agentId: m.id } });
    expect(added.status).toBe(200);
  }
  return id;
}

function expectRefused(reply: { status: number; body: any }, status: number, code: string) {
  expect({ status: reply.status, code: reply.body?.error?.code }).toEqual({ status, code });
}

describe('direct attachments', () => {
  it('read lets an agent read and search its private memory; writing needs read+write', async () => {
    const reader = h.iam.add('org_agt');
    await attach({ kind: 'agent', agentId: reader.id }, READ);
    expectRefused(await agentInsert(as(reader), 'not allowed'), 403, 'INVALID_AGENT_CAPABILITY');
    expect((await agentSearch(as(reader), 'anything')).text).toBe('{"items":[]}');
    await attach({ kind: 'agent', agentId: reader.id }, READ_WRITE);
    const inserted = await agentInsert(as(reader), 'The deploy key rotates on Fridays.');
    expect(inserted.status).toBe(200);
    const read = await agentGet(as(reader), inserted.body.id);
    expect(read.body.item).toMatchObject({ storage_id: inserted.body.id, content: 'The deploy key rotates on Fridays.', event_type: 'Context', tags: [] });
    expect((await agentSearch(as(reader), 'deploy key')).body.items.map((i: any) => i.content)).toEqual(['The deploy key rotates on Fridays.']);
    // An agent token works as well as an agent credential.
    expect((await agentSearch(as(reader, { kind: 'agent_token' }), 'deploy')).body.items).toHaveLength(1);
  });

  it('private memory is private: another agent, and the owner, do not see it; the agent does not see the owner\'s', async () => {
    const [a, b] = [h.iam.add('org_agt'), h.iam.add('org_agt')];
    await attach({ kind: 'agent', agentId: a.id }, READ_WRITE);
    await attach({ kind: 'agent', agentId: b.id }, READ_WRITE);
    const stored = await agentInsert(as(a), 'alpha private zebra note');
    await h.call('POST', `/v1/minds/memory/episodic?mind=${mindId}`, { as: owner, body: { event: event('owner zebra diary') } });
    expect((await agentSearch(as(b), 'zebra')).body.items).toEqual([]);
    expect((await agentGet(as(b), stored.body.id)).text).toBe('{"item":null}');
    expect((await agentSearch(as(a), 'zebra')).body.items.map((i: any) => i.content)).toEqual(['alpha private zebra note']);
    const ownerView = await h.call('POST', `/v1/minds/search?mind=${mindId}`, { as: owner, body: { text: 'zebra' } });
    expect(ownerView.body.items.map((i: any) => i.content)).toEqual(['owner zebra diary']);
  });

  it('an expired attachment is 401 AGENT_CAPABILITY_EXPIRED; a detached one 403', async () => {
    const brief = h.iam.add('org_agt');
    const attachment = await attach({ kind: 'agent', agentId: brief.id }, READ, Date.now() + 1000);
    expect((await agentSearch(as(brief), 'x')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expectRefused(await agentSearch(as(brief), 'x'), 401, 'AGENT_CAPABILITY_EXPIRED');
    // The expired attachment is still listed, revokedAt null.
    const listed = (await h.call('GET', `/v1/minds/${mindId}/attachments`, { as: owner })).body.attachments.find((a: any) => a.id === attachment.id);
    expect(listed.revokedAt).toBeNull();
    await h.call('DELETE', `/v1/minds/${mindId}/attachments/${attachment.id}`, { as: owner, body: { operationId: randomUUID(), expectedVersion: 1 } });
    expectRefused(await agentSearch(as(brief), 'x'), 403, 'INVALID_AGENT_CAPABILITY');
  });

  it('no attachment, an unknown Mind, or an agent of another organization: 403 INVALID_AGENT_CAPABILITY', async () => {
    const stranger = h.iam.add('org_agt');
    expectRefused(await agentSearch(as(stranger), 'x'), 403, 'INVALID_AGENT_CAPABILITY');
    const attached = h.iam.add('org_agt');
    await attach({ kind: 'agent', agentId: attached.id }, READ);
    expectRefused(await agentSearch(as(attached), 'x', undefined, randomUUID()), 403, 'INVALID_AGENT_CAPABILITY');
    expectRefused(await agentSearch(as(attached, { org: 'org_other' }), 'x'), 403, 'INVALID_AGENT_CAPABILITY');
  });
});

describe('groups', () => {
  it('members of an attached group share its namespace; membership and attachment are both required', async () => {
    const [m1, m2, outsider] = [h.iam.add('org_agt'), h.iam.add('org_agt'), h.iam.add('org_agt')];
    const team = await group(m1, m2);
    await attach({ kind: 'group', groupId: team }, READ_WRITE);
    const shared = await agentInsert(as(m1), 'shared quokka findings', team);
    expect(shared.status).toBe(200);
    expect((await agentGet(as(m2), shared.body.id, team)).body.item.content).toBe('shared quokka findings');
    expect((await agentSearch(as(m2), 'quokka', team)).body.items).toHaveLength(1);
    // A group attachment grants the group's namespace and nothing more ("searches private memory or an
    // explicitly authorized group", Agent memory): without the agent's own attachment, no private memory.
    expectRefused(await agentSearch(as(m2), 'quokka'), 403, 'INVALID_AGENT_CAPABILITY');
    expectRefused(await agentGet(as(m1), shared.body.id), 403, 'INVALID_AGENT_CAPABILITY');
    expectRefused(await agentInsert(as(m1), 'private note'), 403, 'INVALID_AGENT_CAPABILITY');
    // With its own attachment, the member's private memory is its own: the shared event is not there.
    await attach({ kind: 'agent', agentId: m1.id }, READ);
    expect((await agentSearch(as(m1), 'quokka')).body.items).toEqual([]);
    expect((await agentGet(as(m1), shared.body.id)).text).toBe('{"item":null}');
    // Not a member.
    expectRefused(await agentSearch(as(outsider), 'quokka', team), 403, 'INVALID_AGENT_CAPABILITY');
    // A group the agent is a member of but that is not attached to this Mind.
    const unattached = await group(m1);
    expectRefused(await agentSearch(as(m1), 'quokka', unattached), 403, 'INVALID_AGENT_CAPABILITY');
    // Removed from the group: no longer allowed.
    await h.call('DELETE', `/v1/minds/agent-groups/${team}/members/${m2.id}`, { as: owner, body: { operationId: randomUUID(), expectedVersion: 1 } });
    expectRefused(await agentSearch(as(m2), 'quokka', team), 403, 'INVALID_AGENT_CAPABILITY');
    expectRefused(await agentSearch(as(m2), 'quokka'), 403, 'INVALID_AGENT_CAPABILITY');
  });

  it('a read-only group attachment does not let members write', async () => {
    const member = h.iam.add('org_agt');
    const team = await group(member);
    await attach({ kind: 'group', groupId: team }, READ);
    expect((await agentSearch(as(member), 'x', team)).status).toBe(200);
    expectRefused(await agentInsert(as(member), 'nope', team), 403, 'INVALID_AGENT_CAPABILITY');
  });
});

describe('readiness, shape and limits', () => {
  it('an attached agent gets 409 MIND_NOT_READY on a stopped Mind', async () => {
    const mind = await readyMind(h, owner, { name: 'Sandbox to stop' });
    const a = h.iam.add('org_agt');
    await attach({ kind: 'agent', agentId: a.id }, READ_WRITE, undefined, mind.mind_id);
    await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { as: owner, body: { expected_generation: 1 }, headers: { 'idempotency-key': randomUUID() } });
    await waitForMind(h, owner, mind.mind_id, 'stopped');
    const reply = await agentSearch(as(a), 'x', undefined, mind.mind_id);
    expectRefused(reply, 409, 'MIND_NOT_READY');
    expect(reply.body.error.reason).toBe('mind_not_ready');
  });

  it('the agent insert needs a version 4 event id; content and text byte limits hold', async () => {
    const a = h.iam.add('org_agt');
    await attach({ kind: 'agent', agentId: a.id }, READ_WRITE);
    const v1 = await h.call('POST', `/v1/minds/agent/memory/episodic${q(mindId)}`, {
      as: as(a),
      body: { event: { id: '6f1c2d3e-4b5a-1c7d-8e9f-0a1b2c3d4e5f', content: 'x', timestamp: '2026-11-21T12:00:00Z' } },
    });
    expectRefused(v1, 400, 'INVALID_ARGUMENT');
    expectRefused(await agentInsert(as(a), '€'.repeat(5334)), 400, 'INVALID_ARGUMENT');
    expectRefused(await agentSearch(as(a), '€'.repeat(334)), 400, 'INVALID_ARGUMENT');
    expectRefused(await h.call('GET', `/v1/minds/agent/memory/episodic/${randomUUID()}?mind=${mindId}&group=not-a-group`, { as: as(a) }), 400, 'INVALID_QUERY');
  });
});
