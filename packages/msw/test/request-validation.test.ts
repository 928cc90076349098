/**
 * `createHandlers({ validateRequests: true })`: a request the contract refuses gets the error the
 * real stack answers (spec/DECISIONS.md, "Which code for a validation failure"), in the envelope
 * the operation declares, with `errors[]` locations as the servers write them (DECISIONS, "The
 * envelope"); off by default (DECISIONS, "MSW request validation"). The generated hostile
 * requests judge the same handlers in scripts/conformance/test/msw-request-validation.test.ts.
 */
import { createClient } from '@gateway-minds/client';
import { errorDocsUrl, operationPath } from '@gateway-minds/contract';
import { getResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { createHandlers } from '../src/index.js';
import { recordingFetch, type Exchange } from '@gateway-minds/contract-judge/scenario';
import { specProblems } from '@gateway-minds/contract-judge/spec-check';

const baseUrl = 'http://gateway.test';
const validating = createHandlers({ baseUrl, validateRequests: true });
const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';
const session = { authorization: 'Bearer bs_any' };

async function exchange(request: Request, handlers = validating): Promise<Exchange> {
  const log: Exchange[] = [];
  await recordingFetch(log, async (r) => (await getResponse(handlers, r))!)(request);
  return log[0]!;
}

/** The answer's problems against the contract, and the servers' request-id rule (X-Request-Id is error.request_id). */
function problems(answer: Exchange): string[] {
  const body = answer.body as { error?: { request_id?: string } };
  return [...specProblems(answer), ...(answer.headers['x-request-id'] === body.error?.request_id ? [] : ['X-Request-Id differs from error.request_id'])];
}

describe('request validation (opt-in)', () => {
  it('off by default: a placeholder id still gets the selected example', async () => {
    const answer = await exchange(new Request(`${baseUrl}/v1/minds/services/mind-1`, { headers: session }), createHandlers({ baseUrl }));
    expect(answer.status).toBe(200);
  });

  it('a path identifier that is not one is INVALID_IDENTIFIER at path.<name>, with the docs anchor of its code', async () => {
    const answer = await exchange(new Request(`${baseUrl}/v1/minds/services/mind-1`, { headers: session }));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'INVALID_IDENTIFIER', docs_url: errorDocsUrl('http://127.0.0.1:8080/docs', 'INVALID_IDENTIFIER') } });
    expect((answer.body as { error: { errors: { location: string }[] } }).error.errors.map((e) => e.location)).toContain('path.mind_id');
    expect(problems(answer)).toEqual([]);
  });

  it("a missing Idempotency-Key is the header's own x-missing-code, IDEMPOTENCY_KEY_REQUIRED, at header.idempotency-key", async () => {
    const path = operationPath('minds_stopMind', { mind_id: mindId });
    const answer = await exchange(new Request(baseUrl + path, { method: 'POST', headers: { ...session, 'content-type': 'application/json' }, body: JSON.stringify({ expected_generation: 1 }) }));
    expect(answer.body).toMatchObject({ error: { code: 'IDEMPOTENCY_KEY_REQUIRED', errors: [{ location: 'header.idempotency-key' }] } });
    expect(problems(answer)).toEqual([]);
  });

  it('an unknown body field is INVALID_ARGUMENT at its body path', async () => {
    const path = operationPath('minds_insertEpisodicMemory', { mind: mindId });
    const event = { event_id: 'evt-1', occurred_at: '2026-11-24T10:00:00Z', kind: 'note', content: 'x', colour: 'red' };
    const answer = await exchange(new Request(baseUrl + path, { method: 'POST', headers: { ...session, 'content-type': 'application/json' }, body: JSON.stringify({ event }) }));
    expect(answer.status).toBe(400);
    const locations = (answer.body as { error: { code: string; errors: { location: string }[] } }).error.errors.map((e) => e.location);
    expect((answer.body as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENT');
    expect(locations).toEqual(expect.arrayContaining(['body.event.colour']));
    expect(problems(answer)).toEqual([]);
  });

  it('a body that is not JSON is JSON_REQUIRED (415), a query on an operation that takes none QUERY_NOT_ALLOWED', async () => {
    const create = await exchange(new Request(`${baseUrl}/v1/minds/agent-groups`, { method: 'POST', headers: { ...session, 'content-type': 'text/plain' }, body: 'x' }));
    expect([create.status, (create.body as { error: { code: string } }).error.code]).toEqual([415, 'JSON_REQUIRED']);
    const whoami = await exchange(new Request(`${baseUrl}/v1/whoami?verbose=1`, { headers: session }));
    expect([whoami.status, (whoami.body as { error: { code: string } }).error.code]).toEqual([400, 'QUERY_NOT_ALLOWED']);
    expect([...problems(create), ...problems(whoami)]).toEqual([]);
  });

  it('the credential comes first (DECISIONS, "Order of checks"): without one, an invalid request gets the 401 example', async () => {
    const answer = await exchange(new Request(`${baseUrl}/v1/minds/services/mind-1`));
    expect(answer.status).toBe(401);
  });

  it('the typed client, which sends only what the contract accepts, is never refused', async () => {
    const client = createClient({ baseUrl, token: 'bs_any', fetch: (request: Request) => getResponse(validating, request).then((r) => r!) });
    const { context_sha256 } = await client.minds_listMinds();
    const mind = await client.minds_createMind({ params: { header: { 'x-platform-minds-creation-context': context_sha256 } }, body: { name: 'Sandbox demo' } });
    expect(mind.mind_id).toMatch(/^[0-9a-f-]{36}$/);
    await client.minds_stopMind({ params: { path: { mind_id: mind.mind_id } }, body: { expected_generation: mind.desired_generation } });
  });
});
