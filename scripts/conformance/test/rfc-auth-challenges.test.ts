/**
 * HTTP authentication as the RFCs say, judged from outside through the real
 * gateway and Minds service (gateway with DPOP_REQUIRE_NONCE, as a resource
 * server that demands nonces, RFC 9449 §9):
 *
 * - an off-the-shelf RFC 9449 client interoperates: oauth4webapi
 *   (`protectedResourceRequest` with its `DPoP` handle) inserts and reads with
 *   the `DPoP` authorization scheme, an Ed25519 key signing as `Ed25519`, and
 *   answers the `use_dpop_nonce` challenge by itself; the `dpop` package signs
 *   the search's proof (htm GET for a POST, as the interface says) and the
 *   explicit nonce retry;
 * - every 401 carries a well-formed `WWW-Authenticate` (RFC 9110 §11.6.1,
 *   §15.5.2), Bearer per RFC 6750 §3, DPoP per RFC 9449 §7.1.
 *
 * spec/DECISIONS.md, "WWW-Authenticate on every 401" and "The DPoP
 * authorization scheme and Ed25519", says which challenge each code carries.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as dpop from 'dpop';
import { decodeProtectedHeader } from 'jose';
import * as oauth from 'oauth4webapi';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { parseChallenges, type Challenge } from '../src/challenges.js';
import { caller, readyMind, type Call } from '../src/http.js';

let stack: Stack;
let session: Call;
let mindId: string;
let agentId: string;
/** Bound to an Ed25519 key: signed by oauth4webapi and by `dpop`, both naming the algorithm `Ed25519`. */
let edKey: dpop.KeyPair;
let edToken: string;
/** Bound to a P-256 key (ES256), sent the interface's way: `Authorization: Bearer`. */
let esKey: dpop.KeyPair;
let esToken: string;
/** The event the agent inserts; read and searched afterwards. */
const eventId = randomUUID();
let storageId: string;

const REALM = 'gateway-minds';
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const agentUrl = (path: string) => new URL(`${stack.url}${path}?mind=${mindId}`);
/** `htu`: the URL without query or fragment (RFC 9449 §4.2). */
const htuOf = (url: URL) => `${url.origin}${url.pathname}`;

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { DPOP_REQUIRE_NONCE: 'true' } });
  session = caller(stack.url, (await stack.issue('bridge_session')).token);
  mindId = (await readyMind(session, 'Sandbox rfc 9449')).mind_id;
  agentId = (await stack.createAgent()).id;
  const attached = await session('POST', `/v1/minds/${mindId}/attachments`, {
    body: { operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId }, permissions: ['minds.agent_data.read', 'minds.agent_data.write'], expiresAt: Date.now() + 3_600_000 },
  });
  expect(attached.status).toBe(200);
  [edKey, esKey] = await Promise.all([dpop.generateKeyPair('Ed25519'), dpop.generateKeyPair('ES256')]);
  edToken = (await stack.issue('agent_token', { agent_id: agentId, dpop_jkt: await dpop.calculateThumbprint(edKey.publicKey) })).token;
  esToken = (await stack.issue('agent_token', { agent_id: agentId, dpop_jkt: await dpop.calculateThumbprint(esKey.publicKey) })).token;
});
afterAll(async () => {
  await stack?.close();
});

