/**
 * CORS, over real HTTP against running gateways: the interface is silent on browsers, so every
 * rule here follows spec/DECISIONS.md, "Browsers: CORS" (and the spec's info.description, which
 * says the same to clients). A browser's preflight and its requests are sent as a browser sends
 * them, with `Origin` and `Access-Control-Request-*`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dereference, operationTable, type OperationFacts } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { allowedOriginsSetting, originAllowed, originPattern } from '../src/cors.js';
import { send, startHarness, UpstreamDouble, type Harness } from './support/harness.js';

const operations = Object.values(operationTable) as OperationFacts[];
const page = 'http://localhost:5173';
const foreign = 'https://evil.example';
const mindId = '3f0c8f9e-2a4b-4c6d-8e1f-0a1b2c3d4e5f';

/** Every header a request of the contract may carry, as the spec names them: what a preflight must allow. */
const requestHeaders = [
  'Authorization',
  'Content-Type',
  ...new Set(operations.flatMap((o) => o.parameters.filter((p) => p.in === 'header').map((p) => p.name))),
];
/** Every response header the document declares: what a page must be able to read. */
const responseHeaders = [
  ...new Set(
    Object.values(dereference(structuredClone(openapiDocument)).paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => Object.values((operation as { responses?: Record<string, { headers?: object }> }).responses ?? {}).flatMap((r) => Object.keys(r.headers ?? {}))),
    ),
  ),
];
const maxAgeSeconds = (openapiDocument.info['x-cors'] as { maxAgeSeconds: number }).maxAgeSeconds;

const listOf = (value: string | string[] | undefined) => String(value ?? '').split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);
const corsHeadersOf = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => name.startsWith('access-control-'));

function expectAllowedAnswer(response: Awaited<ReturnType<typeof send>>, origin = page) {
  expect(response.headers['access-control-allow-origin']).toBe(origin);
  expect(listOf(response.headers.vary)).toContain('origin');
  expect(listOf(response.headers['access-control-expose-headers'])).toEqual(expect.arrayContaining(responseHeaders.map((h) => h.toLowerCase())));
  expect(response.headers['access-control-allow-credentials']).toBeUndefined();
}

const upstream = new UpstreamDouble();
let local: Harness;
let production: Harness;
let configured: Harness;
let session: string;

beforeAll(async () => {
  await upstream.start();
  [local, production, configured] = await Promise.all([
    startHarness({ upstream }),
    startHarness({ upstream, env: { NODE_ENV: 'production' } }),
    startHarness({ upstream, env: { NODE_ENV: 'production', CORS_ALLOWED_ORIGINS: 'https://app.example.com, https://*.preview.example.com' } }),
  ]);
  session = (await local.issue('bridge_session')).token;
}, 60_000);

afterAll(async () => {
  await Promise.all([local?.close(), production?.close(), configured?.close()]);
  await upstream.stop();
});

describe('the contract the policy is derived from', () => {
  it('names the headers a client reads (X-Request-Id, Retry-After, WWW-Authenticate, dpop-nonce) and the ones it sends', () => {
    expect(responseHeaders.map((h) => h.toLowerCase()).sort()).toEqual(['dpop-nonce', 'retry-after', 'www-authenticate', 'x-request-id']);
    expect(requestHeaders.map((h) => h.toLowerCase())).toEqual(expect.arrayContaining(['idempotency-key', 'x-platform-minds-creation-context', 'dpop']));
  });
});

