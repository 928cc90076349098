/**
 * The client against the real stack (gateway + Minds service, see
 * @gateway-minds/testkit): the whole scenario through operation-id methods,
 * the error envelope as typed errors, idempotent replay, and DPoP proofs the
 * real gateway accepts, with and without a nonce demand.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { createClient, dpopThumbprint, generateDpopKey, NotFoundError, PermissionDeniedError, BadRequestError, type GatewayMindsClient, type MindStatus } from '@gateway-minds/client';

let stack: Stack;
let client: GatewayMindsClient;

beforeAll(async () => {
  stack = await startStack();
  client = createClient({ baseUrl: stack.url, token: (await stack.issue('bridge_session')).token });
});
afterAll(() => stack?.close());

describe('the scenario, through the client', () => {
  it('create a Mind, poll it to ready, memory, attach an agent, agent memory with DPoP, stop and resume, usage', async () => {
    expect(await client.gateway_getPrincipal()).toMatchObject({ object: 'principal', kind: 'bridge_session' });

    const { context_sha256 } = await client.minds_listMinds();
    const created = await client.minds_createMind.withResponse({ params: { header: { 'x-platform-minds-creation-context': context_sha256 } }, body: { name: 'Sandbox e2e' } });
    expect(created.response.status).toBe(202);
    expect(created.data.status).toBe('provisioning');
    const mindId = created.data.mind_id;

    // The same key replays the first answer instead of creating a second Mind.
    const replay = await client.minds_createMind({ params: { header: { 'x-platform-minds-creation-context': context_sha256 } }, body: { name: 'Sandbox e2e' } }, { idempotencyKey: created.idempotencyKey! });
    expect(replay.mind_id).toBe(mindId);

    const seen: MindStatus[] = [];
    const ready = await client.waitForMind(mindId, 'ready', { intervalMs: 100, timeoutMs: 45_000, onProgress: (m) => seen.push(m.status) });
    expect(ready.status).toBe('ready');
    expect(seen.at(-1)).toBe('ready');

    const eventId = randomUUID();
    const { id: storageId } = await client.minds_insertEpisodicMemory({
      params: { query: { mind: mindId } },
      body: { event: { id: eventId, content: 'The launch moved to Thursday.', timestamp: new Date().toISOString(), tags: ['launch'] } },
    });
    await client.minds_updateEpisodicMemory({ params: { path: { storage_id: storageId }, query: { mind: mindId } }, body: { event_id: eventId, content: 'The launch moved to Friday.' } });
    const read = await client.minds_getEpisodicMemory({ params: { path: { storage_id: storageId }, query: { mind: mindId } } });
    expect(read.item).toMatchObject({ id: eventId, content: 'The launch moved to Friday.', tags: ['launch'] });
    const found = await client.minds_searchMemory({ params: { query: { mind: mindId } }, body: { text: 'launch Friday' } });
    expect(found.items.map((i) => i.id)).toContain(eventId);

    const agent = await stack.createAgent();
    const attachment = await client.minds_attachMind({
      params: { path: { mind_id: mindId } },
      body: {
        operationId: randomUUID(),
        expectedVersion: 0,
        subject: { kind: 'agent', agentId: agent.id },
        permissions: ['minds.agent_data.read', 'minds.agent_data.write'],
        expiresAt: Date.now() + 86_400_000,
      },
    });
    expect(attachment).toMatchObject({ mindId, revokedAt: null, subject: { kind: 'agent', agentId: agent.id } });
    expect((await client.minds_listMindAttachments({ params: { path: { mind_id: mindId } } })).attachments).toHaveLength(1);

    // The agent, with a sender-constrained token: a fresh DPoP proof per request that the real gateway verifies.
    const key = await generateDpopKey();
    const agentToken = await stack.issue('agent_token', { agent_id: agent.id, dpop_jkt: await dpopThumbprint(key) });
    const agentClient = createClient({ baseUrl: stack.url, token: agentToken.token, dpop: { key } });
    const agentEvent = randomUUID();
    const inserted = await agentClient.minds_agentInsertEpisodicMemory({
      params: { query: { mind: mindId } },
      body: { event: { id: agentEvent, content: 'Agent note: the build is green.', timestamp: new Date().toISOString() } },
    });
    const agentRead = await agentClient.minds_agentGetEpisodicMemory({ params: { path: { storage_id: inserted.id }, query: { mind: mindId } } });
    expect(agentRead.item).toMatchObject({ id: agentEvent });
    const agentFound = await agentClient.minds_agentSearchMemory({ params: { query: { mind: mindId } }, body: { text: 'build green' } });
    expect(agentFound.items.map((i) => i.id)).toContain(agentEvent);
    // Without the proof, the bound token is refused.
    const unbound = createClient({ baseUrl: stack.url, token: agentToken.token });
    await expect(unbound.minds_agentSearchMemory({ params: { query: { mind: mindId } }, body: { text: 'x' } })).rejects.toMatchObject({ code: 'DPOP_REQUIRED', status: 401 });

    // Detaching (a DELETE with a JSON body) leaves a tombstone, and the agent loses access.
    const detached = await client.minds_detachMind({ params: { path: { mind_id: mindId, attachment_id: attachment.id } }, body: { operationId: randomUUID(), expectedVersion: attachment.version } });
    expect(detached.revokedAt).not.toBeNull();
    await expect(agentClient.minds_agentSearchMemory({ params: { query: { mind: mindId } }, body: { text: 'build' } })).rejects.toMatchObject({ code: 'INVALID_AGENT_CAPABILITY', status: 403 });

    const stopping = await client.minds_stopMind({ params: { path: { mind_id: mindId } }, body: { expected_generation: ready.desired_generation } });
    expect(stopping.desired_state).toBe('stopped');
    const stopped = await client.waitForMind(mindId, 'stopped', { intervalMs: 100, timeoutMs: 45_000 });
    const resumed = await client.minds_resumeMind({ params: { path: { mind_id: mindId } }, body: { expected_generation: stopped.desired_generation, wake_reason: 'manual' } });
    expect(resumed.desired_state).toBe('running');
    await client.waitForMind(mindId, 'ready', { intervalMs: 100, timeoutMs: 45_000 });

    const now = Date.now();
    const usage = await client.minds_getUsage({ params: { query: { from: new Date(now - 3_600_000).toISOString(), to: new Date(now + 60_000).toISOString() } } });
    expect(usage.minds.map((m) => m.mind_id)).toContain(mindId);
    const gatewayUsage = await client.gateway_getUsage({ params: { query: { days: 7 } } });
    expect(gatewayUsage.services.find((s) => s.service === 'minds')?.requests).toBeGreaterThan(0);

    const all: string[] = [];
    for await (const mind of client.minds_listMinds.iterate({ params: { query: { limit: 1 } } })) all.push(mind.mind_id);
    expect(all).toEqual([mindId]);
  }, 120_000);
});

describe('errors from the real stack', () => {
  it('an API key on the usage route: PermissionDeniedError SCOPE_MISSING with the envelope fields', async () => {
    const apiKey = createClient({ baseUrl: stack.url, token: (await stack.issue('api_key')).token });
    const error = (await apiKey.gateway_getUsage().catch((e: unknown) => e)) as PermissionDeniedError;
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({ code: 'SCOPE_MISSING', status: 403, type: 'forbidden', requiredScope: 'platform.usage.read' });
    expect(error.docsUrl).toMatch(/errors\.html#SCOPE_MISSING$/);
    expect(error.requestId).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('an unknown Mind is NotFoundError; a bad body is BadRequestError listing each violation', async () => {
    await expect(client.minds_getMind({ params: { path: { mind_id: randomUUID() } } })).rejects.toBeInstanceOf(NotFoundError);
    const { context_sha256 } = await client.minds_listMinds();
    const error = (await client
      .minds_createMind({ params: { header: { 'x-platform-minds-creation-context': context_sha256 } }, body: { name: 'Not a sandbox' } })
      .catch((e: unknown) => e)) as BadRequestError;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.errors?.length).toBeGreaterThan(0);
  });

  it('verify carries the credential in its body and no Authorization header', async () => {
    const session = await stack.issue('bridge_session');
    await expect(client.iam_verifyCredential({ body: { credential: session.token } })).resolves.toMatchObject({ active: true, kind: 'bridge_session' });
  });
});

describe('DPoP nonce against the real gateway', () => {
  it('DPOP_NONCE_REQUIRED surfaces unless the caller opted in; with retryWithNonce the signed-again proof passes', async () => {
    const strict = await startStack({ minds: false, gatewayEnv: { DPOP_REQUIRE_NONCE: 'true' } });
    try {
      const key = await generateDpopKey();
      const agent = await strict.createAgent();
      const { token } = await strict.issue('agent_token', { agent_id: agent.id, dpop_jkt: await dpopThumbprint(key) });
      const call = (retryWithNonce: boolean) =>
        createClient({ baseUrl: strict.url, token, dpop: { key, retryWithNonce } }).minds_agentSearchMemory({ params: { query: { mind: randomUUID() } }, body: { text: 'x' } });
      await expect(call(false)).rejects.toMatchObject({ code: 'DPOP_NONCE_REQUIRED' });
      // Past the gateway's DPoP check, the request is forwarded: here to a Minds service that is not running.
      await expect(call(true)).rejects.toMatchObject({ code: 'UPSTREAM_UNREACHABLE', layer: 'minds' });
    } finally {
      await strict.close();
    }
  }, 30_000);
});
