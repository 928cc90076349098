/**
 * Concurrency on PGlite and on PostgreSQL: 50 concurrent createMind calls with
 * one Idempotency-Key make one Mind; concurrent stop/resume with the same
 * expected_generation and different keys: exactly one accepted; concurrent
 * owner-management writes with the same expectedVersion: exactly one wins.
 * The others get their documented codes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { caller, newKey, readyMind, type Call } from '../src/http.js';

const drivers = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])] as const;

describe.each(drivers)('on %s', (driver) => {
  let stack: Stack;
  let call: Call;
  beforeAll(async () => {
    const saved = process.env.TEST_DATABASE_URL;
    if (driver === 'pglite') delete process.env.TEST_DATABASE_URL; // testkit picks PostgreSQL when it is set
    try {
      stack = await startStack();
    } finally {
      if (saved) process.env.TEST_DATABASE_URL = saved;
    }
    call = caller(stack.url, (await stack.issue('bridge_session')).token);
  });
  afterAll(() => stack?.close());

  it('50 concurrent createMind calls with one Idempotency-Key make one Mind', async () => {
    const context = (await call('GET', '/v1/minds/services')).body.context_sha256;
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        call('POST', '/v1/minds/services', { body: { name: 'Sandbox race' }, headers: { 'idempotency-key': key, 'x-platform-minds-creation-context': context } }),
      ),
    );
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([202]));
    expect(new Set(answers.map((a) => a.body.mind_id)).size).toBe(1);
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    const listed = (await call('GET', '/v1/minds/services?limit=100')).body.items.filter((m: { name: string }) => m.name === 'Sandbox race');
    expect(listed).toHaveLength(1);
  });

  it('concurrent stops with the same expected_generation and different keys: exactly one accepted', async () => {
    const mind = await readyMind(call, 'Sandbox stop race');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { body: { expected_generation: mind.desired_generation }, headers: { 'idempotency-key': newKey() } }),
      ),
    );
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 202)) {
      expect({ status: refused.status, code: refused.body.error.code, reason: refused.body.error.reason }).toEqual({ status: 409, code: 'MIND_NOT_READY', reason: 'generation_mismatch' });
    }
    expect((await call('GET', `/v1/minds/services/${mind.mind_id}`)).body.desired_generation).toBe(mind.desired_generation + 1);
  });

  it('concurrent owner-management writes with the same expectedVersion: exactly one wins', async () => {
    const group = (await call('POST', '/v1/minds/agent-groups', { body: { operationId: randomUUID(), name: 'racers' } })).body;
    const agents = await Promise.all(Array.from({ length: 3 }, () => stack.createAgent()));
    const agentId = agents[0]!.id;
    const adds = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', `/v1/minds/agent-groups/${group.id}/members`, { body: { operationId: randomUUID(), expectedVersion: 0, agentId } })),
    );
    const winners = adds.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.body.version).toBe(1);
    for (const refused of adds.filter((a) => a.status !== 200)) {
      expect({ status: refused.status, code: refused.body.error.code, reason: refused.body.error.reason }).toEqual({ status: 400, code: 'INVALID_REQUEST', reason: 'version_mismatch' });
    }
    const removes = await Promise.all(
      Array.from({ length: 10 }, () => call('DELETE', `/v1/minds/agent-groups/${group.id}/members/${agentId}`, { body: { operationId: randomUUID(), expectedVersion: 1 } })),
    );
    expect(removes.filter((a) => a.status === 200 && a.body.version === 2)).toHaveLength(1);
    const members = (await call('GET', `/v1/minds/agent-groups/${group.id}/members`)).body.members;
    expect(members).toEqual([expect.objectContaining({ agentId, version: 2, revokedAt: expect.any(Number) })]);

    const mind = await readyMind(call, 'Sandbox attach race');
    const attaches = await Promise.all(
      agents.map(() => call('POST', `/v1/minds/${mind.mind_id}/attachments`, {
        body: { operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId: agents[1]!.id }, permissions: ['minds.agent_data.read'], expiresAt: Date.now() + 3_600_000 },
      })),
    );
    expect(attaches.filter((a) => a.status === 200)).toHaveLength(1);
    for (const refused of attaches.filter((a) => a.status !== 200)) expect(refused.body.error.reason).toBe('version_mismatch');
    const attachments = (await call('GET', `/v1/minds/${mind.mind_id}/attachments`)).body.attachments;
    expect(attachments).toHaveLength(1);
  });
});