describe('a preflight from an allowed origin (DECISIONS "Browsers: CORS": 204 with the methods, every request header the operations take, and a max age)', () => {
  it.each(['http://localhost:5173', 'http://127.0.0.1:4321', 'http://localhost'])('%s, on the local default', async (origin) => {
    const response = await send(local.gateway.url, 'OPTIONS', '/v1/minds/services', {
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key,x-platform-minds-creation-context' },
    });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(response.headers['access-control-allow-origin']).toBe(origin);
    expect(listOf(response.headers['access-control-allow-methods'])).toEqual(expect.arrayContaining(['get', 'head', 'post', 'put', 'delete']));
    expect(listOf(response.headers['access-control-allow-headers'])).toEqual(expect.arrayContaining(requestHeaders.map((h) => h.toLowerCase())));
    expect(response.headers['access-control-max-age']).toBe(String(maxAgeSeconds));
    expect(listOf(response.headers.vary)).toContain('origin');
    // Bearer credentials only: a page never sends cookies, so credentials are never allowed.
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('every method an operation uses is allowed', async () => {
    const response = await send(local.gateway.url, 'OPTIONS', '/v1/minds/agent/memory/episodic', { headers: { origin: page, 'access-control-request-method': 'POST' } });
    const allowed = listOf(response.headers['access-control-allow-methods']);
    for (const operation of operations) expect(allowed, operation.operationId).toContain(operation.method);
  });

  it('a configured production origin, and a host under a configured wildcard label', async () => {
    for (const origin of ['https://app.example.com', 'https://pr-12.preview.example.com']) {
      const response = await send(configured.gateway.url, 'OPTIONS', '/v1/whoami', { headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
      expect(response.status, origin).toBe(204);
      expect(response.headers['access-control-allow-origin'], origin).toBe(origin);
    }
  });
});

describe('answers to an allowed origin carry Allow-Origin (that origin), Vary: Origin and Expose-Headers, errors included', () => {
  it('a gateway route (GET /v1/status)', async () => {
    const response = await send(local.gateway.url, 'GET', '/v1/status', { headers: { origin: page } });
    expect(response.status).toBe(200);
    expectAllowedAnswer(response);
  });

  it('a 401 of the gateway: the page can read its code, its challenge and its request id', async () => {
    const response = await send(local.gateway.url, 'GET', '/v1/whoami', { headers: { origin: page } });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('BEARER_REQUIRED');
    expect(response.headers['www-authenticate']).toBeDefined();
    expectAllowedAnswer(response);
  });

  it('a forwarded answer and a forwarded error envelope', async () => {
    upstream.behaviour = (call, res) => {
      const body = { error: { code: 'NOT_FOUND', type: 'not_found', message: 'No such Mind.', docs_url: 'http://127.0.0.1:8080/docs/errors.html#NOT_FOUND', request_id: call.headers['x-request-id'] } };
      res.writeHead(404, { 'content-type': 'application/json', 'x-request-id': String(call.headers['x-request-id']) }).end(JSON.stringify(body));
    };
    const response = await send(local.gateway.url, 'GET', `/v1/minds/services/${mindId}`, { headers: { origin: page, authorization: `Bearer ${session}` } });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
    expectAllowedAnswer(response);
  });

  it("the gateway's own refusals before any route: 404 ROUTE_NOT_FOUND, 405 METHOD_NOT_ALLOWED, 400 PATH_INVALID", async () => {
    const answers = await Promise.all([
      send(local.gateway.url, 'GET', '/v1/nowhere', { headers: { origin: page } }),
      send(local.gateway.url, 'PATCH', '/v1/minds/services', { headers: { origin: page } }),
      send(local.gateway.url, 'GET', '/v1/minds/%2e%2e/services', { headers: { origin: page } }),
    ]);
    expect(answers.map((a) => a.body?.error?.code)).toEqual(['ROUTE_NOT_FOUND', 'METHOD_NOT_ALLOWED', 'PATH_INVALID']);
    for (const answer of answers) expectAllowedAnswer(answer);
  });

  it('an OPTIONS without Access-Control-Request-Method is no preflight: answered as before (405), with the headers of an answer', async () => {
    const response = await send(local.gateway.url, 'OPTIONS', '/v1/status', { headers: { origin: page } });
    expect(response.status).toBe(405);
    expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expectAllowedAnswer(response);
    expect(response.headers['access-control-allow-methods']).toBeUndefined();
  });
});

describe('a foreign origin gets no CORS header and the same answer as without Origin', () => {
  it('its preflight is the 405 an OPTIONS always gets', async () => {
    const response = await send(local.gateway.url, 'OPTIONS', '/v1/minds/services', { headers: { origin: foreign, 'access-control-request-method': 'GET' } });
    expect(response.status).toBe(405);
    expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(corsHeadersOf(response.headers)).toEqual([]);
  });

  it.each([
    ['an origin of another host', foreign],
    ['a look-alike of an allowed host', 'http://localhost.evil.example:5173'],
    ['another scheme', 'https://localhost:5173'],
    ['an opaque origin (a sandboxed page or a file)', 'null'],
  ])('%s: its request is answered as one without Origin', async (_label, origin) => {
    const [withOrigin, without] = await Promise.all([send(local.gateway.url, 'GET', '/v1/whoami', { headers: { origin } }), send(local.gateway.url, 'GET', '/v1/whoami')]);
    expect(corsHeadersOf(withOrigin.headers)).toEqual([]);
    expect({ status: withOrigin.status, code: withOrigin.body.error.code }).toEqual({ status: without.status, code: without.body.error.code });
  });
});

describe('a production deployment allows no origin until it is configured', () => {
  it('NODE_ENV=production: the local page gets no CORS header', async () => {
    const preflight = await send(production.gateway.url, 'OPTIONS', '/v1/status', { headers: { origin: page, 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(405);
    const answer = await send(production.gateway.url, 'GET', '/v1/status', { headers: { origin: page } });
    expect(answer.status).toBe(200);
    expect([...corsHeadersOf(preflight.headers), ...corsHeadersOf(answer.headers)]).toEqual([]);
  });

  it('configured: only the listed origins', async () => {
    const answers = await Promise.all([page, 'https://example.com', 'https://preview.example.com'].map((origin) => send(configured.gateway.url, 'GET', '/v1/status', { headers: { origin } })));
    for (const answer of answers) expect(corsHeadersOf(answer.headers)).toEqual([]);
  });
});

describe('CORS_ALLOWED_ORIGINS', () => {
  it('unset: local pages on any port in development, none in production; `none` allows none', () => {
    expect(allowedOriginsSetting({})).toEqual(['http://localhost:*', 'http://127.0.0.1:*']);
    expect(allowedOriginsSetting({ NODE_ENV: 'production' })).toEqual([]);
    expect(allowedOriginsSetting({ CORS_ALLOWED_ORIGINS: 'none' })).toEqual([]);
    expect(allowedOriginsSetting({ NODE_ENV: 'production', CORS_ALLOWED_ORIGINS: 'https://a.example, http://localhost:3000' })).toEqual(['https://a.example', 'http://localhost:3000']);
  });

  it('matches serialized origins exactly: scheme, host and port', () => {
    const allowed = originAllowed(['http://localhost:*', 'https://app.example.com', 'https://*.example.org', 'http://127.0.0.1:3000']);
    expect(['http://localhost', 'http://localhost:1', 'http://localhost:65535', 'https://app.example.com', 'https://a.b.example.org', 'http://127.0.0.1:3000'].filter((o) => !allowed(o))).toEqual([]);
    expect(
      ['https://localhost:5173', 'http://localhost.evil.example', 'http://evil.localhost:80', 'https://app.example.com:8443', 'https://example.org', 'https://a.example.org.evil', 'http://127.0.0.1:3001', 'null', ''].filter((o) => allowed(o)),
    ).toEqual([]);
    expect(originPattern('https://app.example.com:443').test('https://app.example.com')).toBe(true);
  });

  it('refuses an entry that is not an origin when the gateway loads its settings', () => {
    for (const entry of ['*', 'localhost:3000', 'https://app.example.com/path', 'ftp://files.example', 'https://*example.com', 'https://app.*.example.com']) {
      expect(() => allowedOriginsSetting({ CORS_ALLOWED_ORIGINS: entry }), entry).toThrow(/CORS_ALLOWED_ORIGINS/);
    }
  });
});
