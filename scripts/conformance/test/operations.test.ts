/**
 * Every operation of the contract through the real gateway to the real Minds
 * service: each answers its declared success status with a body that
 * validates against the spec, and the Minds refusals arrive through the
 * gateway with their documented codes. A coverage check fails when an
 * operation of the spec is not exercised here.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationIds, type OperationId } from '@gateway-minds/contract';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { contractProblems } from '../src/contract-check.js';
import { caller, newKey, type Answer, type Call } from '../src/http.js';
import { everyOperation } from '../src/scenario.js';

let stack: Stack;
let call: Call;
let agentCall: Call;
let agent: { id: string };
const exercised = new Set<OperationId>();

/** Calls an operation and checks the answer against the contract before returning it. */
async function op(operationId: OperationId, send: () => Promise<Answer>, status: number): Promise<Answer> {
  const answer = await send();
  expect(contractProblems(operationId, answer), JSON.stringify(answer.body)).toEqual([]);
  expect(answer.status, `${operationId} ${JSON.stringify(answer.body)}`).toBe(status);
  exercised.add(operationId);
  return answer;
}

beforeAll(async () => {
  stack = await startStack();
  call = caller(stack.url, (await stack.issue('bridge_session')).token);
  agent = await stack.createAgent();
  agentCall = caller(stack.url, (await stack.issue('agent_credential', { agent_id: agent.id })).token);
});
afterAll(() => stack?.close());

describe('every operation through the gateway', () => {
  it('answers every operation with its declared status and a body that validates', async () => {
    await everyOperation({ call, agentCall, agent, apiKeyToken: (await stack.issue('api_key')).token, op });
  });

  it('refuses with the documented codes through the gateway', async () => {
    const list = await call('GET', '/v1/minds/services');
    const context = list.body.context_sha256;
    const cases: [string, Promise<Answer>, number, string, string?][] = [
      ['free plan with D1', call('POST', '/v1/minds/services', { body: { name: 'Sandbox x', plan: 'free', profile_id: 'D1' }, headers: { 'idempotency-key': newKey(), 'x-platform-minds-creation-context': context } }), 400, 'INVALID_ARGUMENT'],
      ['P1', call('POST', '/v1/minds/services', { body: { name: 'Sandbox x', plan: 'pro', profile_id: 'P1' }, headers: { 'idempotency-key': newKey(), 'x-platform-minds-creation-context': context } }), 400, 'INVALID_ARGUMENT'],
      ['a name outside the Sandbox pattern', call('POST', '/v1/minds/services', { body: { name: 'Production' }, headers: { 'idempotency-key': newKey(), 'x-platform-minds-creation-context': context } }), 400, 'INVALID_ARGUMENT'],
      ['a wrong creation context', call('POST', '/v1/minds/services', { body: { name: 'Sandbox x' }, headers: { 'idempotency-key': newKey(), 'x-platform-minds-creation-context': 'f'.repeat(64) } }), 403, 'ORIGINAL_CONTEXT_MISMATCH'],
      ['no Idempotency-Key', call('POST', '/v1/minds/services', { body: { name: 'Sandbox x' }, headers: { 'x-platform-minds-creation-context': context } }), 400, 'IDEMPOTENCY_KEY_REQUIRED'],
      ['an unknown Mind', call('GET', `/v1/minds/services/${randomUUID()}`), 404, 'NOT_FOUND', 'mind_not_found'],
      ['a window over 93 days', call('GET', `/v1/minds/usage?from=${encodeURIComponent('2026-01-01T00:00:00Z')}&to=${encodeURIComponent('2026-06-01T00:00:00Z')}`), 400, 'INVALID_QUERY'],
      ['expiresAt beyond 30 days', call('POST', `/v1/minds/${randomUUID()}/attachments`, { body: { operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId: agent.id }, permissions: ['minds.agent_data.read'], expiresAt: Date.now() + 31 * 86_400_000 } }), 404, 'NOT_FOUND'],
    ];
    for (const [name, pending, status, code, reason] of cases) {
      const answer = await pending;
      expect({ name, status: answer.status, code: answer.body.error.code, ...(reason ? { reason: answer.body.error.reason } : {}) }).toEqual({ name, status, code, ...(reason ? { reason } : {}) });
      expect(answer.body.error.request_id).toBe(answer.headers.get('x-request-id'));
    }
  });

  it('left no operation of the contract unexercised', () => {
    expect([...exercised].sort()).toEqual([...operationIds].sort());
  });
});
