/**
 * Decisions recorded where the interface is silent or loose, black-box through the real gateway
 * to the real Minds service. Each test names the spec/DECISIONS.md entry it follows and the
 * interface sentence that entry rests on (gateway-minds-interface.md, section: "words").
 */
import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as dpop from 'dpop';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dereference, type JsonSchema, type OpenApiDocument } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { freePort, startStack, type Stack } from '@gateway-minds/testkit';
import { caller, type Answer, type Call, readyMind } from '../src/http.js';

let stack: Stack;
let owner: Call;
let mindId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = caller(stack.url, (await stack.issue('bridge_session')).token);
  mindId = (await readyMind(owner, 'Sandbox recorded decisions')).mind_id;
});
afterAll(() => stack?.close());

const codeOf = (answer: Answer) => ({ status: answer.status, code: answer.body?.error?.code as string | undefined, reason: answer.body?.error?.reason as string | undefined });

describe('DECISIONS "Search text of only whitespace" (Memory, minds_searchMemory and minds_agentSearchMemory: "`text` string 1..1000 bytes")', () => {
  const whitespace = [' ', '   ', '\t\n ', '\u00a0\u2003'];

  it.each(whitespace.map((text) => [JSON.stringify(text), text]))('the owner search of %s answers 200 with items: []', async (_label, text) => {
    const stored = await owner('POST', `/v1/minds/memory/episodic?mind=${mindId}`, { body: { event: { id: randomUUID(), content: 'a tern over the estuary', timestamp: '2026-11-21T12:00:00Z' } } });
    expect(stored.status).toBe(200);
    const answer = await owner('POST', `/v1/minds/search?mind=${mindId}`, { body: { text } });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: { items: [] } });
    // The search is still a search: the stored event is found by a word.
    expect((await owner('POST', `/v1/minds/search?mind=${mindId}`, { body: { text: 'tern' } })).body.items.length).toBeGreaterThan(0);
  });

  it('the agent search of whitespace answers 200 with items: []', async () => {
    const agent = await stack.issue('agent_credential');
    const attached = await owner('POST', `/v1/minds/${mindId}/attachments`, {
      body: { operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId: agent.agent_id }, permissions: ['minds.agent_data.read'], expiresAt: Date.now() + 3_600_000 },
    });
    expect(attached.status).toBe(200);
    const answer = await caller(stack.url, agent.token)('POST', `/v1/minds/agent/search?mind=${mindId}`, { body: { text: ' \t ' } });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: { items: [] } });
  });

  it('the bounds the interface does state still hold: empty text, over 1000 bytes, U+0000 are INVALID_ARGUMENT', async () => {
    for (const text of ['', ' '.repeat(1001), ' \u0000 ']) {
      expect(codeOf(await owner('POST', `/v1/minds/search?mind=${mindId}`, { body: { text } }))).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
    }
  });
});

describe('DECISIONS "Ambient authority" (Authentication 1: "Ambient authority (cookie or forwarded) is refused; an explicit credential is required")', () => {
  const ambient: Record<string, string>[] = [{ cookie: 'session=abc' }, { 'x-forwarded-authorization': 'Bearer abc' }, { 'proxy-authorization': 'Bearer abc' }];
  const anonymous = caller('', null);
  const at = (path: string) => `${stack.url}${path}`;

  it.each(ambient.map((headers) => [Object.keys(headers)[0]!, headers]))('%s without a bearer, where a credential is needed: 403 AMBIENT_AUTHORITY_NOT_ALLOWED', async (_name, headers) => {
    for (const path of ['/v1/whoami', '/v1/usage', '/v1/minds/services']) {
      expect(codeOf(await anonymous('GET', at(path), { headers }))).toMatchObject({ status: 403, code: 'AMBIENT_AUTHORITY_NOT_ALLOWED' });
    }
  });

  it.each(ambient.map((headers) => [Object.keys(headers)[0]!, headers]))('%s where no credential is needed: ignored, the route answers as without it', async (_name, headers) => {
    for (const path of ['/v1/status', '/v1/errors', '/v1/openapi.json']) expect((await anonymous('GET', at(path), { headers })).status).toBe(200);
    expect((await anonymous('POST', at('/v1/iam/credentials/verify'), { headers, body: { credential: 'bs_nonsense' } })).body).toEqual({ object: 'credential_verification', active: false });
    // A path the contract does not name is forwarded without a credential: the service answers it.
    const unnamed = await anonymous('GET', at('/v1/minds/not-an-operation'), { headers });
    expect(codeOf(unnamed)).toMatchObject({ status: 404, code: 'ROUTE_NOT_FOUND' });
    expect(unnamed.body.error.message).toBe('No service or operation at this path.');
  });

  it('with a bearer, ambient headers are ignored', async () => {
    expect((await owner('GET', '/v1/whoami', { headers: { cookie: 'session=abc' } })).status).toBe(200);
  });
});

