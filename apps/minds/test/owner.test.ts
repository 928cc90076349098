/**
 * Owner management over real HTTP: agent groups, members and attachments,
 * operationId replays, expectedVersion races, tombstones, expiresAt, the agent
 * lookup through the gateway's IAM, tenancy.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpAgentDirectory } from '../src/index.js';
import { admissionSettings } from '../src/spec.js';
import { cleanUp, createMind, human, newAgentId, startHarness, type Harness, type TestAgent } from './support/harness.js';

let h: Harness;
const owner = human({ org: 'org_own', project: 'prj_own' });
const colleague = human({ org: 'org_own', project: 'prj_own' });
let mindId: string;
let agentA: TestAgent;
let agentB: TestAgent;
let foreignAgent: TestAgent;

const DAY = 24 * 60 * 60 * 1000;
const inDays = (days: number) => Date.now() + days * DAY;
const READ = ['minds.agent_data.read'];
const READ_WRITE = ['minds.agent_data.read', 'minds.agent_data.write'];

beforeAll(async () => {
  h = await startHarness({ admissions: Object.fromEntries(admissionSettings.map((name) => [name, true])), controller: { enabled: false } });
  mindId = (await createMind(h, owner, { name: 'Sandbox owned' })).body.mind_id;
  agentA = h.iam.add('org_own');
  agentB = h.iam.add('org_own');
  foreignAgent = h.iam.add('org_elsewhere');
});
afterAll(async () => {
  await h?.close();
  await cleanUp();
});

const createGroup = (name: string, who = owner, operationId = randomUUID()) => h.call('POST', '/v1/minds/agent-groups', { as: who, body: { operationId, name } });
const addMember = (groupId: string, agentId: string, expectedVersion: number, who = owner, operationId = randomUUID()) =>
  h.call('POST', `/v1/minds/agent-groups/${groupId}/members`, { as: who, body: { operationId, expectedVersion, agentId } });
const removeMember = (groupId: string, agentId: string, expectedVersion: number, who = owner, operationId = randomUUID()) =>
  h.call('DELETE', `/v1/minds/agent-groups/${groupId}/members/${agentId}`, { as: who, body: { operationId, expectedVersion } });
const attach = (subject: Record<string, string>, expectedVersion: number, extra: Record<string, unknown> = {}, who = owner, mind = mindId) =>
  h.call('POST', `/v1/minds/${mind}/attachments`, { as: who, body: { operationId: randomUUID(), expectedVersion, subject, permissions: READ, expiresAt: inDays(7), ...extra } });
const detach = (attachmentId: string, expectedVersion: number, who = owner, mind = mindId, operationId = randomUUID()) =>
  h.call('DELETE', `/v1/minds/${mind}/attachments/${attachmentId}`, { as: who, body: { operationId, expectedVersion } });

describe('agent groups', () => {
  it('creates a group owned by the caller, with its name exactly as sent; lists it in id order', async () => {
    const name = 'Équipe support 🤖';
    const first = await createGroup(name);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^agp_[0-7][0-9A-HJKMNP-TV-Z]{25}$/),
      organizationId: 'org_own',
      ownerId: owner.principal,
      organizationGeneration: 1,
      name,
      version: 1,
      revokedAt: null,
    });
    const second = await createGroup('Research agents');
    const list = await h.call('GET', '/v1/minds/agent-groups', { as: owner });
    const ids = list.body.groups.map((g: any) => g.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining([first.body.id, second.body.id]));
    // Another principal of the organization sees the groups as missing.
    expect((await h.call('GET', '/v1/minds/agent-groups', { as: colleague })).body.groups).toEqual([]);
    const foreign = await h.call('GET', `/v1/minds/agent-groups/${first.body.id}/members`, { as: colleague });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'NOT_FOUND', reason: 'group_not_found' });
  });

  it('operationId: the same body replays the first result, another body is operation_id_reused', async () => {
    const operationId = randomUUID();
    const first = await createGroup('Replayed', owner, operationId);
    const again = await createGroup('Replayed', owner, operationId);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    const reused = await createGroup('Something else', owner, operationId);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toMatchObject({ code: 'INVALID_REQUEST', reason: 'operation_id_reused' });
    const groups = (await h.call('GET', '/v1/minds/agent-groups', { as: owner })).body.groups;
    expect(groups.filter((g: any) => g.name === 'Replayed')).toHaveLength(1);
  });

  it('another organization sees none of them, even for the same principal id', async () => {
    const group = (await createGroup('Org bound')).body;
    const sameUserElsewhere = human({ principal: owner.principal, org: 'org_neighbour', project: 'prj_own' });
    expect((await h.call('GET', '/v1/minds/agent-groups', { as: sameUserElsewhere })).body.groups).toEqual([]);
    const members = await h.call('GET', `/v1/minds/agent-groups/${group.id}/members`, { as: sameUserElsewhere });
    expect(members.body.error).toMatchObject({ code: 'NOT_FOUND', reason: 'group_not_found' });
    expect((await addMember(group.id, agentA.id, 0, sameUserElsewhere)).body.error.reason).toBe('group_not_found');
  });

  it('a name over 128 UTF-8 bytes or only whitespace is INVALID_ARGUMENT', async () => {
    expect((await createGroup('😀'.repeat(33))).body.error.code).toBe('INVALID_ARGUMENT');
    expect((await createGroup('  ')).body.error.code).toBe('INVALID_ARGUMENT');
    expect((await createGroup('😀'.repeat(32))).status).toBe(200);
  });
});

describe('group members', () => {
  it('add, keep, remove (tombstone), re-add: versions as DECISIONS.md says; the agent comes from IAM', async () => {
    const group = (await createGroup('Members')).body;
    const seenBefore = h.iam.seen.length;
    const added = await addMember(group.id, agentA.id, 0);
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ groupId: group.id, agentId: agentA.id, agentDid: agentA.did, agentCreatedAt: agentA.createdAtMs, version: 1, revokedAt: null });
    // The lookup carried an assertion the IAM accepted (the fake IAM verifies it).
    expect(h.iam.seen.slice(seenBefore).map((s) => s.agentId)).toEqual([agentA.id]);

    // Already an active member at its current version: unchanged.
    expect((await addMember(group.id, agentA.id, 1)).body).toEqual(added.body);
    // Stale version.
    const stale = await addMember(group.id, agentA.id, 0);
    expect(stale.body.error).toMatchObject({ code: 'INVALID_REQUEST', reason: 'version_mismatch' });

    const removed = await removeMember(group.id, agentA.id, 1);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ version: 2, revokedAt: expect.any(Number) });
    expect((await removeMember(group.id, agentA.id, 2)).body).toEqual(removed.body); // already removed: tombstone unchanged
    expect((await removeMember(group.id, agentA.id, 1)).body.error.reason).toBe('version_mismatch');

    await addMember(group.id, agentB.id, 0);
    const list = await h.call('GET', `/v1/minds/agent-groups/${group.id}/members`, { as: owner });
    expect(list.body.members.map((m: any) => m.agentId)).toEqual([agentA.id, agentB.id].sort());
    expect(list.body.members.find((m: any) => m.agentId === agentA.id).revokedAt).toBe(removed.body.revokedAt);

    const revived = await addMember(group.id, agentA.id, 2);
    expect(revived.body).toMatchObject({ version: 3, revokedAt: null });
  });

  it('forwards the very assertion it received to the agent lookup', async () => {
    const group = (await createGroup('Forwarding')).body;
    const assertion = await h.gateway.sign(owner);
    const reply = await h.call('POST', `/v1/minds/agent-groups/${group.id}/members`, { assertion, body: { operationId: randomUUID(), expectedVersion: 0, agentId: agentB.id } });
    expect(reply.status).toBe(200);
    expect(h.iam.seen.at(-1)).toEqual({ agentId: agentB.id, assertion });
  });

  it('an unknown agent or one of another organization is agent_not_found, and the refusal records nothing', async () => {
    const group = (await createGroup('Strict')).body;
    const operationId = randomUUID();
    for (const agentId of [newAgentId(), foreignAgent.id]) {
      const reply = await addMember(group.id, agentId, 0, owner, operationId);
      expect(reply.status).toBe(404);
      expect(reply.body.error).toMatchObject({ code: 'NOT_FOUND', reason: 'agent_not_found' });
    }
    // Nothing was recorded under the operationId: it still works for a valid request.
    expect((await addMember(group.id, agentA.id, 0, owner, operationId)).status).toBe(200);
  });

  it('an agent directory that cannot answer is SERVICE_UNAVAILABLE, never a guess', async () => {
    const unreachable = new HttpAgentDirectory('http://127.0.0.1:1', 500);
    await expect(unreachable.find(agentA.id, { org: 'org_own', assertion: 'x', requestId: 'req_x' })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      details: { reason: 'agent_directory_unreachable' },
    });
    // The fake IAM refuses a lookup without a valid assertion (401): that is not "no such agent" either.
    const refused = new HttpAgentDirectory(h.iam.url);
    await expect(refused.find(agentA.id, { org: 'org_own', assertion: 'forged', requestId: 'req_x' })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await refused.find(agentA.id, { org: 'org_own', assertion: await h.gateway.sign(owner), requestId: 'req_x' })).toMatchObject({ id: agentA.id, did: agentA.did });
    expect(await refused.find(agentA.id, { org: 'org_other', assertion: await h.gateway.sign(owner), requestId: 'req_x' })).toBeNull();
  });

  // spec/DECISIONS.md, "Several replicas of a service": IAM_INTERNAL_URL lists several gateways; a lookup moves
  // on only when a connection could not be opened, and a gateway that answered is believed.
  it('asks the next gateway only when a connection to one could not be opened', async () => {
    const ctx = async () => ({ org: 'org_own', assertion: await h.gateway.sign(owner), requestId: 'req_x' });
    const closedPort = await closedPortUrl();
    const overDead = new HttpAgentDirectory([closedPort, h.iam.url]);
    const before = h.iam.seen.length;
    // Lookups start at each gateway in turn: the first at the closed port, moved on to the answering one.
    for (let i = 0; i < 2; i++) expect(await overDead.find(agentA.id, await ctx())).toMatchObject({ id: agentA.id, did: agentA.did });
    expect(h.iam.seen.length - before).toBe(2);

    const failing = createServer((_req, res) => void (failing.requests++, res.writeHead(500).end())) as Server & { requests: number };
    failing.requests = 0;
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    try {
      const overFailing = new HttpAgentDirectory([`http://127.0.0.1:${(failing.address() as AddressInfo).port}`, h.iam.url]);
      const asked = h.iam.seen.length;
      await expect(overFailing.find(agentA.id, await ctx())).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { reason: 'agent_directory_refused' } });
      expect({ failing: failing.requests, other: h.iam.seen.length - asked }).toEqual({ failing: 1, other: 0 });
    } finally {
      failing.closeAllConnections();
      await new Promise((resolve) => failing.close(resolve));
    }
    const allDead = new HttpAgentDirectory([closedPort, await closedPortUrl()], 500);
    await expect(allDead.find(agentA.id, await ctx())).rejects.toMatchObject({ details: { reason: 'agent_directory_unreachable' } });
  });

  it("someone else's group is group_not_found; an agent without a record is member_not_found", async () => {
    const group = (await createGroup('Mine')).body;
    expect((await addMember(group.id, agentA.id, 0, colleague)).body.error.reason).toBe('group_not_found');
    expect((await removeMember(group.id, agentA.id, 0, colleague)).body.error.reason).toBe('group_not_found');
    const missing = await removeMember(group.id, agentB.id, 1);
    expect(missing.status).toBe(404);
    expect(missing.body.error.reason).toBe('member_not_found');
  });

  it('of 10 writers racing with the same expectedVersion exactly one wins', async () => {
    const group = (await createGroup('Race')).body;
    const replies = await Promise.all(Array.from({ length: 10 }, () => addMember(group.id, agentA.id, 0)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of replies.filter((r) => r.status !== 200)) expect(r.body.error.reason).toBe('version_mismatch');
    const removals = await Promise.all(Array.from({ length: 10 }, () => removeMember(group.id, agentA.id, 1)));
    expect(removals.filter((r) => r.status === 200)).toHaveLength(1);
  });
});

describe('attachments', () => {
  it('attach, renew, detach (tombstone still listed), detach again unchanged, re-attach: same id, next version', async () => {
    const attached = await attach({ kind: 'agent', agentId: agentA.id }, 0);
    expect(attached.status).toBe(200);
    expect(attached.body).toEqual({
      id: expect.stringMatching(/^mat_[0-7][0-9A-HJKMNP-TV-Z]{25}$/),
      version: 1,
      organizationId: 'org_own',
      projectId: 'prj_own',
      mindId,
      subject: { kind: 'agent', agentId: agentA.id },
      permissions: READ,
      sharedNamespace: null,
      expiresAt: expect.any(Number),
      revokedAt: null,
    });
    const expiresAt = inDays(20);
    const renewed = await attach({ kind: 'agent', agentId: agentA.id }, 1, { permissions: READ_WRITE, expiresAt });
    expect(renewed.body).toMatchObject({ id: attached.body.id, version: 2, permissions: READ_WRITE, expiresAt, revokedAt: null });

    const detached = await detach(attached.body.id, 2);
    expect(detached.body).toMatchObject({ id: attached.body.id, version: 3, revokedAt: expect.any(Number) });
    expect((await detach(attached.body.id, 3)).body).toEqual(detached.body);
    expect((await detach(attached.body.id, 2)).body.error.reason).toBe('version_mismatch');

    const listed = await h.call('GET', `/v1/minds/${mindId}/attachments`, { as: owner });
    expect(listed.body.attachments.find((a: any) => a.id === attached.body.id)).toEqual(detached.body);

    const revived = await attach({ kind: 'agent', agentId: agentA.id }, 3);
    expect(revived.body).toMatchObject({ id: attached.body.id, version: 4, revokedAt: null });
    expect((await attach({ kind: 'agent', agentId: agentA.id }, 0)).body.error.reason).toBe('version_mismatch');
  });

  it('a group subject gets the shared namespace group:<id>; the group must be an active group of the caller', async () => {
    const group = (await createGroup('Attached')).body;
    const attached = await attach({ kind: 'group', groupId: group.id }, 0, { permissions: READ_WRITE });
    expect(attached.body).toMatchObject({ subject: { kind: 'group', groupId: group.id }, sharedNamespace: `group:${group.id}`, permissions: READ_WRITE });
    const colleagueMind = (await createMind(h, colleague, { name: 'Sandbox colleague' })).body.mind_id;
    const notTheirs = await attach({ kind: 'group', groupId: group.id }, 0, {}, colleague, colleagueMind);
    expect(notTheirs.status).toBe(404);
    expect(notTheirs.body.error.reason).toBe('group_not_found');
    expect((await attach({ kind: 'agent', agentId: newAgentId() }, 0)).body.error.reason).toBe('agent_not_found');
    expect((await attach({ kind: 'agent', agentId: foreignAgent.id }, 0)).body.error.reason).toBe('agent_not_found');
  });

  it('expiresAt must be in the future and at most 30 days ahead; checked after the replay', async () => {
    for (const expiresAt of [Date.now() - 1000, inDays(30) + 60_000]) {
      const refused = await attach({ kind: 'agent', agentId: agentB.id }, 0, { expiresAt });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'INVALID_REQUEST', reason: 'expires_at_out_of_range' });
    }
    const body = { operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId: agentB.id }, permissions: READ, expiresAt: Date.now() + 1000 };
    const first = await h.call('POST', `/v1/minds/${mindId}/attachments`, { as: owner, body });
    expect(first.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // expiresAt is in the past now, but the replay is resolved first.
    const replay = await h.call('POST', `/v1/minds/${mindId}/attachments`, { as: owner, body });
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
  });

  it('permissions are exactly [read] or [read, write]', async () => {
    expect((await attach({ kind: 'agent', agentId: agentB.id }, 0, { permissions: ['minds.agent_data.write'] })).body.error.code).toBe('INVALID_ARGUMENT');
    expect((await attach({ kind: 'agent', agentId: agentB.id }, 0, { permissions: ['minds.agent_data.write', 'minds.agent_data.read'] })).body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('an unknown attachment, or one of another Mind, is attachment_not_found', async () => {
    const otherMind = (await createMind(h, owner, { name: 'Sandbox second' })).body.mind_id;
    const elsewhere = await attach({ kind: 'agent', agentId: agentA.id }, 0, {}, owner, otherMind);
    const reply = await detach(elsewhere.body.id, 1); // right id, wrong Mind
    expect(reply.status).toBe(404);
    expect(reply.body.error.reason).toBe('attachment_not_found');
  });

  it('of 10 writers racing with the same expectedVersion exactly one wins', async () => {
    const racer = h.iam.add('org_own');
    const replies = await Promise.all(Array.from({ length: 10 }, () => attach({ kind: 'agent', agentId: racer.id }, 0)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of replies.filter((r) => r.status !== 200)) expect(r.body.error.reason).toBe('version_mismatch');
    const id = replies.find((r) => r.status === 200)!.body.id;
    const renewals = await Promise.all(Array.from({ length: 10 }, (_, i) => attach({ kind: 'agent', agentId: racer.id }, 1, { expiresAt: inDays(1 + i) })));
    expect(renewals.filter((r) => r.status === 200)).toHaveLength(1);
    const detaches = await Promise.all(Array.from({ length: 10 }, () => detach(id, 2)));
    expect(detaches.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it('another project or organization gets mind_not_found for every attachment operation', async () => {
    const subject = h.iam.add('org_own');
    const attached = await attach({ kind: 'agent', agentId: subject.id }, 0, { expiresAt: inDays(3) });
    expect(attached.status).toBe(200);
    for (const stranger of [human({ org: 'org_own', project: 'prj_next' }), human({ org: 'org_x', project: 'prj_own' })]) {
      for (const reply of [
        await h.call('GET', `/v1/minds/${mindId}/attachments`, { as: stranger }),
        await attach({ kind: 'agent', agentId: subject.id }, 1, {}, stranger),
        await detach(attached.body.id, 1, stranger),
      ]) {
        expect(reply.status).toBe(404);
        expect(reply.body.error).toMatchObject({ code: 'NOT_FOUND', reason: 'mind_not_found' });
      }
    }
  });
});

/** A URL nothing listens at: a port just given up (fetch refuses to dial the low ports outright). */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
