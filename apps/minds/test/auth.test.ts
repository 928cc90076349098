/**
 * Every Minds operation refuses a request that did not come through the
 * gateway, and checks the verified principal against the operation's facts
 * again (defence in depth), whatever the body: the table below is built from
 * the contract's operation table, not retyped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationPath, operationTable, type OperationFacts, type OperationId } from '@gateway-minds/contract';
import { generateAssertionKeys, importAssertionKey, newPrefixedId, newRequestId, signAssertion } from '@gateway-minds/service-kit';
import { admissionSettings, mindsOperations } from '../src/spec.js';
import { agent, apiKey, cleanUp, human, newAgentId, rawCall, startHarness, type Harness } from './support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ controller: { enabled: false } }); // every admission off (the default)
});
afterAll(async () => {
  await h?.close();
  await cleanUp();
});

const examples: Record<string, string> = {
  mind_id: '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b',
  storage_id: '0b7e7a52-4d0b-4a61-9a43-6e8d1c2f3a4b',
  attachment_id: newPrefixedId('mat_'),
  group_id: newPrefixedId('agp_'),
  agent_id: newAgentId(),
};

/** The operation's path with every path parameter, and the Mind query parameter where it has one (the same Mind). */
function pathOf(operation: OperationFacts): string {
  const values: Record<string, string> = { ...examples, mind: examples.mind_id! };
  const params = Object.fromEntries(operation.parameters.filter((p) => p.in !== 'header' && values[p.name] !== undefined).map((p) => [p.name, values[p.name]!]));
  return operationPath(operation.operationId as OperationId, params);
}

const isAgentOperation = (o: OperationFacts) => o.security.some((s) => s.scheme === 'agentCredential');
const agentOperations = mindsOperations.filter(isAgentOperation);

it('serves exactly the 21 Minds operations of the contract', () => {
  expect(mindsOperations).toHaveLength(21);
  expect(agentOperations.map((o) => o.operationId).sort()).toEqual(['minds_agentGetEpisodicMemory', 'minds_agentInsertEpisodicMemory', 'minds_agentSearchMemory']);
});

describe.each(mindsOperations.map((o) => [o.operationId, o] as const))('%s', (_id, operation) => {
  const method = operation.method.toUpperCase();

  it('without an assertion: 401 UNAUTHENTICATED', async () => {
    const reply = await h.call(method, pathOf(operation));
    expect(reply.status).toBe(401);
    expect(reply.body.error).toMatchObject({ code: 'UNAUTHENTICATED', docs_url: 'http://docs.test/errors.html#UNAUTHENTICATED' });
    expect(reply.body.error.request_id).toBe(reply.headers['x-request-id']);
    // RFC 9110 §15.5.2: a 401 carries WWW-Authenticate; the service's own is a Bearer invalid_token
    // challenge, with the DPoP one beside it on agent operations (DECISIONS "WWW-Authenticate on every 401").
    const bearer = 'Bearer realm="gateway-minds", error="invalid_token"';
    expect(reply.headers['www-authenticate']).toBe(isAgentOperation(operation) ? `${bearer}, DPoP realm="gateway-minds", error="invalid_token", algs="ES256 ES384 ES512 EdDSA Ed25519 PS256 PS384 PS512 RS256"` : bearer);
  });

  it('a credential kind the operation does not accept gets its x-credential-refusal code', async () => {
    const wrongKinds = isAgentOperation(operation) ? [human(), apiKey(), { ...apiKey(), kind: 'm2m_token' as const }] : [apiKey(), { ...apiKey(), kind: 'm2m_token' as const }, agent(newAgentId())];
    for (const who of wrongKinds) {
      const reply = await h.call(method, pathOf(operation), { as: who });
      expect(reply.body.error.code, who.kind).toBe(operation.credentialRefusal);
    }
  });

  if (!isAgentOperation(operation)) {
    it('a session without a Sandbox selection: 403 HUMAN_SANDBOX_SELECTION_REQUIRED', async () => {
      const reply = await h.call(method, pathOf(operation), { as: human({ sandbox: null }) });
      expect(reply.status).toBe(403);
      expect(reply.body.error.code).toBe('HUMAN_SANDBOX_SELECTION_REQUIRED');
    });

    const scope = operation.security[0]!.scopes[0]!;
    it(`a session without ${scope}: 403 SCOPE_MISSING with required_scope`, async () => {
      const reply = await h.call(method, pathOf(operation), { as: human({ scopes: ['minds:read', 'minds:write'].filter((s) => s !== scope) }) });
      expect(reply.status).toBe(403);
      expect(reply.body.error).toMatchObject({ code: 'SCOPE_MISSING', required_scope: scope });
    });
  }

  if (operation.requiresOriginalSession) {
    it('a derived session: 401 ORIGINAL_CONSOLE_REQUIRED', async () => {
      const reply = await h.call(method, pathOf(operation), { as: human({ originalSession: false }) });
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('ORIGINAL_CONSOLE_REQUIRED');
    });
  }

  if (operation.admissionSetting) {
    it(`not admitted while ${operation.admissionSetting} is off: 404 NOT_FOUND not_admitted`, async () => {
      const who = isAgentOperation(operation) ? agent(newAgentId()) : human();
      const reply = await h.call(method, pathOf(operation), { as: who });
      expect(reply.status).toBe(404);
      expect(reply.body.error).toMatchObject({ code: 'NOT_FOUND', reason: 'not_admitted' });
      // The message names the setting the spec's x-admission-setting gives, so the refusal says how to admit it.
      expect(reply.body.error.message).toContain(`server setting ${operation.admissionSetting} admits it`);
    });
  }
});