describe('DECISIONS "Which credentials whoami accepts" (Authentication 6: "A signed-in organization and project selection can expire (`SELECTION_EXPIRED`); it must be selected again")', () => {
  it('a session whose selection has expired is 401 SELECTION_EXPIRED on whoami; the same session kind with a current selection is 200', async () => {
    const expired = await stack.issue('bridge_session', { selection_expires_in_seconds: -1 });
    const answer = await caller(stack.url, expired.token)('GET', '/v1/whoami');
    expect(codeOf(answer)).toMatchObject({ status: 401, code: 'SELECTION_EXPIRED' });
    expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const current = await stack.issue('bridge_session', { selection_expires_in_seconds: 3600 });
    expect((await caller(stack.url, current.token)('GET', '/v1/whoami')).body).toMatchObject({ object: 'principal', kind: 'bridge_session' });
  });
});

describe('DECISIONS "Agent directory" (the catalog\'s SERVICE_UNAVAILABLE "service or operation temporarily unavailable")', () => {
  it('an agent lookup that cannot reach the directory: 503 SERVICE_UNAVAILABLE, reason agent_directory_unreachable, and nothing changed', async () => {
    const cut = await startStack({ mindsEnv: { IAM_INTERNAL_URL: `http://127.0.0.1:${await freePort()}` } });
    try {
      const session = caller(cut.url, (await cut.issue('bridge_session')).token);
      const group = (await session('POST', '/v1/minds/agent-groups', { body: { operationId: randomUUID(), name: 'Unreachable directory' } })).body;
      const agent = await cut.createAgent();
      const added = await session('POST', `/v1/minds/agent-groups/${group.id}/members`, { body: { operationId: randomUUID(), expectedVersion: 0, agentId: agent.id } });
      expect(codeOf(added)).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE', reason: 'agent_directory_unreachable' });
      expect((await session('GET', `/v1/minds/agent-groups/${group.id}/members`)).body).toEqual({ members: [] });
    } finally {
      await cut.close();
    }
  });
});

describe('DECISIONS "The form of a date-time" (Episodic event: "`timestamp` | string date-time"; minds_getUsage: "`from`, `to` (RFC 3339 date-time, both required)")', () => {
  const variants = [
    ['a space instead of T', '2026-11-21 12:00:00Z'],
    ['a lower-case t', '2026-11-21t12:00:00Z'],
    ['a lower-case z', '2026-11-21T12:00:00z'],
    ['an offset without its colon', '2026-11-21T12:00:00+0100'],
  ] as const;
  const words = () => `kestrel${randomUUID().slice(0, 8)}`;

  it.each(variants)('an event timestamp with %s is INVALID_ARGUMENT at body.event.timestamp, and nothing is stored', async (_name, timestamp) => {
    const word = words();
    const answer = await owner('POST', `/v1/minds/memory/episodic?mind=${mindId}`, { body: { event: { id: randomUUID(), content: `a ${word}`, timestamp } } });
    expect(codeOf(answer)).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
    expect(answer.body.error.errors.map((e: { location: string }) => e.location)).toContain('body.event.timestamp');
    expect((await owner('POST', `/v1/minds/search?mind=${mindId}`, { body: { text: word } })).body.items).toEqual([]);
  });

  it.each(variants)('a usage window with %s is INVALID_QUERY', async (_name, from) => {
    const answer = await owner('GET', `/v1/minds/usage?from=${encodeURIComponent(from)}&to=${encodeURIComponent('2026-11-22T12:00:00Z')}`);
    expect(codeOf(answer)).toMatchObject({ status: 400, code: 'INVALID_QUERY' });
  });

  it('the canonical forms are accepted and answered exactly as sent: an offset, a fraction, Z', async () => {
    const timestamp = '2026-11-21T13:00:00.250+01:00';
    const stored = await owner('POST', `/v1/minds/memory/episodic?mind=${mindId}`, { body: { event: { id: randomUUID(), content: 'a canonical plover', timestamp } } });
    expect(stored.status).toBe(200);
    expect((await owner('GET', `/v1/minds/memory/episodic/${stored.body.id}?mind=${mindId}`)).body.item.timestamp).toBe(timestamp);
    const usage = await owner('GET', `/v1/minds/usage?from=${encodeURIComponent('2026-11-20T12:00:00+01:00')}&to=2026-11-21T12:00:00Z`);
    expect(usage.status).toBe(200);
    expect([usage.body.from, usage.body.to]).toEqual(['2026-11-20T12:00:00+01:00', '2026-11-21T12:00:00Z']);
  });
});

