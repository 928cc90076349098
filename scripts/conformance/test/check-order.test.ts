/**
 * The order of the checks, black-box through the gateway on the real stack: each request
 * breaks two rules at once, and the answer must be the earlier rule's code. The orders are
 * spec/DECISIONS.md's "Order of the credential checks" and "Order of checks" (Minds
 * behaviour); the interface does not state them. Owner management is left off
 * (its default), so the admission check can be put against the others; each case uses
 * fresh credentials, and a credential has three requests per window.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationPath, operationTable } from '@gateway-minds/contract';
import { startStack, type Stack } from '@gateway-minds/testkit';

const RATE_LIMIT_POINTS = 3;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    gatewayEnv: { RATE_LIMIT_POINTS: String(RATE_LIMIT_POINTS), RATE_LIMIT_WINDOW_SECONDS: '600' },
    mindsEnv: { MINDS_OWNER_MANAGEMENT_ENABLED: 'false' },
  });
});
afterAll(async () => {
  await stack?.close();
});

interface Sent {
  method: string;
  path: string;
  token?: string;
  headers?: Record<string, string>;
  body?: string;
}

async function send({ method, path, token, headers = {}, body }: Sent) {
  const response = await fetch(stack.url + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body,
  });
  const envelope = (await response.json()) as { error?: { code: string; reason?: string } };
  return { status: response.status, code: envelope.error?.code, reason: envelope.error?.reason };
}

const session = async (options: Record<string, unknown> = {}) => (await stack.issue('bridge_session', options)).token;
const json = { 'content-type': 'application/json' };
const listMinds = operationPath('minds_listMinds');
// Owner management, off on this stack: both operations need a Sandbox-selected original session.
const listGroups = operationPath('minds_listAgentGroups');
const attach = operationPath('minds_attachMind', { mind_id: randomUUID() });

describe('Order of the credential checks (DECISIONS.md): the first failing check answers', () => {
  it('known, unexpired, unrevoked comes before the kind: an expired API key on a Minds read is CREDENTIAL_INVALID', async () => {
    const token = (await stack.issue('api_key', { expires_in_seconds: -1 })).token;
    expect(await send({ method: 'GET', path: listMinds, token })).toMatchObject({ status: 401, code: 'CREDENTIAL_INVALID' });
  });

  it('the selection comes before the scopes: an expired selection without minds scopes is SELECTION_EXPIRED', async () => {
    const token = await session({ selection_expires_in_seconds: -1, scopes: ['platform.usage.read'] });
    expect(await send({ method: 'GET', path: listMinds, token })).toMatchObject({ status: 401, code: 'SELECTION_EXPIRED' });
  });

  it('the rate limit comes before the kind: an API key refused for its kind is RATE_LIMITED once its window is spent', async () => {
    const token = (await stack.issue('api_key')).token;
    for (let i = 0; i < RATE_LIMIT_POINTS; i++) {
      expect(await send({ method: 'GET', path: listMinds, token })).toMatchObject({ code: operationTable.minds_listMinds.credentialRefusal });
    }
    expect(await send({ method: 'GET', path: listMinds, token })).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  });

  it("the kind comes before the scopes: an API key without minds scopes gets the operation's x-credential-refusal", async () => {
    const token = (await stack.issue('api_key', { scopes: [] })).token;
    expect(await send({ method: 'GET', path: listMinds, token })).toMatchObject({ status: 403, code: 'HUMAN_SANDBOX_SELECTION_REQUIRED' });
  });

  it('the scopes come before the Sandbox selection: a session with neither minds:read nor a Sandbox is SCOPE_MISSING', async () => {
    const token = await session({ sandbox: false, scopes: ['platform.usage.read'] });
    expect(await send({ method: 'GET', path: listMinds, token })).toMatchObject({ status: 403, code: 'SCOPE_MISSING' });
  });

  it('the Sandbox selection comes before the original session: a derived session without a Sandbox is HUMAN_SANDBOX_SELECTION_REQUIRED', async () => {
    const token = await session({ sandbox: false, original_session: false });
    expect(await send({ method: 'GET', path: listGroups, token })).toMatchObject({ status: 403, code: 'HUMAN_SANDBOX_SELECTION_REQUIRED' });
  });
});

describe('Order of checks (DECISIONS.md, Minds behaviour): credential, request shape, admission, validation, own rules', () => {
  it('the credential rules come before admission: a derived session on owner management (off) is ORIGINAL_CONSOLE_REQUIRED', async () => {
    const token = await session({ original_session: false });
    expect(await send({ method: 'GET', path: listGroups, token })).toMatchObject({ status: 401, code: 'ORIGINAL_CONSOLE_REQUIRED' });
  });

  it("the gateway's request shape comes before admission: a body that is not JSON is JSON_REQUIRED, a query where none is taken QUERY_NOT_ALLOWED", async () => {
    const token = await session();
    expect(await send({ method: 'POST', path: attach, token, headers: { 'content-type': 'text/plain' }, body: 'x' })).toMatchObject({ status: 415, code: 'JSON_REQUIRED' });
    expect(await send({ method: 'GET', path: `${listGroups}?unknown=1`, token })).toMatchObject({ status: 400, code: 'QUERY_NOT_ALLOWED' });
  });

  it('admission comes before validation: an invalid path id and an unknown body field on owner management (off) are NOT_FOUND not_admitted', async () => {
    const token = await session();
    const answer = await send({ method: 'POST', path: '/v1/minds/not-a-uuid/attachments', token, headers: json, body: JSON.stringify({ unknown: true }) });
    expect(answer).toEqual({ status: 404, code: 'NOT_FOUND', reason: 'not_admitted' });
  });

  it("validation comes before the operation's own rules: limit=0 with a cursor that is not the caller's is INVALID_QUERY without cursor_not_found", async () => {
    const token = await session();
    const answer = await send({ method: 'GET', path: operationPath('minds_listMinds', { after: randomUUID(), limit: '0' }), token });
    expect(answer).toMatchObject({ status: 400, code: 'INVALID_QUERY' });
    expect(answer.reason).toBeUndefined();
    const own = await send({ method: 'GET', path: operationPath('minds_listMinds', { after: randomUUID() }), token });
    expect(own).toEqual({ status: 400, code: 'INVALID_QUERY', reason: 'cursor_not_found' });
  });
});
