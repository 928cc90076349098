/**
 * One pass over every operation of the contract with valid requests, checking
 * each answer against the contract (`op`). Used directly against the gateway
 * and again through a Prism validation proxy in front of it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { OperationId } from '@gateway-minds/contract';
import { newKey, waitForStatus, type Answer, type Call } from './http.js';

export interface ScenarioContext {
  call: Call;
  agentCall: Call;
  agent: { id: string };
  /** A fresh API key's token (for the verify route). */
  apiKeyToken: string;
  op(operationId: OperationId, send: () => Promise<Answer>, status: number): Promise<Answer>;
}

export async function everyOperation({ call, agentCall, agent, apiKeyToken, op }: ScenarioContext): Promise<void> {
  await op('gateway_getStatus', () => call('GET', '/v1/status', { token: null }), 200);
  await op('gateway_getPrincipal', () => call('GET', '/v1/whoami'), 200);
  await op('gateway_getUsage', () => call('GET', '/v1/usage?days=7'), 200);
  await op('gateway_listErrors', () => call('GET', '/v1/errors', { token: null }), 200);
  await op('gateway_getOpenApi', () => call('GET', '/v1/openapi.json', { token: null }), 200);
  const token = apiKeyToken;
  const verified = await op('iam_verifyCredential', () => call('POST', '/v1/iam/credentials/verify', { token: null, body: { credential: token } }), 200);
  expect(verified.body.active).toBe(true);
  const list = await op('minds_listMinds', () => call('GET', '/v1/minds/services?limit=5'), 200);
  const key = newKey();
  const create = () =>
    call('POST', '/v1/minds/services', {
      body: { name: 'Sandbox lifecycle', plan: 'pro' },
      headers: { 'idempotency-key': key, 'x-platform-minds-creation-context': list.body.context_sha256 },
    });
  const created = await op('minds_createMind', create, 202);
  expect(created.body).toMatchObject({ status: 'provisioning', capacity: { profile_id: 'D1' } });
  expect((await create()).body).toEqual(created.body); // durable replay
  const mindId: string = created.body.mind_id;

  // Memory refuses a Mind that is not ready yet.
  const early = await call('POST', `/v1/minds/search?mind=${mindId}`, { body: { text: 'anything' } });
  expect(early.status === 409 ? early.body.error.code : 'ready already').toMatch(/MIND_NOT_READY|ready already/);

  const ready = await waitForStatus(call, mindId, 'ready');
  await op('minds_getMind', () => call('GET', `/v1/minds/services/${mindId}`), 200);

  const eventId = randomUUID();
  const inserted = await op('minds_insertEpisodicMemory', () =>
    call('POST', `/v1/minds/memory/episodic?mind=${mindId}`, {
      body: { event: { id: eventId, content: 'The orchid garden is watered on Tuesdays', timestamp: '2026-11-21T12:00:00Z', event_type: 'Knowledge', tags: ['garden'] } },
    }), 200);
  expect(inserted.body.id).not.toBe(eventId);
  const read = await op('minds_getEpisodicMemory', () => call('GET', `/v1/minds/memory/episodic/${inserted.body.id}?mind=${mindId}`), 200);
  expect(read.body.item).toMatchObject({ id: eventId, event_type: 'Knowledge', tags: ['garden'] });
  await op('minds_updateEpisodicMemory', () =>
    call('PUT', `/v1/minds/memory/episodic/${inserted.body.id}?mind=${mindId}`, { body: { event_id: eventId, content: 'The orchid garden is watered on Fridays' } }), 200);
  const mismatch = await call('PUT', `/v1/minds/memory/episodic/${inserted.body.id}?mind=${mindId}`, { body: { event_id: randomUUID(), content: 'x' } });
  expect({ status: mismatch.status, code: mismatch.body.error.code }).toEqual({ status: 409, code: 'EVENT_ID_MISMATCH' });
  const found = await op('minds_searchMemory', () => call('POST', `/v1/minds/search?mind=${mindId}`, { body: { text: 'orchid Fridays' } }), 200);
  expect(found.body.items[0]).toMatchObject({ id: eventId, content: 'The orchid garden is watered on Fridays', event_type: 'Knowledge' });

  // Owner management: a group with the agent in it, attached to the Mind.
  const group = await op('minds_createAgentGroup', () => call('POST', '/v1/minds/agent-groups', { body: { operationId: randomUUID(), name: 'Gardeners 🌱' } }), 200);
  await op('minds_listAgentGroups', () => call('GET', '/v1/minds/agent-groups'), 200);
  await op('minds_addAgentGroupMember', () =>
    call('POST', `/v1/minds/agent-groups/${group.body.id}/members`, { body: { operationId: randomUUID(), expectedVersion: 0, agentId: agent.id } }), 200);
  const stale = await call('POST', `/v1/minds/agent-groups/${group.body.id}/members`, { body: { operationId: randomUUID(), expectedVersion: 0, agentId: agent.id } });
  expect(stale.status === 200 || stale.body.error.reason === 'version_mismatch').toBe(true);
  await op('minds_listAgentGroupMembers', () => call('GET', `/v1/minds/agent-groups/${group.body.id}/members`), 200);
  const inAnHour = Date.now() + 3_600_000;
  const attachment = await op('minds_attachMind', () =>
    call('POST', `/v1/minds/${mindId}/attachments`, {
      body: { operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'group', groupId: group.body.id }, permissions: ['minds.agent_data.read', 'minds.agent_data.write'], expiresAt: inAnHour },
    }), 200);
  expect(attachment.body.sharedNamespace).toBe(`group:${group.body.id}`);
  await op('minds_listMindAttachments', () => call('GET', `/v1/minds/${mindId}/attachments`), 200);

  // Agent memory through the group's attachment.
  const agentEvent = randomUUID();
  const agentInsert = await op('minds_agentInsertEpisodicMemory', () =>
    agentCall('POST', `/v1/minds/agent/memory/episodic?mind=${mindId}&group=${group.body.id}`, {
      body: { event: { id: agentEvent, content: 'Shared note: compost the orchid cuttings', timestamp: '2026-11-21T12:05:00Z' } },
    }), 200);
  await op('minds_agentGetEpisodicMemory', () => agentCall('GET', `/v1/minds/agent/memory/episodic/${agentInsert.body.id}?mind=${mindId}&group=${group.body.id}`), 200);
  const agentFound = await op('minds_agentSearchMemory', () =>
    agentCall('POST', `/v1/minds/agent/search?mind=${mindId}&group=${group.body.id}`, { body: { text: 'compost', limit: 5 } }), 200);
  expect(agentFound.body.items.map((i: { id: string }) => i.id)).toContain(agentEvent);

  // Detach, remove: tombstones stay listed, and the agent loses access.
  const detached = await op('minds_detachMind', () =>
    call('DELETE', `/v1/minds/${mindId}/attachments/${attachment.body.id}`, { body: { operationId: randomUUID(), expectedVersion: attachment.body.version } }), 200);
  expect(detached.body.revokedAt).toEqual(expect.any(Number));
  expect((await call('GET', `/v1/minds/${mindId}/attachments`)).body.attachments).toEqual([expect.objectContaining({ id: attachment.body.id, revokedAt: expect.any(Number) })]);
  const refused = await agentCall('POST', `/v1/minds/agent/search?mind=${mindId}&group=${group.body.id}`, { body: { text: 'compost' } });
  expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 403, code: 'INVALID_AGENT_CAPABILITY' });
  const members = await call('GET', `/v1/minds/agent-groups/${group.body.id}/members`);
  await op('minds_removeAgentGroupMember', () =>
    call('DELETE', `/v1/minds/agent-groups/${group.body.id}/members/${agent.id}`, { body: { operationId: randomUUID(), expectedVersion: members.body.members[0].version } }), 200);

  // Stop and resume, with the generation check after the replay.
  const stopKey = newKey();
  const stop = () => call('POST', `/v1/minds/services/${mindId}/stop`, { body: { expected_generation: ready.desired_generation }, headers: { 'idempotency-key': stopKey } });
  const stopped = await op('minds_stopMind', stop, 202);
  expect(await stop()).toMatchObject({ status: 202, body: stopped.body }); // replay resolved before the (now stale) generation
  const stale2 = await call('POST', `/v1/minds/services/${mindId}/stop`, { body: { expected_generation: ready.desired_generation }, headers: { 'idempotency-key': newKey() } });
  expect({ status: stale2.status, code: stale2.body.error.code, reason: stale2.body.error.reason }).toEqual({ status: 409, code: 'MIND_NOT_READY', reason: 'generation_mismatch' });
  await waitForStatus(call, mindId, 'stopped');
  const resumed = await op('minds_resumeMind', () =>
    call('POST', `/v1/minds/services/${mindId}/resume`, { body: { expected_generation: stopped.body.desired_generation, wake_reason: 'manual' }, headers: { 'idempotency-key': newKey() } }), 202);
  expect(resumed.body.volume_id).toBe(ready.volume_id); // the volume is retained
  await waitForStatus(call, mindId, 'ready');

  const from = new Date(Date.now() - 3_600_000).toISOString();
  const to = new Date(Date.now() + 60_000).toISOString();
  const usage = await op('minds_getUsage', () => call('GET', `/v1/minds/usage?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`), 200);
  const entry = usage.body.minds.find((m: { mind_id: string }) => m.mind_id === mindId);
  expect(entry.compute_seconds).toBeGreaterThan(0);
  expect(entry.storage_gb_seconds).toBeGreaterThan(0);
}