/** A schema of the published spec, compiled by a validator that knows nothing of these servers (Ajv, JSON Schema 2020-12). */
function outsideValidator(schema: JsonSchema) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile(schema);
}
const document = dereference(structuredClone(openapiDocument) as OpenApiDocument);
const createMindSchema = document.paths['/v1/minds/services']!.post!.requestBody!.content!['application/json']!.schema!;

describe('DECISIONS "Plan default" and "Mind name on create", in the schema (Plan and profile rules for create, 1: "When `plan` is omitted or `free`, profile `F1` is selected and only `F1` is accepted")', () => {
  const refusedBodies = [
    ['free with D1', { name: 'Sandbox x', plan: 'free', profile_id: 'D1' }],
    ['no plan with D2', { name: 'Sandbox x', profile_id: 'D2' }],
    ['U+0000 in the name', { name: 'Sandbox a\u0000b' }],
  ] as const;

  it('the schema alone refuses what the server refuses, and accepts every plan the interface admits', () => {
    const validate = outsideValidator(createMindSchema);
    for (const [name, body] of refusedBodies) expect({ name, valid: validate(body) }).toEqual({ name, valid: false });
    for (const body of [{ name: 'Sandbox' }, { name: 'Sandbox x', plan: 'free', profile_id: 'F1' }, { name: 'Sandbox x', plan: 'pro' }, ...['F1', 'D1', 'D2'].map((profile_id) => ({ name: 'Sandbox x', plan: 'pro', profile_id }))]) {
      expect({ body, valid: validate(body) }).toEqual({ body, valid: true });
    }
  });

  it.each(refusedBodies)('%s: the server answers INVALID_ARGUMENT and creates nothing', async (_name, body) => {
    const before = await owner('GET', '/v1/minds/services?limit=100');
    const answer = await owner('POST', '/v1/minds/services', { body, headers: { 'idempotency-key': randomUUID(), 'x-platform-minds-creation-context': before.body.context_sha256 } });
    expect(codeOf(answer)).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
    if ('profile_id' in body) expect(answer.body.error.errors.map((e: { location: string }) => e.location)).toContain('body.profile_id');
    expect((await owner('GET', '/v1/minds/services?limit=100')).body.items).toEqual(before.body.items);
  });
});

describe('DECISIONS "The DPoP header" (Errors: DPOP_INVALID "DPoP header is not a compact JWS")', () => {
  const dpopSchema = (document.components!.parameters!.Dpop as { schema: JsonSchema }).schema;

  it('the schema states the compact JWS shape: a real proof passes, anything else does not', async () => {
    const validate = outsideValidator(dpopSchema);
    const keys = await dpop.generateKeyPair('ES256');
    expect(validate(await dpop.generateProof(keys, 'http://127.0.0.1/v1/minds/agent/search', 'GET'))).toBe(true);
    for (const bad of ['not-a-jws', 'a.b', 'a.b.c.d', 'a..c', 'a.b.c=', 'é.b.c']) expect({ bad, valid: validate(bad) }).toEqual({ bad, valid: false });
  });

  it('an agent credential with a dpop header of another shape: 401 DPOP_INVALID with its DPoP challenge, nothing stored', async () => {
    const agent = await stack.issue('agent_credential');
    await owner('POST', `/v1/minds/${mindId}/attachments`, {
      body: { operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId: agent.agent_id }, permissions: ['minds.agent_data.read', 'minds.agent_data.write'], expiresAt: Date.now() + 3_600_000 },
    });
    const call = caller(stack.url, agent.token);
    const word = `bittern${randomUUID().slice(0, 8)}`;
    const answer = await call('POST', `/v1/minds/agent/memory/episodic?mind=${mindId}`, { body: { event: { id: randomUUID(), content: `a ${word}`, timestamp: '2026-11-21T12:00:00Z' } }, headers: { dpop: 'not-a-jws' } });
    expect(codeOf(answer)).toMatchObject({ status: 401, code: 'DPOP_INVALID' });
    expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_dpop_proof"/);
    expect((await call('POST', `/v1/minds/agent/search?mind=${mindId}`, { body: { text: word } })).body.items).toEqual([]);
  });
});
