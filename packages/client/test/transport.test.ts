/**
 * The client's own behaviour, against a real HTTP server whose answers the
 * tests script exactly: the Bearer header, Idempotency-Keys, retries of safe
 * reads (and never of mutations), deadlines and aborts, typed errors,
 * pagination, polling and DPoP proofs with the opt-in nonce round.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtectedHeader, EmbeddedJWK, jwtVerify } from 'jose';
import { createHash } from 'node:crypto';
import {
  APIError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  createClient,
  DEFAULT_RETRY_ON,
  dpopThumbprint,
  generateDpopKey,
  InternalServerError,
  NotFoundError,
  PaginationLoopError,
  PermissionDeniedError,
  RateLimitError,
  WaitFailedError,
  WaitTimeoutError,
  type ClientOptions,
} from '../src/index.js';
import { errorCatalog } from '@gateway-minds/contract';
import { json, mindJson, sendError, TestServer } from './support/server.js';

const server = new TestServer();
const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const getMind = { params: { path: { mind_id: mindId } } };
const resume = { params: { path: { mind_id: mindId } }, body: { expected_generation: 1 } };

beforeAll(() => server.start());
afterAll(() => server.stop());

const client = (options: Partial<ClientOptions> = {}) => createClient({ baseUrl: server.url, token: 'bs_test', ...options });

describe('credentials', () => {
  it('sends exactly one Bearer header, even when the caller adds its own', async () => {
    server.reset((_c, res) => json(res, 200, mindJson()));
    await client().minds_getMind(getMind, { headers: { Authorization: 'Bearer other' } });
    await client().GET('/v1/minds/services/{mind_id}', { params: { path: { mind_id: mindId } }, headers: { authorization: 'Bearer other' } });
    for (const call of server.calls) {
      expect(call.rawHeaderNames.filter((h) => h === 'authorization')).toHaveLength(1);
      expect(call.headers.authorization).toBe('Bearer bs_test');
    }
  });

  it('sends none to routes whose security is empty (verify refuses one)', async () => {
    server.reset((c, res) => json(res, 200, c.path === '/v1/iam/credentials/verify' ? { object: 'credential_verification', active: false } : {}));
    await client().iam_verifyCredential({ body: { credential: 'bs_x' } });
    await client().gateway_getStatus();
    expect(server.calls.map((c) => c.headers.authorization)).toEqual([undefined, undefined]);
  });

  it('takes the token from a function, per request', async () => {
    server.reset((_c, res) => json(res, 200, mindJson()));
    let n = 0;
    const c = client({ token: () => `bs_${++n}` });
    await c.minds_getMind(getMind);
    await c.minds_getMind(getMind);
    expect(server.calls.map((x) => x.headers.authorization)).toEqual(['Bearer bs_1', 'Bearer bs_2']);
  });
});

describe('Idempotency-Key', () => {
  it('is generated once per lifecycle mutation, a fresh UUID per call', async () => {
    server.reset((_c, res) => json(res, 202, mindJson()));
    const first = await client().minds_resumeMind.withResponse(resume);
    await client().minds_stopMind(resume);
    const keys = server.calls.map((c) => c.headers['idempotency-key']);
    expect(keys[0]).toMatch(uuid);
    expect(keys[1]).toMatch(uuid);
    expect(keys[0]).not.toBe(keys[1]);
    expect(first.idempotencyKey).toBe(keys[0]);
  });

  it('uses the caller key, from options or from the header parameter', async () => {
    server.reset((_c, res) => json(res, 202, mindJson()));
    const key = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';
    await client().minds_resumeMind(resume, { idempotencyKey: key });
    await client().minds_createMind({ params: { header: { 'Idempotency-Key': key, 'x-platform-minds-creation-context': 'a'.repeat(64) } }, body: { name: 'Sandbox' } });
    expect(server.calls.map((c) => c.headers['idempotency-key'])).toEqual([key, key]);
  });

  it('is an option only of the operations that take one: on a read it does not compile, and is never sent', async () => {
    server.reset((_c, res) => json(res, 200, mindJson()));
    // minds_getMind takes no Idempotency-Key: the compiler refuses it (transport.test-d.ts).
    await client().minds_getMind(getMind, { idempotencyKey: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f' } as never);
    expect(server.calls[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('is not sent on operations that take none', async () => {
    server.reset((_c, res) => json(res, 200, { id: mindId }));
    await client().minds_insertEpisodicMemory({ params: { query: { mind: mindId } }, body: { event: { id: mindId, content: 'x', timestamp: '2026-01-01T00:00:00Z' } } });
    expect(server.calls[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('a mutation is never retried automatically; the error carries the key to retry with', async () => {
    server.reset((_c, res) => sendError(res, 'UPSTREAM_TIMEOUT', 504, 'gateway_timeout', { reason: 'deadline_exceeded', layer: 'minds' }));
    const c = client({ retry: { maxRetries: 3, initialDelayMs: 1 } });
    const error = await c.minds_resumeMind(resume).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(server.calls).toHaveLength(1);
    const apiError = error as APIError;
    expect(apiError.outcomeUnknown).toBe(true);
    expect(apiError.idempotencyKey).toBe(server.calls[0]!.headers['idempotency-key']);
    server.reset((_c, res) => json(res, 202, mindJson()));
    await c.minds_resumeMind(resume, { idempotencyKey: apiError.idempotencyKey! });
    expect(server.calls[0]!.headers['idempotency-key']).toBe(apiError.idempotencyKey);
  });

  it('a mutation that got no answer is APIConnectionError with outcomeUnknown and its key', async () => {
    const c = createClient({ baseUrl: 'http://127.0.0.1:9', token: 'bs_test', retry: { maxRetries: 2, initialDelayMs: 1 } });
    const error = (await c.minds_stopMind(resume).catch((e: unknown) => e)) as APIConnectionError;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.outcomeUnknown).toBe(true);
    expect(error.idempotencyKey).toMatch(uuid);
  });
});

describe('retries of safe reads (opt-in)', () => {
  it('are off by default', async () => {
    server.reset((_c, res) => sendError(res, 'SERVICE_UNAVAILABLE', 503, 'service_unavailable'));
    await expect(client().minds_getMind(getMind)).rejects.toBeInstanceOf(InternalServerError);
    expect(server.calls).toHaveLength(1);
  });

  it('retry UPSTREAM_TIMEOUT, SERVICE_UNAVAILABLE and RATE_LIMITED, honouring Retry-After', async () => {
    const answers: [string, number, string, Record<string, string>][] = [
      ['UPSTREAM_TIMEOUT', 504, 'gateway_timeout', {}],
      ['SERVICE_UNAVAILABLE', 503, 'service_unavailable', {}],
      ['RATE_LIMITED', 429, 'rate_limited', { 'retry-after': '1' }],
    ];
    const at: number[] = [];
    server.reset((_c, res, i) => {
      at.push(Date.now());
      const answer = answers[i];
      if (answer) sendError(res, answer[0], answer[1], answer[2], answer[0] === 'UPSTREAM_TIMEOUT' ? { reason: 'deadline_exceeded', layer: 'minds' } : {}, answer[3]);
      else json(res, 200, mindJson({ status: 'ready' }));
    });
    const mind = await client({ retry: { maxRetries: 3, initialDelayMs: 10 } }).minds_getMind(getMind);
    expect(mind.status).toBe('ready');
    expect(server.calls).toHaveLength(4);
    expect(at[3]! - at[2]!).toBeGreaterThanOrEqual(950);
  });

  it('retry a read-only POST (search) too, and give up after maxRetries with the last error', async () => {
    server.reset((_c, res) => sendError(res, 'RATE_LIMITED', 429, 'rate_limited', {}, { 'retry-after': '0' }));
    const error = (await client({ retry: { maxRetries: 2 } })
      .minds_searchMemory({ params: { query: { mind: mindId } }, body: { text: 'x' } })
      .catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfter).toBe(0);
    expect(server.calls).toHaveLength(3);
  });

  it('do not wait for a Retry-After beyond maxDelayMs, nor retry other codes', async () => {
    server.reset((_c, res) => sendError(res, 'RATE_LIMITED', 429, 'rate_limited', {}, { 'retry-after': '120' }));
    const started = Date.now();
    const error = (await client({ retry: { maxRetries: 3, maxDelayMs: 1000 } }).minds_getMind(getMind).catch((e: unknown) => e)) as RateLimitError;
    expect(error.retryAfter).toBe(120);
    expect(Date.now() - started).toBeLessThan(3000); // Retry-After was 120 s
    server.reset((_c, res) => sendError(res, 'BAD_GATEWAY', 502, 'bad_gateway', { reason: 'invalid_response', layer: 'minds' }));
    await expect(client({ retry: { maxRetries: 3 } }).minds_getMind(getMind)).rejects.toMatchObject({ code: 'BAD_GATEWAY', layer: 'minds' });
    expect(server.calls).toHaveLength(1);
  });

  // Rules common to Minds operations: owner management "no automatic retry"; agent operations "No attachment, key
  // creation, token exchange, human delegation or automatic retry" (x-automatic-retry: false in the spec).
  it('never retry owner-management or agent reads, whatever maxRetries says', async () => {
    const unavailableOnce = () => server.reset((_c, res, i) => (i === 0 ? sendError(res, 'SERVICE_UNAVAILABLE', 503, 'service_unavailable', {}, { 'retry-after': '0' }) : json(res, 200, {})));
    const c = client({ retry: { maxRetries: 3, initialDelayMs: 1 } });
    const reads: [string, () => Promise<unknown>][] = [
      ['minds_listMindAttachments', () => c.minds_listMindAttachments({ params: { path: { mind_id: mindId } } }, { maxRetries: 3 })],
      ['minds_listAgentGroups', () => c.minds_listAgentGroups()],
      ['minds_agentGetEpisodicMemory', () => c.minds_agentGetEpisodicMemory({ params: { path: { storage_id: mindId }, query: { mind: mindId } } })],
      ['minds_agentSearchMemory', () => c.minds_agentSearchMemory({ params: { query: { mind: mindId } }, body: { text: 'x' } })],
      ['GET /v1/minds/agent-groups (path style)', () => c.GET('/v1/minds/agent-groups')],
    ];
    for (const [name, read] of reads) {
      unavailableOnce();
      await read().catch(() => undefined);
      expect({ name, requests: server.calls.length }).toEqual({ name, requests: 1 });
    }
  });

  // The interface's catalog: SERVICE_DISABLED "retry after Retry-After"; DECISIONS.md, "A database lost during a request":
  // MINDS_UNAVAILABLE "on a read, retry it". By default every code answered with 429, 503 or 504 (RFC 9110 §15.6.4, §15.6.5).
  it('retry by default every code the catalog answers with 429, 503 or 504, SERVICE_DISABLED and MINDS_UNAVAILABLE among them', async () => {
    const temporary = Object.entries(errorCatalog).filter(([, facts]) => [429, 503, 504].includes(facts.status)).map(([code]) => code);
    expect([...DEFAULT_RETRY_ON].sort()).toEqual(temporary.sort());
    expect(DEFAULT_RETRY_ON).toEqual(expect.arrayContaining(['SERVICE_DISABLED', 'MINDS_UNAVAILABLE', 'AUTH_UNAVAILABLE', 'USAGE_UNAVAILABLE', 'UPSTREAM_TIMEOUT', 'RATE_LIMITED']));
    expect(DEFAULT_RETRY_ON).not.toContain('BAD_GATEWAY');
    const answers: [string, Record<string, string>][] = [['SERVICE_DISABLED', { 'retry-after': '0' }], ['MINDS_UNAVAILABLE', {}]];
    server.reset((_c, res, i) => {
      const answer = answers[i];
      if (answer) sendError(res, answer[0], 503, 'service_unavailable', {}, answer[1]);
      else json(res, 200, mindJson({ status: 'ready' }));
    });
    expect((await client({ retry: { maxRetries: 2, initialDelayMs: 1 } }).minds_getMind(getMind)).status).toBe('ready');
    expect(server.calls).toHaveLength(3);
  });

  it('retry per request (maxRetries in the call options), path-style calls included', async () => {
    server.reset((_c, res, i) => (i === 0 ? sendError(res, 'SERVICE_UNAVAILABLE', 503, 'service_unavailable') : json(res, 200, mindJson())));
    await client().minds_getMind(getMind, { maxRetries: 1 });
    expect(server.calls).toHaveLength(2);
    server.reset((_c, res, i) => (i === 0 ? sendError(res, 'SERVICE_UNAVAILABLE', 503, 'service_unavailable') : json(res, 200, mindJson())));
    const { data } = await client({ retry: { maxRetries: 1, initialDelayMs: 1 } }).GET('/v1/minds/services/{mind_id}', { params: { path: { mind_id: mindId } } });
    expect(data?.mind_id).toBe(mindId);
    expect(server.calls).toHaveLength(2);
  });
});

describe('deadlines and aborts', () => {
  it('a slow answer is APIConnectionTimeoutError; a read with retries tries again', async () => {
    server.reset((_c, res, i) => setTimeout(() => json(res, 200, mindJson()), i === 0 ? 400 : 0));
    await expect(client({ timeoutMs: 100 }).minds_getMind(getMind)).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    server.reset((_c, res, i) => setTimeout(() => json(res, 200, mindJson()), i === 0 ? 400 : 0));
    await expect(client({ timeoutMs: 100, retry: { maxRetries: 1, initialDelayMs: 1 } }).minds_getMind(getMind)).resolves.toMatchObject({ mind_id: mindId });
  });

  it("the caller's signal aborts at once with APIUserAbortError, and is never retried", async () => {
    server.reset((_c, res) => setTimeout(() => json(res, 200, mindJson()), 5000));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    await expect(client({ retry: { maxRetries: 3 } }).minds_getMind(getMind, { signal: controller.signal })).rejects.toBeInstanceOf(APIUserAbortError);
    expect(Date.now() - started).toBeLessThan(3000); // the server answers after 5 s
    expect(server.calls).toHaveLength(1);
  });
});

describe('typed errors', () => {
  it('carry the envelope: code, status, type, message, docs_url, request_id, Retry-After', async () => {
    server.reset((_c, res) => sendError(res, 'SCOPE_MISSING', 403, 'forbidden', { required_scope: 'minds:write' }, { 'retry-after': '3' }));
    const error = (await client().minds_getMind(getMind).catch((e: unknown) => e)) as PermissionDeniedError;
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({
      status: 403,
      code: 'SCOPE_MISSING',
      type: 'forbidden',
      docsUrl: 'http://127.0.0.1:8080/docs/errors.html#SCOPE_MISSING',
      requestId: 'req_01JD3M8Q4Z9X7V6T5S4R3P2N1M',
      requiredScope: 'minds:write',
      retryAfter: 3,
      operationId: 'minds_getMind',
      outcomeUnknown: false,
    });
    expect(error.message).toBe('403 SCOPE_MISSING: SCOPE_MISSING happened');
  });

  it.each([
    [400, 'INVALID_ARGUMENT', 'invalid_request', BadRequestError],
    [401, 'CREDENTIAL_INVALID', 'unauthorized', AuthenticationError],
    [404, 'NOT_FOUND', 'not_found', NotFoundError],
    [429, 'RATE_LIMITED', 'rate_limited', RateLimitError],
    [502, 'BAD_GATEWAY', 'bad_gateway', InternalServerError],
  ] as const)('%i %s → %o', async (status, code, type, Class) => {
    server.reset((_c, res) => sendError(res, code, status, type));
    await expect(client().minds_getMind(getMind)).rejects.toBeInstanceOf(Class);
  });

  it('an answer that is not an envelope is still an APIError, without a code', async () => {
    server.reset((_c, res) => res.writeHead(502, { 'content-type': 'text/plain' }).end('proxy exploded'));
    const error = (await client().minds_getMind(getMind).catch((e: unknown) => e)) as APIError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.code).toBeUndefined();
    expect(error.message).toContain('proxy exploded');
  });

  it('outcomeUnknown follows the catalog, and only for mutations', async () => {
    server.reset((_c, res) => sendError(res, 'BILLING_UNAVAILABLE', 503, 'service_unavailable'));
    expect(((await client().minds_createMind({ params: { header: { 'x-platform-minds-creation-context': 'a'.repeat(64) } }, body: { name: 'Sandbox' } }).catch((e: unknown) => e)) as APIError).outcomeUnknown).toBe(true);
    expect(((await client().minds_getMind(getMind).catch((e: unknown) => e)) as APIError).outcomeUnknown).toBe(false);
  });

  it("hasCode() narrows the code, and `reason` to that code's catalog reasons (ErrorCode.yaml, x-reasons)", async () => {
    server.reset((_c, res) => sendError(res, 'NOT_FOUND', 404, 'not_found', { reason: 'not_admitted' }));
    const error = (await client().minds_getMind(getMind).catch((e: unknown) => e)) as APIError;
    expect(error.hasCode('MIND_NOT_READY')).toBe(false);
    if (!error.hasCode('NOT_FOUND')) throw new Error('expected NOT_FOUND');
    const reason: 'mind_not_found' | 'not_admitted' | 'attachment_not_found' | 'group_not_found' | 'member_not_found' | 'agent_not_found' | 'memory_not_found' | undefined = error.reason;
    expect(reason).toBe('not_admitted');
    // `generation_mismatch` is MIND_NOT_READY's reason, never NOT_FOUND's: comparing to it does not compile (transport.test-d.ts).
    expect((error.reason as string | undefined) === 'generation_mismatch').toBe(false);
  });

  it('path-style calls return openapi-fetch results with the envelope as `error`', async () => {
    server.reset((_c, res) => sendError(res, 'NOT_FOUND', 404, 'not_found', { reason: 'mind_not_found' }));
    const { data, error, response } = await client().GET('/v1/minds/services/{mind_id}', { params: { path: { mind_id: mindId } } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(error?.error.code).toBe('NOT_FOUND');
  });
});

describe('pagination', () => {
  const ids = Array.from({ length: 5 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);
  const pageServer = (c: import('./support/server.js').Call, res: import('node:http').ServerResponse) => {
    const limit = Number(c.query.get('limit') ?? 20);
    const after = c.query.get('after');
    const start = after ? ids.indexOf(after) + 1 : 0;
    const items = ids.slice(start, start + limit).map((mind_id) => mindJson({ mind_id }));
    const last = start + limit >= ids.length;
    json(res, 200, { schema_version: 'minds.controller.v1', items, next_cursor: last ? null : items.at(-1)!.mind_id, context_sha256: 'a'.repeat(64) });
  };

  it('iterate() walks every page by next_cursor', async () => {
    server.reset(pageServer);
    const seen: string[] = [];
    for await (const mind of client().minds_listMinds.iterate({ params: { query: { limit: 2 } } })) seen.push(mind.mind_id);
    expect(seen).toEqual(ids);
    expect(server.calls.map((c) => c.query.get('after'))).toEqual([null, ids[1], ids[3]]);
  });

  it('pages() yields whole pages; breaking out stops fetching', async () => {
    server.reset(pageServer);
    for await (const page of client().minds_listMinds.pages({ params: { query: { limit: 2 } } })) {
      expect(page.items).toHaveLength(2);
      break;
    }
    expect(server.calls).toHaveLength(1);
  });

  // spec/DECISIONS.md, "Mind list `limit`": each next_cursor is the last item of its page, so a
  // correct walk never sees one twice. A server that repeats one (a mock answering every request
  // with one fixed example) gets a clear error, not an endless walk.
  const page = (mind_id: string, next_cursor: string | null) => ({ schema_version: 'minds.controller.v1', items: [mindJson({ mind_id })], next_cursor, context_sha256: 'a'.repeat(64) });

  it('iterate() refuses a cursor it already followed: the same page, whatever `after` says', async () => {
    server.reset((_c, res) => json(res, 200, page(ids[0]!, ids[0]!)));
    const seen: string[] = [];
    const error = await (async () => {
      for await (const mind of client().minds_listMinds.iterate()) seen.push(mind.mind_id);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationLoopError);
    expect(error).toMatchObject({ operationId: 'minds_listMinds', cursor: ids[0], pagesRead: 2 });
    expect((error as Error).message).toMatch(/already followed/);
    expect(server.calls.map((c) => c.query.get('after'))).toEqual([null, ids[0]]);
    expect(seen).toEqual([ids[0], ids[0]]);
  });

  it('pages() refuses a cursor cycle (A, B, A) and one equal to the `after` it started from', async () => {
    const cycle = [ids[1]!, ids[2]!, ids[1]!];
    server.reset((_c, res, i) => json(res, 200, page(ids[i % ids.length]!, cycle[i]!)));
    const cycled = await (async () => {
      for await (const _ of client().minds_listMinds.pages()) void _;
    })().catch((e: unknown) => e);
    expect(cycled).toMatchObject({ name: 'PaginationLoopError', cursor: ids[1], pagesRead: 3 });
    expect(server.calls).toHaveLength(3);

    server.reset((_c, res) => json(res, 200, page(ids[4]!, ids[3]!)));
    const repeated = await (async () => {
      for await (const _ of client().minds_listMinds.pages({ params: { query: { after: ids[3] } } })) void _;
    })().catch((e: unknown) => e);
    expect(repeated).toMatchObject({ name: 'PaginationLoopError', cursor: ids[3], pagesRead: 1 });
    expect(server.calls).toHaveLength(1);
  });
});

describe('waitForMind', () => {
  it('polls until the status, reporting progress', async () => {
    const statuses = ['provisioning', 'provisioning', 'ready'];
    server.reset((_c, res, i) => json(res, 200, mindJson({ status: statuses[i] })));
    const progress: string[] = [];
    const mind = await client().waitForMind(mindId, 'ready', { intervalMs: 10, onProgress: (m) => progress.push(m.status) });
    expect(mind.status).toBe('ready');
    expect(progress).toEqual(statuses);
  });

  it('times out with the last value, stops early on failed, and aborts', async () => {
    server.reset((_c, res) => json(res, 200, mindJson()));
    const timeout = (await client().waitForMind(mindId, 'ready', { intervalMs: 20, timeoutMs: 100 }).catch((e: unknown) => e)) as WaitTimeoutError;
    expect(timeout).toBeInstanceOf(WaitTimeoutError);
    expect(timeout.last).toMatchObject({ status: 'provisioning' });

    server.reset((_c, res) => json(res, 200, mindJson({ status: 'failed', error_code: 'HOST_LOST' })));
    const failed = (await client().waitForMind(mindId, 'ready', { intervalMs: 10 }).catch((e: unknown) => e)) as WaitFailedError;
    expect(failed).toBeInstanceOf(WaitFailedError);
    expect(failed.message).toContain('failed (HOST_LOST)');
    expect(server.calls).toHaveLength(1);

    server.reset((_c, res) => json(res, 200, mindJson()));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(client().waitForMind(mindId, ['ready', 'stopped'], { intervalMs: 1000, signal: controller.signal })).rejects.toBeInstanceOf(APIUserAbortError);
  });
});

describe('DPoP', () => {
  const agentPath = `/v1/minds/agent/memory/episodic/${mindId}`;

  async function verify(proof: string) {
    const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt' });
    return { payload, protectedHeader };
  }

  it('signs a fresh proof per request: htm from x-dpop-htm, htu without query, ath, jti, iat', async () => {
    const key = await generateDpopKey();
    server.reset((_c, res) => json(res, 200, { items: [] }));
    const c = client({ token: 'agt_token', dpop: { key } });
    await c.minds_agentGetEpisodicMemory({ params: { path: { storage_id: mindId }, query: { mind: mindId } } });
    await c.minds_agentSearchMemory({ params: { query: { mind: mindId } }, body: { text: 'x' } });
    await c.minds_agentInsertEpisodicMemory({ params: { query: { mind: mindId } }, body: { event: { id: mindId, content: 'x', timestamp: '2026-01-01T00:00:00Z' } } });
    const proofs = await Promise.all(server.calls.map((call) => verify(String(call.headers.dpop))));
    expect(proofs.map((p) => [p.payload.htm, p.payload.htu])).toEqual([
      ['GET', `${server.url}${agentPath}`],
      ['GET', `${server.url}/v1/minds/agent/search`],
      ['POST', `${server.url}/v1/minds/agent/memory/episodic`],
    ]);
    expect(server.calls.map((c) => c.method)).toEqual(['GET', 'POST', 'POST']);
    const ath = createHash('sha256').update('agt_token').digest('base64url');
    for (const { payload, protectedHeader } of proofs) {
      expect(payload.ath).toBe(ath);
      expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(5);
      expect(protectedHeader.alg).toBe('ES256');
    }
    expect(new Set(proofs.map((p) => p.payload.jti)).size).toBe(3);
    const { jwk } = decodeProtectedHeader(String(server.calls[0]!.headers.dpop));
    expect(await dpopThumbprint(key)).toBe(await (await import('jose')).calculateJwkThumbprint(jwk!));
  });

  it('sends no proof on other operations', async () => {
    const key = await generateDpopKey();
    server.reset((_c, res) => json(res, 200, mindJson()));
    await client({ dpop: { key } }).minds_getMind(getMind);
    expect(server.calls[0]!.headers.dpop).toBeUndefined();
    expect(server.calls[0]!.headers.authorization).toBe('Bearer bs_test');
  });

  // RFC 9449 §7.1: "the DPoP-bound access token is sent using the Authorization request header
  // field ... using an authentication scheme of DPoP"; `scheme: 'Bearer'` keeps the interface's form.
  it('sends the token in the DPoP scheme beside a proof (RFC 9449 §7.1), or Bearer when asked', async () => {
    const key = await generateDpopKey();
    server.reset((_c, res) => json(res, 200, { item: null }));
    const read = { params: { path: { storage_id: mindId }, query: { mind: mindId } } };
    await client({ token: 'agt_token', dpop: { key } }).minds_agentGetEpisodicMemory(read);
    await client({ token: 'agt_token', dpop: { key, scheme: 'Bearer' } }).minds_agentGetEpisodicMemory(read);
    await client({ token: 'agt_token' }).minds_agentGetEpisodicMemory(read);
    expect(server.calls.map((c) => [c.headers.authorization, c.headers.dpop !== undefined])).toEqual([
      ['DPoP agt_token', true],
      ['Bearer agt_token', true],
      ['Bearer agt_token', false],
    ]);
  });

  const nonceServer = (nonce: string, always = false) => (c: import('./support/server.js').Call, res: import('node:http').ServerResponse) => {
    const proof = decodeProtectedHeader(String(c.headers.dpop)) && JSON.parse(Buffer.from(String(c.headers.dpop).split('.')[1]!, 'base64url').toString());
    if (always || proof.nonce !== nonce) return sendError(res, 'DPOP_NONCE_REQUIRED', 401, 'unauthorized', {}, { 'dpop-nonce': nonce });
    json(res, 200, { id: mindId });
  };
  const insert = { params: { query: { mind: mindId } }, body: { event: { id: mindId, content: 'x', timestamp: '2026-01-01T00:00:00Z' } } };

  it('on DPOP_NONCE_REQUIRED, does not sign again unless the caller opted in', async () => {
    const key = await generateDpopKey();
    server.reset(nonceServer('nonce-1'));
    const error = (await client({ token: 'agt_t', dpop: { key } }).minds_agentInsertEpisodicMemory(insert).catch((e: unknown) => e)) as AuthenticationError;
    expect(error.code).toBe('DPOP_NONCE_REQUIRED');
    expect(server.calls).toHaveLength(1);
  });

  it('with retryWithNonce, signs again once with the dpop-nonce value, and uses it from then on', async () => {
    const key = await generateDpopKey();
    server.reset(nonceServer('nonce-2'));
    const c = client({ token: 'agt_t', dpop: { key, retryWithNonce: true } });
    await expect(c.minds_agentInsertEpisodicMemory(insert)).resolves.toEqual({ id: mindId });
    expect(server.calls).toHaveLength(2);
    const second = (await verify(String(server.calls[1]!.headers.dpop))).payload;
    expect(second.nonce).toBe('nonce-2');
    await c.minds_agentInsertEpisodicMemory(insert);
    expect(server.calls).toHaveLength(3);

    server.reset(nonceServer('nonce-3', true));
    await expect(c.minds_agentInsertEpisodicMemory(insert)).rejects.toMatchObject({ code: 'DPOP_NONCE_REQUIRED' });
    expect(server.calls).toHaveLength(2);
  });
});
