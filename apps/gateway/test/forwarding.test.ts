/**
 * Forwarding /v1/<service>/... to a registered upstream: the signed assertion,
 * what travels and what does not, credential rules applied from the contract,
 * DPoP for sender-constrained agent tokens, and every relay failure mode.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { gatewayLimits } from '@gateway-minds/contract';
import { assertionKeyFiles, readAssertionKey, verifyAssertion } from '@gateway-minds/service-kit';
import { send, startHarness, UpstreamDouble, type Harness } from './support/harness.js';

const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';
const upstream = new UpstreamDouble();
let h: Harness;
let base: string;
let session: { token: string; organization_id: string; project_id: string | null };

const mindJson = { schema_version: 'minds.controller.v1', mind_id: mindId };
const answerJson = (status: number, body: unknown) => (_call: unknown, res: import('node:http').ServerResponse) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

beforeAll(async () => {
  await upstream.start();
  h = await startHarness({ upstream });
  base = h.gateway.url;
  session = await h.issue('bridge_session');
}, 60_000);
afterAll(async () => {
  await h?.close();
  await upstream.stop();
});
beforeEach(() => {
  upstream.calls = [];
  upstream.behaviour = answerJson(200, mindJson);
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('forwarding', () => {
  it('relays the upstream answer and vouches for the caller with a signed assertion', async () => {
    const response = await send(base, 'GET', `/v1/minds/services/${mindId}`, {
      headers: { ...bearer(session.token), cookie: 'ambient=1', 'x-gateway-assertion': 'forged', 'x-organization-id': 'org_evil' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(mindJson);
    const [call] = upstream.calls;
    expect(call!.url).toBe(`/v1/minds/services/${mindId}`);
    expect(call!.headers.authorization).toBeUndefined();
    expect(call!.headers.cookie).toBeUndefined();
    expect(call!.headers['x-organization-id']).toBeUndefined();
    expect(call!.headers['x-request-id']).toBe(response.headers['x-request-id']);
    const publicKey = await readAssertionKey(assertionKeyFiles(h.dataDir).publicKeyFile);
    const { principal } = await verifyAssertion(publicKey!, String(call!.headers['x-gateway-assertion']), 'minds');
    expect(principal).toMatchObject({ kind: 'bridge_session', org: session.organization_id, project: session.project_id, sandbox: 'sbx_default' });
  });

  it('forwards the body byte for byte and only the operation header parameters', async () => {
    upstream.behaviour = answerJson(202, mindJson);
    const body = '{"name":"Sandbox  ü\\u00e9 1.0","plan":"pro"}';
    const response = await send(base, 'POST', '/v1/minds/services?', {
      headers: {
        ...bearer(session.token),
        'content-type': 'application/json',
        'idempotency-key': '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f',
        'x-platform-minds-creation-context': 'a'.repeat(64),
        'x-unrelated': 'dropped',
      },
      body,
    });
    expect(response.status).toBe(202);
    const [call] = upstream.calls;
    expect(call!.body.toString('utf8')).toBe(body);
    expect(call!.headers['idempotency-key']).toBe('6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f');
    expect(call!.headers['x-platform-minds-creation-context']).toBe('a'.repeat(64));
    expect(call!.headers['x-unrelated']).toBeUndefined();
  });

  it('keeps upstream connections alive across requests', async () => {
    for (let i = 0; i < 5; i++) expect((await send(base, 'GET', `/v1/minds/services/${mindId}`, { headers: bearer(session.token) })).status).toBe(200);
    expect(new Set(upstream.calls.map((c) => c.remotePort)).size).toBe(1);
  });

  it('passes an upstream error envelope through unchanged', async () => {
    const envelope = { error: { code: 'NOT_FOUND', type: 'not_found', message: 'No such Mind.', docs_url: 'http://x/errors.html#NOT_FOUND', request_id: 'req_01JD3M8Q4Z9X7V6T5S4R3P2N1M', reason: 'mind_not_found' } };
    upstream.behaviour = answerJson(404, envelope);
    const response = await send(base, 'GET', `/v1/minds/services/${mindId}`, { headers: bearer(session.token) });
    expect(response.status).toBe(404);
    expect(response.body).toEqual(envelope);
  });

  // RFC 9110 §15.5.2: a forwarded service 401 keeps the service's own challenge (DECISIONS "WWW-Authenticate on every 401").
  it("passes a service 401's WWW-Authenticate back", async () => {
    const envelope = { error: { code: 'UNAUTHENTICATED', type: 'unauthorized', message: 'No assertion.', docs_url: 'http://x/errors.html#UNAUTHENTICATED', request_id: 'req_01JD3M8Q4Z9X7V6T5S4R3P2N1M' } };
    const challenge = 'Bearer realm="gateway-minds", error="invalid_token"';
    upstream.behaviour = (_call, res) => res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': challenge }).end(JSON.stringify(envelope));
    const response = await send(base, 'GET', `/v1/minds/services/${mindId}`, { headers: bearer(session.token) });
    expect({ status: response.status, challenge: response.headers['www-authenticate'] }).toEqual({ status: 401, challenge });
  });
});

describe('relay failures', () => {
  function expectRelay(response: Awaited<ReturnType<typeof send>>, status: number, code: string) {
    expect({ status: response.status, code: response.body?.error?.code, layer: response.body?.error?.layer }).toEqual({ status, code, layer: 'minds' });
    expect(response.body.error.reason).toMatch(/^[a-z_]+$/);
  }
  const get = () => send(base, 'GET', `/v1/minds/services/${mindId}`, { headers: bearer(session.token) });

  it('garbage → 502 BAD_GATEWAY', async () => {
    upstream.behaviour = (_c, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
    expectRelay(await get(), 502, 'BAD_GATEWAY');
    upstream.behaviour = (_c, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"truncated":');
    expectRelay(await get(), 502, 'BAD_GATEWAY');
  });

  it('a status the contract does not declare, a redirect, or an error outside the envelope → 502 BAD_GATEWAY', async () => {
    upstream.behaviour = answerJson(418, { teapot: true });
    expectRelay(await get(), 502, 'BAD_GATEWAY');
    upstream.behaviour = (_c, res) => res.writeHead(302, { location: 'http://elsewhere.invalid/' }).end();
    expectRelay(await get(), 502, 'BAD_GATEWAY');
    upstream.behaviour = answerJson(404, { message: 'not an envelope' });
    expectRelay(await get(), 502, 'BAD_GATEWAY');
  });

  it('an answer over the relay limit, declared or streamed → 502 BAD_GATEWAY (response_too_large), and the next request is relayed', async () => {
    const limit = gatewayLimits.maxUpstreamResponseBytes;
    const tooLarge = JSON.stringify({ padding: 'x'.repeat(limit) });
    upstream.behaviour = (_c, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(tooLarge) }).end(tooLarge);
    let response = await get();
    expectRelay(response, 502, 'BAD_GATEWAY');
    expect(response.body.error.reason).toBe('response_too_large');
    // Chunked, with no length announced: refused once the bytes read pass the limit.
    upstream.behaviour = (_c, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let at = 0; at < tooLarge.length; at += 64 * 1024) res.write(tooLarge.slice(at, at + 64 * 1024));
      res.end();
    };
    response = await get();
    expectRelay(response, 502, 'BAD_GATEWAY');
    expect(response.body.error.reason).toBe('response_too_large');
    // Exactly at the limit is relayed.
    const atLimit = JSON.stringify({ padding: 'x'.repeat(limit - '{"padding":""}'.length) });
    upstream.behaviour = (_c, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(atLimit);
    response = await get();
    expect(response.status).toBe(200);
    expect(response.body.padding.length).toBe(atLimit.length - '{"padding":""}'.length);
  });

  it('slower than the deadline → 504 UPSTREAM_TIMEOUT', async () => {
    upstream.behaviour = (_c, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 4000);
    expectRelay(await get(), 504, 'UPSTREAM_TIMEOUT');
  });

  // DECISIONS "Relay failures"; interface Errors: "Retry rules: `UPSTREAM_TIMEOUT` on a read is safe to retry;
  // after a mutation the outcome is unknown". A 502 would say the insert was not stored; it may have been.
  it('a connection cut after the service read the request → 504 UPSTREAM_TIMEOUT (connection_lost_after_send), not sent again', async () => {
    upstream.behaviour = (_c, res) => res.socket!.destroy();
    const response = await send(base, 'POST', `/v1/minds/agent/memory/episodic?mind=${mindId}`, {
      headers: { ...bearer((await h.issue('agent_token')).token), 'content-type': 'application/json' },
      body: JSON.stringify({ event_id: '9b2f3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', content: 'remember this' }),
    });
    expectRelay(response, 504, 'UPSTREAM_TIMEOUT');
    expect(response.body.error.reason).toBe('connection_lost_after_send');
    expect(upstream.calls).toHaveLength(1);
  });

  it('stopped → 502 UPSTREAM_UNREACHABLE (connection_refused), the status route reports it down, and both recover when it returns', async () => {
    const port = upstream.port;
    await upstream.stop();
    h.gateway.probe.invalidate();
    const refused = await get();
    expectRelay(refused, 502, 'UPSTREAM_UNREACHABLE');
    expect(refused.body.error.reason).toBe('connection_refused');
    const status = await send(base, 'GET', '/v1/status');
    expect(status.body.services.find((s: { service: string }) => s.service === 'minds')).toMatchObject({ state: 'down', http_status: 502 });
    await upstream.start(port);
    h.gateway.probe.invalidate();
    expect((await get()).status).toBe(200);
    const recovered = await send(base, 'GET', '/v1/status');
    expect(recovered.body.services.find((s: { service: string }) => s.service === 'minds').state).toBe('up');
  });

  it('disabled → 503 SERVICE_DISABLED with Retry-After, nothing forwarded, and left out of openapi.json', async () => {
    const disabled = await startHarness({ upstream, env: { MINDS_ENABLED: 'false' } });
    try {
      const { token } = await disabled.issue('bridge_session');
      const response = await send(disabled.gateway.url, 'GET', `/v1/minds/services/${mindId}`, { headers: bearer(token) });
      expect({ status: response.status, code: response.body.error.code }).toEqual({ status: 503, code: 'SERVICE_DISABLED' });
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
      expect(upstream.calls).toEqual([]);
      const listing = await send(disabled.gateway.url, 'GET', '/v1/openapi.json');
      expect(Object.keys(listing.body.paths).some((p) => p.startsWith('/v1/minds'))).toBe(false);
      const status = await send(disabled.gateway.url, 'GET', '/v1/status');
      expect(status.body.services.find((s: { service: string }) => s.service === 'minds')).toMatchObject({ state: 'disabled', http_status: 503 });
    } finally {
      await disabled.close();
    }
  }, 60_000);

  // spec/DECISIONS.md, "Assertion keys and their rotation": the service answers its probe, but could not be used.
  it('no signing key → 503 FLOCKS_SIGNING_KEY_MISSING (signing_key_missing), nothing forwarded, and the service degraded in /v1/status', async () => {
    const keyless = await startHarness({ upstream, withKeys: false });
    try {
      const { token } = await keyless.issue('bridge_session');
      const response = await send(keyless.gateway.url, 'GET', `/v1/minds/services/${mindId}`, { headers: bearer(token) });
      expect({ status: response.status, code: response.body.error.code, reason: response.body.error.reason }).toEqual({ status: 503, code: 'FLOCKS_SIGNING_KEY_MISSING', reason: 'signing_key_missing' });
      expect(upstream.calls).toEqual([]);
      const status = await send(keyless.gateway.url, 'GET', '/v1/status');
      expect(status.body.services.find((s: { service: string }) => s.service === 'minds')).toMatchObject({ state: 'degraded', http_status: 503, reason: 'signing_key_missing' });
    } finally {
      await keyless.close();
    }
  }, 60_000);
});

describe('credential rules from the contract, enforced before forwarding', () => {
  const cases: [string, () => Promise<Record<string, unknown>>, string, string, number, string][] = [
    ['an API key on a Minds operation', () => h.issue('api_key'), 'GET', '/v1/minds/services', 403, 'HUMAN_SANDBOX_SELECTION_REQUIRED'],
    ['an m2m token on a memory operation', () => h.issue('m2m_token'), 'GET', `/v1/minds/memory/episodic/${mindId}?mind=${mindId}`, 403, 'HUMAN_SANDBOX_SELECTION_REQUIRED'],
    ['a session without a Sandbox selection', () => h.issue('bridge_session', { sandbox: false }), 'GET', '/v1/minds/services', 403, 'HUMAN_SANDBOX_SELECTION_REQUIRED'],
    ['a session without minds:write on a write', () => h.issue('bridge_session', { scopes: ['minds:read'] }), 'POST', `/v1/minds/services/${mindId}/stop`, 403, 'SCOPE_MISSING'],
    ['a derived session on owner management', () => h.issue('bridge_session', { original_session: false }), 'GET', '/v1/minds/agent-groups', 401, 'ORIGINAL_CONSOLE_REQUIRED'],
    ['a session on an agent operation', () => h.issue('bridge_session'), 'GET', `/v1/minds/agent/memory/episodic/${mindId}?mind=${mindId}`, 401, 'UNAUTHORIZED'],
    ['an agent credential on a human operation', () => h.issue('agent_credential'), 'GET', '/v1/minds/services', 403, 'HUMAN_SANDBOX_SELECTION_REQUIRED'],
    ['an unknown agent credential on an agent operation', async () => ({ token: 'mak_acr_unknown' }), 'GET', `/v1/minds/agent/memory/episodic/${mindId}?mind=${mindId}`, 401, 'INVALID_AGENT_CREDENTIAL'],
    ['an expired agent token on an agent operation', () => h.issue('agent_token', { expires_in_seconds: -1 }), 'GET', `/v1/minds/agent/memory/episodic/${mindId}?mind=${mindId}`, 401, 'INVALID_AGENT_TOKEN'],
  ];
  it.each(cases.map(([name, issue, method, path, status, code]) => ({ name, issue, method, path, status, code })))(
    '$name → $status $code, nothing forwarded',
    async ({ issue, method, path, status, code }) => {
      const { token } = (await issue()) as { token: string };
      const response = await send(base, method, path, { headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: method === 'POST' ? '{"expected_generation":1}' : undefined });
      expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
      if (code === 'SCOPE_MISSING') expect(response.body.error.required_scope).toBe('minds:write');
      expect(upstream.calls).toEqual([]);
    },
  );
});

describe('DPoP for sender-constrained agent tokens', () => {
  const path = `/v1/minds/agent/memory/episodic/${mindId}`;
  let keys: Awaited<ReturnType<typeof generateKeyPair>>;
  let publicJwk: Awaited<ReturnType<typeof exportJWK>>;
  let token: string;

  beforeAll(async () => {
    keys = await generateKeyPair('ES256');
    publicJwk = await exportJWK(keys.publicKey);
    token = (await h.issue('agent_token', { dpop_jkt: await calculateJwkThumbprint(publicJwk) })).token;
  });

  async function proof(claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
    return new SignJWT({
      htm: 'GET',
      htu: `${base}${path}`,
      jti: randomUUID(),
      ath: createHash('sha256').update(token).digest('base64url'),
      ...claims,
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk, ...header })
      .setIssuedAt(typeof claims.iat === 'number' ? claims.iat : undefined)
      .sign(keys.privateKey);
  }
  const call = (dpop?: string) => send(base, 'GET', `${path}?mind=${mindId}`, { headers: { ...bearer(token), ...(dpop ? { dpop } : {}) } });
  const code = async (dpop?: string) => (await call(dpop)).body?.error?.code ?? (await Promise.resolve('forwarded'));

  it('is forwarded with a valid proof, and a replay of that proof is refused', async () => {
    const valid = await proof();
    expect((await call(valid)).status).toBe(200);
    expect(upstream.calls).toHaveLength(1);
    expect(await code(valid)).toBe('INVALID_DPOP');
  });

  it('names each broken part with its code', async () => {
    const other = await generateKeyPair('ES256');
    const foreign = await new SignJWT({ htm: 'GET', htu: `${base}${path}`, jti: randomUUID(), ath: createHash('sha256').update(token).digest('base64url') })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(other.publicKey) })
      .setIssuedAt()
      .sign(other.privateKey);
    expect(await code()).toBe('DPOP_REQUIRED');
    expect(await code('not-a-jws')).toBe('DPOP_INVALID');
    expect(await code(await proof({ htm: 'POST' }))).toBe('INVALID_DPOP');
    expect(await code(await proof({ htu: `${base}/v1/minds/agent/search` }))).toBe('INVALID_DPOP');
    expect(await code(await proof({ ath: 'wrong' }))).toBe('INVALID_DPOP');
    expect(await code(await proof({ iat: Math.floor(Date.now() / 1000) - 3600 }))).toBe('INVALID_DPOP');
    expect(await code(await proof({}, { typ: 'jwt' }))).toBe('INVALID_DPOP');
    expect(await code(foreign)).toBe('INVALID_DPOP');
    expect(upstream.calls).toEqual([]);
  });

  it('demands a nonce when configured, and accepts the proof signed with it', async () => {
    const strict = await startHarness({ upstream, env: { DPOP_REQUIRE_NONCE: 'true' } });
    try {
      const bound = (await strict.issue('agent_token', { dpop_jkt: await calculateJwkThumbprint(publicJwk) })).token;
      const sign = (nonce?: string) =>
        new SignJWT({ htm: 'GET', htu: `${strict.gateway.url}${path}`, jti: randomUUID(), ath: createHash('sha256').update(bound).digest('base64url'), ...(nonce ? { nonce } : {}) })
          .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk })
          .setIssuedAt()
          .sign(keys.privateKey);
      const first = await send(strict.gateway.url, 'GET', `${path}?mind=${mindId}`, { headers: { ...bearer(bound), dpop: await sign() } });
      expect({ status: first.status, code: first.body.error.code }).toEqual({ status: 401, code: 'DPOP_NONCE_REQUIRED' });
      const nonce = String(first.headers['dpop-nonce']);
      expect(nonce.length).toBeGreaterThan(16);
      const stale = await send(strict.gateway.url, 'GET', `${path}?mind=${mindId}`, { headers: { ...bearer(bound), dpop: await sign('stale-nonce-value-000000') } });
      expect(stale.body.error.code).toBe('DPOP_NONCE_REQUIRED');
      const second = await send(strict.gateway.url, 'GET', `${path}?mind=${mindId}`, { headers: { ...bearer(bound), dpop: await sign(nonce) } });
      expect(second.status).toBe(200);
    } finally {
      await strict.close();
    }
  }, 60_000);
});