describe('the assertion', () => {
  const path = '/v1/minds/services';

  it('is verified: a forged, tampered, expired or misaddressed one is 401 UNAUTHENTICATED', async () => {
    const who = human();
    const stranger = await generateAssertionKeys();
    const forged = await signAssertion(await importAssertionKey(stranger.privateJwk), who, { audience: 'minds', requestId: newRequestId() });
    const genuine = await h.gateway.sign(who);
    const [header, payload, signature] = genuine.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, principal: { ...who, org: 'org_victim' } })).toString('base64url')}.${signature}`;
    const expired = await h.gateway.sign(who, { ttlSeconds: -60 });
    const misaddressed = await h.gateway.sign(who, { audience: 'billing' });
    for (const assertion of [forged, tampered, expired, misaddressed, 'not-a-jwt']) {
      const reply = await h.call('GET', path, { assertion });
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('UNAUTHENTICATED');
    }
    expect((await h.call('GET', path, { assertion: genuine })).status).toBe(200);
  });

  it('tenancy comes only from it: tenant fields in the query are refused', async () => {
    const reply = await h.call('GET', '/v1/minds/services?organization_id=org_victim', { as: human() });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('INVALID_QUERY');
  });
});

describe('outside the contract', () => {
  it('GET /healthz answers 200 {"status":"ok"} without an assertion', async () => {
    const reply = await rawCall(h.url, 'GET', '/healthz', {});
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('{"status":"ok"}');
  });

  it('an unknown path is ROUTE_NOT_FOUND, a wrong method METHOD_NOT_ALLOWED', async () => {
    expect((await h.call('GET', '/v1/minds/nowhere/at/all', { as: human() })).body.error.code).toBe('ROUTE_NOT_FOUND');
    const wrong = await h.call('DELETE', '/v1/minds/services', { as: human() });
    expect(wrong.status).toBe(405);
    expect(wrong.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('reads its admission setting names from the operation table', () => {
    expect(admissionSettings.sort()).toEqual(
      [...new Set(Object.values(operationTable).map((o: OperationFacts) => o.admissionSetting).filter(Boolean))].sort(),
    );
  });
});
