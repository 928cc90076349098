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
let ownerToken: string;
let mindId: string;

beforeAll(async () => {
  stack = await startStack();
  ownerToken = (await stack.issue('bridge_session')).token;
  owner = caller(stack.url, ownerToken);
  mindId = (await readyMind(owner, 'Sandbox recorded decisions')).mind_id;
});
afterAll(() => stack?.close());

/** The owner's request with a body sent exactly as written (JSON.stringify could not write a repeated name). */
async function rawOwner(method: string, path: string, body: string): Promise<Answer> {
  const response = await fetch(stack.url + path, { method, headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' }, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

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

describe('DECISIONS "UUIDs" (Attachments: `mindId` "lowercase UUID pattern"; "`operationId` matches the lowercase UUID pattern in every body that has it")', () => {
  it('an upper-case UUID is refused with the code of its place, and nothing changes', async () => {
    const upper = mindId.toUpperCase();
    expect(codeOf(await owner('GET', `/v1/minds/services/${upper}`))).toMatchObject({ status: 400, code: 'INVALID_IDENTIFIER' });
    expect(codeOf(await owner('POST', `/v1/minds/search?mind=${upper}`, { body: { text: 'x' } }))).toMatchObject({ status: 400, code: 'INVALID_QUERY' });
    const groups = (await owner('GET', '/v1/minds/agent-groups')).body.groups.length;
    expect(codeOf(await owner('POST', '/v1/minds/agent-groups', { body: { operationId: randomUUID().toUpperCase(), name: 'Upper' } }))).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
    expect((await owner('GET', '/v1/minds/agent-groups')).body.groups.length).toBe(groups);
    const mind = (await owner('GET', `/v1/minds/services/${mindId}`)).body;
    expect(codeOf(await owner('POST', `/v1/minds/services/${mindId}/stop`, { body: { expected_generation: mind.desired_generation }, headers: { 'idempotency-key': randomUUID().toUpperCase() } }))).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect((await owner('GET', `/v1/minds/services/${mindId}`)).body.desired_generation).toBe(mind.desired_generation);
  });
});

describe('DECISIONS "Tags" (Episodic event: "`tags` | string[]")', () => {
  const insert = (tags: string[]) => owner('POST', `/v1/minds/memory/episodic?mind=${mindId}`, { body: { event: { id: randomUUID(), content: 'tagged', timestamp: '2026-11-21T12:00:00Z', tags } } });

  it('32 tags of 64 characters are stored; a 33rd tag, a 65-character tag or a blank one is INVALID_ARGUMENT', async () => {
    const most = Array.from({ length: 32 }, (_, i) => `${i}`.padEnd(64, 't'));
    const stored = await insert(most);
    expect(stored.status).toBe(200);
    expect((await owner('GET', `/v1/minds/memory/episodic/${stored.body.id}?mind=${mindId}`)).body.item.tags).toEqual(most);
    for (const tags of [[...most, 'one more'], ['t'.repeat(65)], ['  ']]) expect(codeOf(await insert(tags))).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
  });
});

describe('DECISIONS "An agent credential\'s project" (agent operations: "an existing `mak_acr` credential or an agent token, independent of the Console selection")', () => {
  it('a credential bound to a project reaches only that project\'s Minds; one bound to none reaches every Mind its agent is attached to', async () => {
    const { organization_id } = (await (await fetch(`${stack.adminUrl}/admin/defaults`, { headers: { authorization: `Bearer ${stack.gateway.adminToken}` } })).json()) as { organization_id: string };
    const { project_id: other } = await stack.admin<{ project_id: string }>('/admin/projects', { organization_id, name: 'Other project' });
    const otherOwner = caller(stack.url, (await stack.issue('bridge_session', { project_id: other })).token);
    const otherMind = (await readyMind(otherOwner, 'Sandbox other project')).mind_id;
    const agent = await stack.createAgent();
    const attached = await otherOwner('POST', `/v1/minds/${otherMind}/attachments`, {
      body: { operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId: agent.id }, permissions: ['minds.agent_data.read'], expiresAt: Date.now() + 3_600_000 },
    });
    expect(attached.status).toBe(200);
    const search = (token: string) => caller(stack.url, token)('POST', `/v1/minds/agent/search?mind=${otherMind}`, { body: { text: 'anything' } });

    const boundElsewhere = await stack.issue('agent_credential', { agent_id: agent.id }); // the default project
    expect(codeOf(await search(boundElsewhere.token))).toMatchObject({ status: 403, code: 'INVALID_AGENT_CAPABILITY' });
    const boundHere = await stack.issue('agent_credential', { agent_id: agent.id, project_id: other });
    expect((await search(boundHere.token)).status).toBe(200);
    const unbound = await stack.issue('agent_credential', { agent_id: agent.id, organization_id });
    expect(unbound.project_id).toBeNull();
    expect((await search(unbound.token)).status).toBe(200);
  });
});

describe('DECISIONS "Stopping a stopped Mind, resuming a running one" (States and transitions: "POST .../stop | accepted with matching `expected_generation` | 202 returned")', () => {
  it('a stop of a stopped Mind with its generation is 202 and raises the generation; the Mind stays stopped', async () => {
    const mind = await readyMind(owner, 'Sandbox stopped twice');
    const stop = (generation: number) => owner('POST', `/v1/minds/services/${mind.mind_id}/stop`, { body: { expected_generation: generation }, headers: { 'idempotency-key': randomUUID() } });
    expect((await stop(mind.desired_generation)).status).toBe(202);
    const again = await stop(mind.desired_generation + 1);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ desired_state: 'stopped', desired_generation: mind.desired_generation + 2 });
    // A resume of a running Mind alike.
    const running = await readyMind(owner, 'Sandbox resumed while running');
    const resumed = await owner('POST', `/v1/minds/services/${running.mind_id}/resume`, { body: { expected_generation: running.desired_generation }, headers: { 'idempotency-key': randomUUID() } });
    expect(resumed.status).toBe(202);
    expect(resumed.body).toMatchObject({ desired_state: 'running', desired_generation: running.desired_generation + 1 });
  });
});

