/**
 * The gateway's own routes and authentication rules, over real HTTP against a
 * running gateway with its real credential store (PGlite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalog, errorCodes, type ErrorCode } from '@gateway-minds/contract';
import { send, startHarness, UpstreamDouble, type Harness } from './support/harness.js';

let h: Harness;
let base: string;
const upstream = new UpstreamDouble();
const tokens: Record<string, string> = {};

beforeAll(async () => {
  await upstream.start();
  h = await startHarness({ upstream });
  base = h.gateway.url;
  tokens.session = (await h.issue('bridge_session')).token;
  tokens.apiKey = (await h.issue('api_key', { scopes: ['minds:read'] })).token;
  tokens.m2m = (await h.issue('m2m_token')).token;
  tokens.agent = (await h.issue('agent_credential')).token;
  tokens.sessionWithoutUsage = (await h.issue('bridge_session', { scopes: ['minds:read'] })).token;
  tokens.expired = (await h.issue('api_key', { expires_in_seconds: -1 })).token;
  tokens.selectionExpired = (await h.issue('bridge_session', { selection_expires_in_seconds: -1 })).token;
  const revoked = await h.issue('api_key');
  await h.admin(`/admin/credentials/${revoked.id}/revoke`, {});
  tokens.revoked = revoked.token;
}, 60_000);

afterAll(async () => {
  await h?.close();
  await upstream.stop();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function expectEnvelope(response: Awaited<ReturnType<typeof send>>, status: number, code: string) {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(response.body.error.request_id).toBe(response.headers['x-request-id']);
  expect(response.body.error.docs_url).toMatch(new RegExp(`/errors\\.html#${code}$`));
}

describe('GET /v1/status', () => {
  it('needs no credential, probes every registered service, and caches the probe', async () => {
    const first = await send(base, 'GET', '/v1/status');
    expect(first.status).toBe(200);
    expect(first.body.services).toEqual([
      { service: 'iam', state: 'up', http_status: 200, latency_ms: 0 },
      expect.objectContaining({ service: 'minds', state: 'up', http_status: 200 }),
    ]);
    const second = await send(base, 'GET', '/v1/status');
    expect(second.body.checked_at).toBe(first.body.checked_at);
  });
});

describe('GET /v1/whoami', () => {
  it.each([
    ['session', 'bridge_session'],
    ['apiKey', 'api_key'],
    ['m2m', 'm2m_token'],
  ])('reports the principal of a %s', async (name, kind) => {
    const response = await send(base, 'GET', '/v1/whoami', { headers: bearer(tokens[name]!) });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ object: 'principal', kind, org: expect.stringMatching(/^org_/) });
  });

  it.each([
    ['no Authorization header', 401, 'BEARER_REQUIRED', {}],
    ['two Authorization headers', 401, 'BEARER_REQUIRED', { authorization: [`Bearer x`, `Bearer y`] }],
    ['another scheme', 401, 'BEARER_REQUIRED', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['a cookie instead of a bearer', 403, 'AMBIENT_AUTHORITY_NOT_ALLOWED', { cookie: 'session=abc' }],
    ['forwarded authority instead of a bearer', 403, 'AMBIENT_AUTHORITY_NOT_ALLOWED', { 'x-forwarded-authorization': 'Bearer abc' }],
    ['an unknown credential', 401, 'CREDENTIAL_INVALID', { authorization: 'Bearer ak_unknown' }],
  ] as const)('%s → %i %s', async (_name, status, code, headers) => {
    expectEnvelope(await send(base, 'GET', '/v1/whoami', { headers: headers as Record<string, string> }), status, code);
  });

  it.each([
    ['expired', 401, 'CREDENTIAL_INVALID'],
    ['revoked', 401, 'CREDENTIAL_INVALID'],
    ['selectionExpired', 401, 'SELECTION_EXPIRED'],
    ['agent', 401, 'UNAUTHORIZED'],
  ] as const)('a %s credential → %i %s', async (name, status, code) => {
    expectEnvelope(await send(base, 'GET', '/v1/whoami', { headers: bearer(tokens[name]!) }), status, code);
  });

  it('the refusal names the kind without an article to get wrong ("a api_key")', async () => {
    const refused = await send(base, 'GET', '/v1/whoami', { headers: bearer(tokens.agent!) });
    expect(refused.body.error.message).toBe('This operation does not accept agent_credential credentials.');
  });
});

describe('GET /v1/usage', () => {
  it('reports the caller organization per service, filtered by service', async () => {
    await send(base, 'GET', '/v1/whoami', { headers: bearer(tokens.session!) });
    const all = await send(base, 'GET', '/v1/usage?days=7', { headers: bearer(tokens.session!) });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'gateway_usage', days: 7 });
    expect(all.body.services.find((s: { service: string }) => s.service === 'gateway').requests).toBeGreaterThan(0);
    const one = await send(base, 'GET', '/v1/usage?service=minds', { headers: bearer(tokens.session!) });
    expect(one.body.days).toBe(30);
    expect(one.body.services.map((s: { service: string }) => s.service)).toEqual(['minds']);
  });

  it('does not count another organization', async () => {
    const other = await h.admin('/admin/organizations', { name: 'Other' });
    const otherSession = await h.issue('bridge_session', { organization_id: other.organization_id, project_id: other.project_id });
    const response = await send(base, 'GET', '/v1/usage', { headers: bearer(otherSession.token) });
    expect(response.body.organization_id).toBe(other.organization_id);
    // Its own whoami-free history is empty: the first organization's requests are not in it.
    expect(response.body.services).toEqual([]);
  });

  it('refuses an API key with SCOPE_MISSING naming platform.usage.read', async () => {
    const response = await send(base, 'GET', '/v1/usage', { headers: bearer(tokens.apiKey!) });
    expectEnvelope(response, 403, 'SCOPE_MISSING');
    expect(response.body.error.required_scope).toBe('platform.usage.read');
  });

  it('refuses a session without the scope', async () => {
    const response = await send(base, 'GET', '/v1/usage', { headers: bearer(tokens.sessionWithoutUsage!) });
    expectEnvelope(response, 403, 'SCOPE_MISSING');
  });

  it.each([
    ['days=14', '/v1/usage?days=14'],
    ['another parameter', '/v1/usage?days=7&org=org_x'],
    ['a repeated parameter', '/v1/usage?days=7&days=30'],
    ['a non-canonical path', '/v1/usage/'],
  ])('refuses %s with INVALID_ORG_READ', async (_name, path) => {
    expectEnvelope(await send(base, 'GET', path, { headers: bearer(tokens.session!) }), 400, 'INVALID_ORG_READ');
  });

  it('refuses a body with INVALID_ORG_READ', async () => {
    const response = await send(base, 'GET', '/v1/usage', { headers: { ...bearer(tokens.session!), 'content-type': 'application/json' }, body: '{}' });
    expectEnvelope(response, 400, 'INVALID_ORG_READ');
  });
});

describe('GET /v1/errors and GET /v1/openapi.json', () => {
  it('lists the whole catalog with docs anchors, without a credential', async () => {
    const response = await send(base, 'GET', '/v1/errors');
    expect(response.status).toBe(200);
    expect(response.body.errors.map((e: { code: string }) => e.code)).toEqual(errorCodes);
    for (const entry of response.body.errors) expect(entry.docs_url).toMatch(new RegExp(`#${entry.code}$`));
  });

  it("lists every code's reasons with their meanings, as ErrorCode.yaml's x-reasons write them (ErrorCatalogEntry, `reasons`)", async () => {
    const response = await send(base, 'GET', '/v1/errors');
    for (const entry of response.body.errors as { code: ErrorCode; reasons: { reason: string; description: string }[] }[]) {
      expect(Object.fromEntries(entry.reasons.map((r) => [r.reason, r.description])), entry.code).toEqual(errorCatalog[entry.code].reasons);
    }
    const notFound = (response.body.errors as { code: string; reasons: { reason: string }[] }[]).find((e) => e.code === 'NOT_FOUND')!;
    expect(notFound.reasons.map((r) => r.reason)).toContain('not_admitted');
  });

  it('lists the gateway routes and the enabled services operations', async () => {
    const response = await send(base, 'GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.paths['/v1/status'].get.operationId).toBe('gateway_getStatus');
    expect(response.body.paths['/v1/minds/services/{mind_id}'].get.operationId).toBe('minds_getMind');
  });
});

describe('the docs site at /docs', () => {
  it('serves the error catalog page where every docs_url points', async () => {
    const envelope = (await send(base, 'GET', '/v1/whoami')).body;
    const url = new URL(envelope.error.docs_url);
    // This gateway's own site, on the port it really listens on (it was started on port 0).
    expect(url.origin).toBe(new URL(base).origin);
    expect(url.pathname).toBe('/docs/errors.html');
    const page = await send(base, 'GET', url.pathname);
    expect(page.status).toBe(200);
    for (const code of errorCodes) expect(page.text).toContain(`id="${code}"`);
  });

  it('answers what the site does not have, and look-alike paths, as the API does', async () => {
    expectEnvelope(await send(base, 'GET', '/docs/no-such-page.html'), 404, 'ROUTE_NOT_FOUND');
    expectEnvelope(await send(base, 'GET', '/docsearch'), 404, 'ROUTE_NOT_FOUND');
    expect((await send(base, 'GET', '/docs/?x=1')).status).toBe(200);
  });

  it('serves the site with the headers of npm run docs:serve: revalidated by ETag (RFC 9110 §13.1.2), YAML as application/yaml (RFC 9512)', async () => {
    const yaml = await send(base, 'GET', '/docs/openapi.yaml');
    expect(yaml.status).toBe(200);
    expect(yaml.headers['content-type']).toBe('application/yaml; charset=utf-8');
    expect(yaml.headers['cache-control']).toBe('no-cache');
    expect(yaml.headers['x-content-type-options']).toBe('nosniff');
    expect((await send(base, 'GET', '/docs/openapi.yaml', { headers: { 'if-none-match': yaml.headers.etag! } })).status).toBe(304);
  });
});

describe('POST /v1/iam/credentials/verify', () => {
  it('verifies a credential carried in the body', async () => {
    const active = await send(base, 'POST', '/v1/iam/credentials/verify', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ credential: tokens.apiKey }) });
    expect(active.status).toBe(200);
    expect(active.body).toMatchObject({ object: 'credential_verification', active: true, kind: 'api_key' });
    const revoked = await send(base, 'POST', '/v1/iam/credentials/verify', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ credential: tokens.revoked }) });
    expect(revoked.body).toEqual({ object: 'credential_verification', active: false });
  });

  it('refuses a request that also carries an Authorization header', async () => {
    const response = await send(base, 'POST', '/v1/iam/credentials/verify', {
      headers: { 'content-type': 'application/json', ...bearer(tokens.apiKey!) },
      body: JSON.stringify({ credential: tokens.apiKey }),
    });
    expectEnvelope(response, 400, 'NO_AUTHORIZATION_ON_VERIFY');
  });
});

describe('gateway request rules', () => {
  const session = () => bearer(tokens.session!);
  it.each([
    ['a query over 8192 characters', 400, 'QUERY_TOO_LONG', 'GET', `/v1/status?x=${'a'.repeat(8200)}`],
    ['a path over 8192 characters', 400, 'PATH_INVALID', 'GET', `/v1/minds/${'a'.repeat(8200)}`],
    ['a dot segment', 400, 'PATH_INVALID', 'GET', '/v1/minds/../status'],
    ['an encoded dot segment', 400, 'PATH_INVALID', 'GET', '/v1/minds/%2e%2e/status'],
    ['an encoded slash', 400, 'PATH_INVALID', 'GET', '/v1/minds/services%2f123'],
    ['an encoded control character', 400, 'PATH_INVALID', 'GET', '/v1/minds/services/%00'],
    ['an unknown service', 404, 'ROUTE_NOT_FOUND', 'GET', '/v1/nothing/here'],
    ['a query on a route without one', 400, 'QUERY_NOT_ALLOWED', 'GET', '/v1/whoami?x=1'],
  ] as const)('%s → %i %s', async (_name, status, code, method, path) => {
    expectEnvelope(await send(base, method, path, { headers: session() }), status, code);
  });

  // Interface, "Gateway routes": "A path `/v1/<service>/...` not answered by the gateway is forwarded
  // to that service." DECISIONS.md "Paths the contract does not name".
  it('a path of a known service the contract does not name is forwarded without credential or body; only an error envelope comes back', async () => {
    const saved = upstream.behaviour;
    try {
      upstream.calls = [];
      upstream.behaviour = (_call, res) => {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'ROUTE_NOT_FOUND', message: 'from the service' } }));
      };
      const relayed = await send(base, 'POST', '/v1/minds/not-an-operation?x=1', { headers: { ...session(), 'content-type': 'application/json' }, body: '{"a":1}' });
      expect({ status: relayed.status, message: relayed.body.error.message }).toEqual({ status: 404, message: 'from the service' });
      expect(upstream.calls.map((c) => [c.method, c.url, c.headers.authorization, c.headers['x-gateway-assertion'], c.body.length])).toEqual([
        ['POST', '/v1/minds/not-an-operation?x=1', undefined, undefined, 0],
      ]);
      upstream.behaviour = saved; // a 200: the contract promises nothing there but the envelope
      const answered = await send(base, 'GET', '/v1/minds/not-an-operation', { headers: session() });
      expectEnvelope(answered, 502, 'BAD_GATEWAY');
      expect(answered.body.error.reason).toBe('undeclared_status');
    } finally {
      upstream.behaviour = saved;
    }
  });

  it('a known path with another method → 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const response = await send(base, 'DELETE', '/v1/minds/services', { headers: session() });
    expectEnvelope(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.allow).toBe('GET, HEAD, POST'); // RFC 9110 §9.3.2: HEAD wherever GET
    const own = await send(base, 'POST', '/v1/status');
    expectEnvelope(own, 405, 'METHOD_NOT_ALLOWED');
    expect(own.headers.allow).toBe('GET, HEAD');
  });

  it('a non-JSON body → 415 JSON_REQUIRED; a body over 64 KiB → 413 PAYLOAD_TOO_LARGE', async () => {
    const createHeaders = { ...session(), 'idempotency-key': '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f', 'x-platform-minds-creation-context': 'a'.repeat(64) };
    expectEnvelope(await send(base, 'POST', '/v1/minds/services', { headers: { ...createHeaders, 'content-type': 'text/plain' }, body: 'name' }), 415, 'JSON_REQUIRED');
    const big = JSON.stringify({ name: `Sandbox ${'x'.repeat(70_000)}` });
    expectEnvelope(await send(base, 'POST', '/v1/minds/services', { headers: { ...createHeaders, 'content-type': 'application/json' }, body: big }), 413, 'PAYLOAD_TOO_LARGE');
    expectEnvelope(await send(base, 'POST', '/v1/iam/credentials/verify', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ credential: 'x'.repeat(70_000) }) }), 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('rate limits', () => {
  it('refuse with 429 RATE_LIMITED and Retry-After once a credential spends its window', async () => {
    const limited = await startHarness({ env: { RATE_LIMIT_POINTS: '3', RATE_LIMIT_WINDOW_SECONDS: '60' } });
    try {
      const { token } = await limited.issue('api_key');
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 5; i++) {
        last = await send(limited.gateway.url, 'GET', '/v1/whoami', { headers: bearer(token) });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expectEnvelope(last!, 429, 'RATE_LIMITED');
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
      // Another credential has its own window.
      const { token: other } = await limited.issue('api_key');
      expect((await send(limited.gateway.url, 'GET', '/v1/whoami', { headers: bearer(other) })).status).toBe(200);
    } finally {
      await limited.close();
    }
  }, 60_000);
});
