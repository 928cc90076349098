/**
 * The shared request pipeline over real HTTP: every refusal gets the
 * documented code in the contract's envelope, and a response that breaks the
 * contract is caught.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationTable, type OperationFacts } from '@gateway-minds/contract';
import { createLogger, createServiceApp, requestContext, type OperationHandler } from '../src/index.js';
import { issueLocation } from '../src/service-app.js';

const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';
const served: OperationFacts[] = [operationTable.minds_getMind, operationTable.minds_listMinds, operationTable.minds_createMind, operationTable.minds_createAgentGroup];
let reachedHandler = 0;
let nextGroupResponse: unknown;

const handlers: Record<string, OperationHandler> = {
  minds_getMind: (_req, res) => {
    reachedHandler++;
    res.json({ not: 'a mind' }); // breaks the contract on purpose
  },
  minds_listMinds: (_req, res) => {
    reachedHandler++;
    res.json({ schema_version: 'minds.controller.v1', items: [], next_cursor: null, context_sha256: 'a'.repeat(64) });
  },
  minds_createMind: (_req, res) => {
    reachedHandler++;
    res.status(500).end();
  },
  minds_createAgentGroup: (_req, res) => {
    reachedHandler++;
    res.json(nextGroupResponse ?? { operation: requestContext(res).operation.operationId });
  },
};

let server: Server;
let base: string;
let responseCheckCounts: { checked: number; refused: number };

beforeAll(async () => {
  const app = createServiceApp({
    operations: served,
    handlers,
    validateResponses: true,
    docsBaseUrl: 'http://docs.test',
    logger: createLogger('test'),
  });
  responseCheckCounts = app.locals.responseCheck;
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Raw node:http, because fetch refuses a body on GET (and that is one of the cases). */
function call(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
  return new Promise<{ status: number; headers: Headers; body: any }>((resolve, reject) => {
    const headers = { ...init.headers, ...(init.body !== undefined ? { 'content-length': String(Buffer.byteLength(init.body)) } : {}) };
    const req = request(base + path, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
        resolve({ status: res.statusCode!, headers, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const json = { 'content-type': 'application/json' };
const createHeaders = { ...json, 'idempotency-key': '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f', 'x-platform-minds-creation-context': 'a'.repeat(64) };

describe('refusals', () => {
  const cases: [string, number, string, () => ReturnType<typeof call>][] = [
    ['unknown path', 404, 'ROUTE_NOT_FOUND', () => call('GET', '/v1/minds/nothing-here/at/all')],
    ['known path, wrong method', 405, 'METHOD_NOT_ALLOWED', () => call('DELETE', `/v1/minds/services/${mindId}`)],
    ['query on an operation without one', 400, 'QUERY_NOT_ALLOWED', () => call('GET', `/v1/minds/services/${mindId}?x=1`)],
    ['body on a read', 400, 'BODY_NOT_ALLOWED', () => call('GET', `/v1/minds/services/${mindId}`, { body: '{}', headers: json })],
    ['non-JSON body', 415, 'JSON_REQUIRED', () => call('POST', '/v1/minds/services', { body: 'name=Sandbox', headers: { ...createHeaders, 'content-type': 'text/plain' } })],
    ['missing body', 415, 'JSON_REQUIRED', () => call('POST', '/v1/minds/services', { headers: createHeaders })],
    ['malformed JSON', 400, 'INVALID_ARGUMENT', () => call('POST', '/v1/minds/services', { body: '{"name":', headers: createHeaders })],
    ['extra property on a closed body', 400, 'INVALID_ARGUMENT', () => call('POST', '/v1/minds/services', { body: '{"name":"Sandbox","capacity":4}', headers: createHeaders })],
    ['name breaks its pattern', 400, 'INVALID_ARGUMENT', () => call('POST', '/v1/minds/services', { body: '{"name":"Production"}', headers: createHeaders })],
    ['bad path identifier', 400, 'INVALID_IDENTIFIER', () => call('GET', '/v1/minds/services/NOT-A-UUID')],
    ['missing Idempotency-Key', 400, 'IDEMPOTENCY_KEY_REQUIRED', () => call('POST', '/v1/minds/services', { body: '{"name":"Sandbox"}', headers: { ...json, 'x-platform-minds-creation-context': 'a'.repeat(64) } })],
    ['missing creation context', 400, 'CREATION_CONTEXT_OR_KEY_REQUIRED', () => call('POST', '/v1/minds/services', { body: '{"name":"Sandbox"}', headers: { ...json, 'idempotency-key': '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f' } })],
    ['malformed Idempotency-Key', 400, 'BAD_REQUEST', () => call('POST', '/v1/minds/services', { body: '{"name":"Sandbox"}', headers: { ...createHeaders, 'idempotency-key': 'nope' } })],
    ['limit out of bounds', 400, 'INVALID_QUERY', () => call('GET', '/v1/minds/services?limit=0')],
    ['unknown query parameter', 400, 'INVALID_QUERY', () => call('GET', '/v1/minds/services?organization_id=org_x')],
    ['over the UTF-8 byte limit though within the character bound', 400, 'INVALID_ARGUMENT', () => call('POST', '/v1/minds/agent-groups', { body: JSON.stringify({ operationId: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f', name: '😀'.repeat(40) }), headers: json })],
    ['body over 64 KiB', 413, 'PAYLOAD_TOO_LARGE', () => call('POST', '/v1/minds/agent-groups', { body: JSON.stringify({ operationId: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f', name: 'x'.repeat(70_000) }), headers: json })],
  ];

  it.each(cases)('%s → %i %s, before the handler', async (_name, status, code, send) => {
    const before = reachedHandler;
    const { status: got, body, headers } = await send();
    expect({ status: got, code: body.error.code }).toEqual({ status, code });
    expect(body.error.request_id).toBe(headers.get('x-request-id'));
    expect(body.error.docs_url).toBe(`http://docs.test/errors.html#${code}`);
    expect(reachedHandler).toBe(before);
    if (code === 'METHOD_NOT_ALLOWED') expect(headers.get('allow')).toBe('GET, HEAD'); // RFC 9110 §9.3.2
  });
});

// spec/components/schemas/Error.yaml, `errors`: "every violated constraint with the location it applies
// to (`body.event.content`, `query.limit`, `header.idempotency-key`)": a parameter's OpenAPI `in` and
// its name, or `body` and the property path.
describe('each violated constraint names its location as the contract writes it', () => {
  const locations: [string, string, () => ReturnType<typeof call>][] = [
    ['a missing header', 'header.idempotency-key', () => call('POST', '/v1/minds/services', { body: '{"name":"Sandbox"}', headers: { ...json, 'x-platform-minds-creation-context': 'a'.repeat(64) } })],
    ['a malformed header', 'header.idempotency-key', () => call('POST', '/v1/minds/services', { body: '{"name":"Sandbox"}', headers: { ...createHeaders, 'idempotency-key': 'nope' } })],
    ['a path parameter', 'path.mind_id', () => call('GET', '/v1/minds/services/NOT-A-UUID')],
    ['a query parameter out of bounds', 'query.limit', () => call('GET', '/v1/minds/services?limit=0')],
    ['a query parameter the operation does not have', 'query.organization_id', () => call('GET', '/v1/minds/services?organization_id=org_x')],
    ['a body property', 'body.name', () => call('POST', '/v1/minds/services', { body: '{"name":"Production"}', headers: createHeaders })],
    ['a body property over its UTF-8 byte limit', 'body.name', () => call('POST', '/v1/minds/agent-groups', { body: JSON.stringify({ operationId: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f', name: '😀'.repeat(40) }), headers: json })],
  ];

  it.each(locations)('%s: %s', async (_name, location, send) => {
    const { body } = await send();
    expect(body.error.errors?.map((e: { location: string }) => e.location)).toContain(location);
  });

  // DECISIONS.md, "The envelope": "`body` and the property path (`body.event.content`, `body.event.tags[0]`)".
  it("an array index in the body in brackets, as the byte-limit and text checks write it; a JSON pointer's escapes undone", () => {
    expect(issueLocation('/body/event/tags/0')).toBe('body.event.tags[0]');
    expect(issueLocation('/body/a~1b~0c')).toBe('body.a/b~c');
    expect(issueLocation('/body')).toBe('body');
  });
});

describe('pass-through and contract checks', () => {
  it('a valid request reaches its handler bound by operation id', async () => {
    const { status, body } = await call('GET', '/v1/minds/services?limit=5');
    expect(status).toBe(200);
    expect(body.items).toEqual([]);
  });

  it('a multi-byte name within the byte limit is accepted', async () => {
    nextGroupResponse = {
      id: 'agp_01JD3M8Q4Z9X7V6T5S4R3P2N1M', organizationId: 'org_1', ownerId: 'usr_1', organizationGeneration: 1,
      name: '😀'.repeat(32), version: 1, revokedAt: null,
    };
    const { status } = await call('POST', '/v1/minds/agent-groups', { body: JSON.stringify({ operationId: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f', name: '😀'.repeat(32) }), headers: json });
    expect(status).toBe(200);
  });

  it('a response that breaks the contract becomes INTERNAL_ERROR, never a silent pass', async () => {
    const { status, body } = await call('GET', `/v1/minds/services/${mindId}`);
    expect(status).toBe(500);
    expect(body.error).toMatchObject({ code: 'INTERNAL_ERROR', reason: 'response_contract_violation' });
  });

  // DECISIONS.md "Answers that break the contract": caught "on every request", also once the
  // operation's response schema is compiled (compiled-response-validation.ts, on its first answer).
  it('a response that breaks the contract is caught on every request, not only the first', async () => {
    const before = { ...responseCheckCounts };
    for (let i = 0; i < 3; i++) {
      const { status, body } = await call('GET', `/v1/minds/services/${mindId}`);
      expect(status).toBe(500);
      expect(body.error).toMatchObject({ code: 'INTERNAL_ERROR', reason: 'response_contract_violation' });
    }
    expect(responseCheckCounts.checked - before.checked).toBe(3);
    expect(responseCheckCounts.refused - before.refused).toBe(3);
  });

  it('a response within the contract is checked and passes', async () => {
    const before = { ...responseCheckCounts };
    for (let i = 0; i < 3; i++) expect((await call('GET', '/v1/minds/services?limit=5')).status).toBe(200);
    expect(responseCheckCounts.checked - before.checked).toBe(3);
    expect(responseCheckCounts.refused - before.refused).toBe(0);
  });
});