describe('DECISIONS "Replays" (Idempotency-Key: "The same key with the same request replays the first response"; Rules 1 and 2)', () => {
  it('a stop refused for its generation does not use up its key: corrected, the same key is accepted, then replayed', async () => {
    const mind = await readyMind(owner, 'Sandbox refused stop');
    const key = randomUUID();
    const stop = (generation: number) => owner('POST', `/v1/minds/services/${mind.mind_id}/stop`, { body: { expected_generation: generation }, headers: { 'idempotency-key': key } });
    expect(codeOf(await stop(mind.desired_generation + 5))).toMatchObject({ status: 409, code: 'MIND_NOT_READY', reason: 'generation_mismatch' });
    const accepted = await stop(mind.desired_generation);
    expect(accepted.status).toBe(202);
    expect((await stop(mind.desired_generation)).body).toEqual(accepted.body);
  });
});

describe('DECISIONS "The gateway usage body" (Gateway routes, usage: "optional query `service` (service name) restricts it to one service")', () => {
  it('a service name the gateway answered nothing for is one entry of zeros; a name outside the pattern is INVALID_QUERY', async () => {
    const answer = await owner('GET', '/v1/usage?service=nosuch');
    expect(answer.status).toBe(200);
    expect(answer.body.services).toEqual([{ service: 'nosuch', requests: 0, client_errors: 0, server_errors: 0, last_request_at: null }]);
    expect(codeOf(await owner('GET', '/v1/usage?service=No_Such'))).toMatchObject({ status: 400, code: 'INVALID_QUERY' });
  });
});

describe('DECISIONS "Duplicate names in a JSON body" (RFC 8259 §4: "Many implementations report the last name/value pair only")', () => {
  it('the last value of a repeated name is the one validated and acted on, through the gateway', async () => {
    const word = `curlew${randomUUID().slice(0, 8)}`;
    const eventId = randomUUID();
    const body = `{"event": {"id": "${eventId}", "content": "first", "timestamp": "2026-11-21T12:00:00Z", "content": "a ${word}"}}`;
    const stored = await rawOwner('POST', `/v1/minds/memory/episodic?mind=${mindId}`, body);
    expect(stored.status).toBe(200);
    expect((await owner('GET', `/v1/minds/memory/episodic/${stored.body.id}?mind=${mindId}`)).body.item.content).toBe(`a ${word}`);
    // The last value is also the one validated: a valid first value does not let an invalid last one through.
    const refused = await rawOwner('POST', `/v1/minds/search?mind=${mindId}`, `{"text": "${word}", "text": ""}`);
    expect(codeOf(refused)).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
    expect((await rawOwner('POST', `/v1/minds/search?mind=${mindId}`, `{"text": "", "text": "${word}"}`)).body.items.map((i: { id: string }) => i.id)).toEqual([eventId]);
  });
});

describe('DECISIONS "`info.version` and the gateway release" (Versioning: "The reference describes gateway release 0.1.12")', () => {
  it('GET /v1/openapi.json serves the contract\'s info.version', async () => {
    const served = await caller(stack.url, null)('GET', '/v1/openapi.json');
    expect(served.body.info.version).toBe(openapiDocument.info.version);
  });
});