/** oauth4webapi's own reading of a refusal: a WWWAuthenticateChallengeError with the parsed challenges. */
async function refusal(send: Promise<Response>): Promise<{ status: number; challenges: oauth.WWWAuthenticateChallenge[]; code: string; nonce: string | null; nonceError: boolean }> {
  const error = await send.then(
    (response) => {
      throw new Error(`expected a challenge, got ${response.status}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  const challengeError = error as oauth.WWWAuthenticateChallengeError;
  // The same header read by the strict grammar check too.
  parseChallenges(challengeError.response.headers.get('www-authenticate'));
  return {
    status: challengeError.status,
    challenges: challengeError.cause,
    code: ((await challengeError.response.json()) as { error: { code: string } }).error.code,
    nonce: challengeError.response.headers.get('dpop-nonce'),
    nonceError: oauth.isDPoPNonceError(challengeError),
  };
}

describe('an off-the-shelf RFC 9449 client (oauth4webapi, dpop)', () => {
  // oauth4webapi keeps the server's nonce per origin, as RFC 9449 §8.2 and §9 ask of a client.
  let handle: oauth.DPoPHandle;

  it('insert: DPoP scheme (RFC 9449 §7.1), Ed25519 proof; the use_dpop_nonce challenge (§9, §7.1) answered by one retry', async () => {
    handle = oauth.DPoP({}, edKey);
    const url = agentUrl('/v1/minds/agent/memory/episodic');
    const body = JSON.stringify({ event: { id: eventId, content: 'Interop note: the orchids want rain water', timestamp: '2026-11-24T02:00:00Z' } });
    const insert = () => oauth.protectedResourceRequest(edToken, 'POST', url, new Headers({ 'content-type': 'application/json' }), body, { DPoP: handle, ...insecure });

    // RFC 9449 §9: "Resource servers use an HTTP 401 ... with an accompanying WWW-Authenticate: DPoP value and DPoP-Nonce value".
    const first = await refusal(insert());
    expect(first).toMatchObject({ status: 401, code: 'DPOP_NONCE_REQUIRED', nonceError: true });
    expect(first.nonce).toMatch(/^[\x21-\x7e]{16,128}$/);
    expect(first.challenges).toEqual([{ scheme: 'dpop', parameters: { realm: REALM, error: 'use_dpop_nonce', algs: expect.stringMatching(/(^| )Ed25519( |$)/) } }]);

    // The interface: "a nonce is never retried automatically" by our client; here the caller retries once, explicitly.
    const second = await insert();
    expect(second.status).toBe(200);
    storageId = ((await second.json()) as { id: string }).id;
    expect(storageId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('read: GET with the DPoP scheme and the nonce the client kept (RFC 9449 §7.1, §9)', async () => {
    const response = await oauth.protectedResourceRequest(edToken, 'GET', agentUrl(`/v1/minds/agent/memory/episodic/${storageId}`), new Headers(), null, { DPoP: handle, ...insecure });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { item: { id: string; content: string } }).item).toMatchObject({ id: eventId, content: 'Interop note: the orchids want rain water' });
  });

  it('search: a POST whose proof names htm GET (interface: "GET for read and search"), signed by `dpop` as Ed25519; nonce challenge, then the retry', async () => {
    const url = agentUrl('/v1/minds/agent/search');
    const send = async (nonce?: string) => {
      const proof = await dpop.generateProof(edKey, htuOf(url), 'GET', nonce, edToken);
      expect(decodeProtectedHeader(proof).alg).toBe('Ed25519'); // the fully specified name, not EdDSA
      return fetch(url, { method: 'POST', headers: { authorization: `DPoP ${edToken}`, dpop: proof, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'orchids rain', limit: 5 }) });
    };
    const first = await send();
    expect(first.status).toBe(401);
    expect(parseChallenges(first.headers.get('www-authenticate'))).toEqual([{ scheme: 'DPoP', params: { realm: REALM, error: 'use_dpop_nonce', algs: expect.any(String) } }]);
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toBeTruthy();
    const second = await send(nonce!);
    expect(second.status).toBe(200);
    expect(((await second.json()) as { items: { id: string }[] }).items.map((i) => i.id)).toContain(eventId);
  });

  it('the Bearer scheme still carries a bound token with its proof (interface: "Authorization: Bearer"; DECISIONS "The DPoP authorization scheme and Ed25519")', async () => {
    const url = agentUrl(`/v1/minds/agent/memory/episodic/${storageId}`);
    const first = await fetch(url, { headers: { authorization: `Bearer ${esToken}`, dpop: await dpop.generateProof(esKey, htuOf(url), 'GET', undefined, esToken) } });
    expect(first.status).toBe(401);
    const nonce = first.headers.get('dpop-nonce')!;
    const second = await fetch(url, { headers: { authorization: `Bearer ${esToken}`, dpop: await dpop.generateProof(esKey, htuOf(url), 'GET', nonce, esToken) } });
    expect(second.status).toBe(200);
  });

  // RFC 9449 §4.3, check 8: "the htm claim matches the HTTP method of the current request";
  // DECISIONS.md "HEAD" (answered as the GET it mirrors) and "DPoP proof target".
  it('HEAD of the read: a proof with htm=HEAD (the request\'s own method) is accepted, as is the GET it is answered as; another method is not', async () => {
    const url = agentUrl(`/v1/minds/agent/memory/episodic/${storageId}`);
    const head = async (htm: string, nonce?: string) =>
      fetch(url, { method: 'HEAD', headers: { authorization: `DPoP ${edToken}`, dpop: await dpop.generateProof(edKey, htuOf(url), htm, nonce, edToken) } });
    const nonce = (await head('HEAD')).headers.get('dpop-nonce')!;
    expect(nonce).toBeTruthy();
    const get = await fetch(url, { headers: { authorization: `DPoP ${edToken}`, dpop: await dpop.generateProof(edKey, htuOf(url), 'GET', nonce, edToken) } });
    expect(get.status).toBe(200);
    for (const htm of ['HEAD', 'GET']) {
      const answer = await head(htm, nonce);
      expect({ htm, status: answer.status }).toEqual({ htm, status: 200 });
      expect(answer.headers.get('content-length')).toBe(get.headers.get('content-length'));
      expect(await answer.text()).toBe('');
    }
    const refused = await head('POST', nonce);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_dpop_proof"/);
  });

  it('a refused proof answers a DPoP challenge with error="invalid_dpop_proof" and algs (RFC 9449 §7.1)', async () => {
    const url = agentUrl(`/v1/minds/agent/memory/episodic/${storageId}`);
    const nonce = (await fetch(url, { headers: { authorization: `DPoP ${edToken}`, dpop: await dpop.generateProof(edKey, htuOf(url), 'GET', undefined, edToken) } })).headers.get('dpop-nonce')!;
    const cases: [string, Record<string, string>][] = [
      ['DPOP_REQUIRED', { authorization: `DPoP ${edToken}` }],
      ['DPOP_INVALID', { authorization: `DPoP ${edToken}`, dpop: 'not-a-jws' }],
      ['INVALID_DPOP', { authorization: `DPoP ${edToken}`, dpop: await dpop.generateProof(edKey, htuOf(url), 'POST', nonce, edToken) }],
      // A proof by another key than the one the token is bound to.
      ['INVALID_DPOP', { authorization: `DPoP ${edToken}`, dpop: await dpop.generateProof(esKey, htuOf(url), 'GET', nonce, edToken) }],
    ];
    for (const [code, headers] of cases) {
      const answer = await fetch(url, { headers });
      expect({ status: answer.status, code: ((await answer.json()) as { error: { code: string } }).error.code }).toEqual({ status: 401, code });
      const challenges = parseChallenges(answer.headers.get('www-authenticate'));
      expect(challenges).toEqual([{ scheme: 'DPoP', params: { realm: REALM, error: 'invalid_dpop_proof', algs: expect.any(String) } }]);
      expect(challenges[0]!.params.algs!.split(' ')).toEqual(expect.arrayContaining(['ES256', 'EdDSA', 'Ed25519', 'PS256', 'RS256']));
    }
  });

  it('oauth4webapi reads an invalid token as an invalid_token challenge of either scheme (RFC 6750 §3.1, RFC 9449 §7.1)', async () => {
    const unknown = `agt_${'0'.repeat(40)}`;
    const answer = await refusal(oauth.protectedResourceRequest(unknown, 'GET', agentUrl(`/v1/minds/agent/memory/episodic/${storageId}`), new Headers(), null, { DPoP: oauth.DPoP({}, edKey), ...insecure }));
    expect(answer).toMatchObject({ status: 401, code: 'INVALID_AGENT_TOKEN', nonceError: false });
    expect(answer.challenges.map((c) => [c.scheme, c.parameters.error])).toEqual([
      ['bearer', 'invalid_token'],
      ['dpop', 'invalid_token'],
    ]);
  });
});

describe('every 401 carries WWW-Authenticate (RFC 9110 §15.5.2, §11.6.1)', () => {
  const get = (path: string, headers: Record<string, string> = {}) => fetch(stack.url + path, { headers });
  const challengesOf = async (answer: Response): Promise<Challenge[]> => {
    expect(answer.status).toBe(401);
    return parseChallenges(answer.headers.get('www-authenticate'));
  };

  it('no credential: a Bearer challenge with realm and no error (RFC 6750 §3.1: "SHOULD NOT include an error code")', async () => {
    expect(await challengesOf(await get('/v1/whoami'))).toEqual([{ scheme: 'Bearer', params: { realm: REALM } }]);
  });

  it('a refused credential: error="invalid_token" (RFC 6750 §3.1)', async () => {
    expect(await challengesOf(await get('/v1/whoami', { authorization: 'Bearer ak_neverIssued0000000000000000' }))).toEqual([
      { scheme: 'Bearer', params: { realm: REALM, error: 'invalid_token' } },
    ]);
    // A credential the operation does not take (UNAUTHORIZED): a session on an agent operation.
    const sessionToken = (await stack.issue('bridge_session')).token;
    const refused = await challengesOf(await get(`/v1/minds/agent/memory/episodic/${randomUUID()}?mind=${mindId}`, { authorization: `Bearer ${sessionToken}` }));
    expect(refused.map((c) => [c.scheme, c.params.error])).toEqual([
      ['Bearer', 'invalid_token'],
      ['DPoP', 'invalid_token'],
    ]);
  });

  it('agent operations offer both schemes, DPoP with algs (RFC 9449 §7.1, §7.2)', async () => {
    const challenges = await challengesOf(await get(`/v1/minds/agent/memory/episodic/${randomUUID()}?mind=${mindId}`));
    expect(challenges).toEqual([
      { scheme: 'Bearer', params: { realm: REALM } },
      { scheme: 'DPoP', params: { realm: REALM, algs: expect.stringContaining('Ed25519') } },
    ]);
  });

  it('the DPoP scheme carries only sender-constrained agent tokens: anything else there is BEARER_REQUIRED (DECISIONS "The DPoP authorization scheme and Ed25519")', async () => {
    const sessionToken = (await stack.issue('bridge_session')).token;
    const answer = await get('/v1/whoami', { authorization: `DPoP ${sessionToken}` });
    expect(((await answer.clone().json()) as { error: { code: string } }).error.code).toBe('BEARER_REQUIRED');
    expect(await challengesOf(answer)).toEqual([{ scheme: 'Bearer', params: { realm: REALM } }]);
  });

  it("the admin listener's 401s carry one too (outside the contract: its own realm)", async () => {
    const admin = await fetch(`${stack.adminUrl}/admin/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(await challengesOf(admin)).toEqual([{ scheme: 'Bearer', params: { realm: 'gateway-minds-admin' } }]);
    const internal = await fetch(`${stack.adminUrl}/internal/iam/agents/${agentId}`);
    expect((await challengesOf(internal)).map((c) => c.scheme)).toEqual(['Gateway-Assertion']);
  });

  it('the grammar check refuses what a sender may not generate (so it can fail)', () => {
    for (const bad of ['', 'Bearer realm=gateway', 'Bearer realm="a", realm="b"', 'Bearer realm="a",, DPoP', 'Bearer  realm="a"x', '"Bearer"', 'Bearer realm="unterminated']) {
      expect(() => parseChallenges(bad), bad).toThrow();
    }
    expect(parseChallenges('Basic, Bearer realm="a", error=invalid_token, Negotiate abc==, DPoP algs="ES256 Ed25519"')).toEqual([
      { scheme: 'Basic', params: {} },
      { scheme: 'Bearer', params: { realm: 'a', error: 'invalid_token' } },
      { scheme: 'Negotiate', params: {}, token68: 'abc==' },
      { scheme: 'DPoP', params: { algs: 'ES256 Ed25519' } },
    ]);
  });
});
