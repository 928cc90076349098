/**
 * Every operation × every credential situation, through the real gateway:
 * each gives exactly the code the interface and spec/DECISIONS.md call for.
 * The expectations below are written from those documents by operation
 * family, not read from the implementation. The table is printed.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { operationIds, operationTable, type OperationId } from '@gateway-minds/contract';
import { startStack, type Stack, type Topology } from '@gateway-minds/testkit';
import { parseChallenges } from '../../src/challenges.js';
import { rawSend, type Answer } from '../../src/http.js';
import { requestFor } from '../../src/requests.js';

type Family = 'public' | 'verify' | 'whoami' | 'usage' | 'human' | 'owner' | 'agent';

/** Operation families as the interface groups them ("Rules common to Minds operations"). */
function familyOf(operationId: OperationId): Family {
  const { path } = operationTable[operationId];
  if (['gateway_getStatus', 'gateway_listErrors', 'gateway_getOpenApi'].includes(operationId)) return 'public';
  if (operationId === 'iam_verifyCredential') return 'verify';
  if (operationId === 'gateway_getPrincipal') return 'whoami';
  if (operationId === 'gateway_getUsage') return 'usage';
  if (path.startsWith('/v1/minds/agent/')) return 'agent';
  if (path.includes('/attachments') || path.startsWith('/v1/minds/agent-groups')) return 'owner';
  return 'human';
}

/** `pass` = authentication lets it through (what follows is the operation's own answer). */
type Expected = 'pass' | string;
const refuseAll = (code: string): Record<Family, Expected> => ({ public: 'pass', verify: 'pass', whoami: code, usage: code, human: code, owner: code, agent: code });
const withBearer = (code: string): Record<Family, Expected> => ({ ...refuseAll(code), verify: 'NO_AUTHORIZATION_ON_VERIFY' });
const kindRefused = (whoami: Expected): Record<Family, Expected> => ({
  public: 'pass', verify: 'NO_AUTHORIZATION_ON_VERIFY', whoami, usage: 'SCOPE_MISSING', human: 'HUMAN_SANDBOX_SELECTION_REQUIRED', owner: 'HUMAN_SANDBOX_SELECTION_REQUIRED', agent: 'UNAUTHORIZED',
});
const agentKind = (agent: Expected): Record<Family, Expected> => ({ ...kindRefused('UNAUTHORIZED'), agent });

/**
 * Each row names the interface sentences it follows (section: "words"), so that
 * a reader can check it against gateway-minds-interface.md. Sentences every row
 * shares: Authentication 2 "status and errors and openapi need no credential";
 * Authentication 5 "no `Authorization` header may be sent" (verify).
 */
const situations: { name: string; follows: string; expected: Record<Family, Expected> }[] = [
  { name: 'no credential', follows: 'Authentication 1: "Send exactly one `Authorization: Bearer <token>` header"', expected: refuseAll('BEARER_REQUIRED') },
  { name: 'two bearers', follows: 'Authentication 1: "Send exactly one `Authorization: Bearer <token>` header"', expected: withBearer('BEARER_REQUIRED') },
  { name: 'cookie only', follows: 'Authentication 1: "Ambient authority (cookie or forwarded) is refused; an explicit credential is required"', expected: refuseAll('AMBIENT_AUTHORITY_NOT_ALLOWED') },
  { name: 'unknown', follows: 'Errors: CREDENTIAL_INVALID "credential invalid, expired or revoked"', expected: withBearer('CREDENTIAL_INVALID') },
  { name: 'revoked', follows: 'Errors: CREDENTIAL_INVALID "credential invalid, expired or revoked"', expected: withBearer('CREDENTIAL_INVALID') },
  { name: 'expired', follows: 'Errors: CREDENTIAL_INVALID "credential invalid, expired or revoked"', expected: withBearer('CREDENTIAL_INVALID') },
  { name: 'expired selection', follows: 'Authentication 6: "A signed-in organization and project selection can expire (`SELECTION_EXPIRED`)"', expected: withBearer('SELECTION_EXPIRED') },
  {
    name: 'API key',
    follows: 'Authentication 2: "whoami accepts any credential", "an API key there gets 403 `SCOPE_MISSING`"; Rules common to Minds operations: "API keys and machine-to-machine credentials have no Minds producer and are refused" (codes: DECISIONS "Credential refusals on Minds operations")',
    expected: kindRefused('pass'),
  },
  {
    name: 'm2m token',
    follows: 'Authentication 1: "The token is an API key, a machine-to-machine token or a signed-in session"; Rules common to Minds operations: "API keys and machine-to-machine credentials have no Minds producer and are refused" (codes: DECISIONS "Credential refusals on Minds operations")',
    expected: kindRefused('pass'),
  },
  {
    name: 'session',
    follows: 'Rules common to Minds operations: owner management "only the original selected Console human bearer", "Memory, Mind and usage operations: an original human account session with a verified Sandbox selection"; agent operations "an existing `mak_acr` credential or an agent token"',
    expected: { public: 'pass', verify: 'NO_AUTHORIZATION_ON_VERIFY', whoami: 'pass', usage: 'pass', human: 'pass', owner: 'pass', agent: 'UNAUTHORIZED' },
  },
  {
    name: 'session without minds scopes',
    follows: 'Minds lifecycle, plan and profile rule 4: "The resume and stop permission required is the existing Minds update permission; the usage permission is Minds read"; Errors: SCOPE_MISSING "credential lacks scope named in required_scope"',
    expected: { public: 'pass', verify: 'NO_AUTHORIZATION_ON_VERIFY', whoami: 'pass', usage: 'pass', human: 'SCOPE_MISSING', owner: 'SCOPE_MISSING', agent: 'UNAUTHORIZED' },
  },
  {
    name: 'session without usage scope',
    follows: 'Authentication 2: "usage needs a signed-in session holding the platform usage-read scope (`platform.usage.read`)"',
    expected: { public: 'pass', verify: 'NO_AUTHORIZATION_ON_VERIFY', whoami: 'pass', usage: 'SCOPE_MISSING', human: 'pass', owner: 'pass', agent: 'UNAUTHORIZED' },
  },
  {
    name: 'session without Sandbox',
    follows: 'Rules common to Minds operations: "verified online against the current organization, project, workspace and Sandbox context", "an original human account session with a verified Sandbox selection"',
    expected: { public: 'pass', verify: 'NO_AUTHORIZATION_ON_VERIFY', whoami: 'pass', usage: 'pass', human: 'HUMAN_SANDBOX_SELECTION_REQUIRED', owner: 'HUMAN_SANDBOX_SELECTION_REQUIRED', agent: 'UNAUTHORIZED' },
  },
  {
    name: 'derived session',
    follows: 'Rules common to Minds operations: "only the original selected Console human bearer" (owner management), "Memory, Mind and usage operations: an original human account session"; Errors: ORIGINAL_CONSOLE_REQUIRED "original Console session required, not a derived credential"; whoami "any credential"',
    expected: { public: 'pass', verify: 'NO_AUTHORIZATION_ON_VERIFY', whoami: 'pass', usage: 'pass', human: 'ORIGINAL_CONSOLE_REQUIRED', owner: 'ORIGINAL_CONSOLE_REQUIRED', agent: 'UNAUTHORIZED' },
  },
  {
    name: 'agent credential',
    follows: 'Rules common to Minds operations: agent operations "an existing `mak_acr` credential or an agent token"; Authentication 3 (whoami kinds `api_key`, `m2m_token`, `bridge_session`): DECISIONS "Which credentials whoami accepts"',
    expected: agentKind('pass'),
  },
  { name: 'agent token, no DPoP', follows: 'Authentication 4: "with a DPoP proof when the token is sender-constrained"', expected: agentKind('DPOP_REQUIRED') },
  { name: 'agent token, wrong proof', follows: 'Agent memory: "a caller-signed proof for the controller capability endpoint: method POST for insert, GET for read and search"', expected: agentKind('INVALID_DPOP') },
  { name: 'agent token, replayed proof', follows: 'Agent memory: "a caller-signed proof" (RFC 9449 `jti` replay): DECISIONS "DPoP details"', expected: agentKind('INVALID_DPOP') },
  { name: 'agent token, stale nonce', follows: 'Agent memory: "On 401 the existing credential is rejected, or the code is `DPOP_NONCE_REQUIRED`"', expected: agentKind('DPOP_NONCE_REQUIRED') },
];

/** Codes that only credential checks answer: anything else means authentication let the request through. */
const credentialCodes = new Set([
  'BEARER_REQUIRED', 'AMBIENT_AUTHORITY_NOT_ALLOWED', 'CREDENTIAL_INVALID', 'SELECTION_EXPIRED', 'UNAUTHORIZED', 'SCOPE_MISSING',
  'HUMAN_SANDBOX_SELECTION_REQUIRED', 'ORIGINAL_CONSOLE_REQUIRED', 'INVALID_AGENT_CREDENTIAL', 'INVALID_AGENT_TOKEN', 'DPOP_REQUIRED',
  'DPOP_INVALID', 'INVALID_DPOP', 'DPOP_NONCE_REQUIRED', 'NO_AUTHORIZATION_ON_VERIFY', 'UNAUTHENTICATED',
]);
const outcomeOf = (answer: Answer): string => {
  const code = answer.body?.error?.code as string | undefined;
  return code && credentialCodes.has(code) ? code : 'pass';
};

/** The suite against one of npm start's topologies: each test file runs it against one. */
export function authMatrixSuite(topology: Topology): void {
  describe(`${topology} topology`, () => {
    let stack: Stack;
    let strict: Stack;
    const tokens: Record<string, string> = {};
    let dpopKey: { privateKey: CryptoKey; jwk: JWK };
    let strictToken: string;

    beforeAll(async () => {
      [stack, strict] = await Promise.all([startStack({ topology }), startStack({ topology, minds: false, gatewayEnv: { DPOP_REQUIRE_NONCE: 'true' } })]);
      const keys = await generateKeyPair('ES256');
      dpopKey = { privateKey: keys.privateKey, jwk: await exportJWK(keys.publicKey) };
      const jkt = await calculateJwkThumbprint(dpopKey.jwk);
      const issue = async (name: string, kind: Parameters<Stack['issue']>[0], options: Record<string, unknown> = {}) => {
        tokens[name] = (await stack.issue(kind, options)).token;
      };
      await issue('session', 'bridge_session');
      await issue('session without minds scopes', 'bridge_session', { scopes: ['platform.usage.read'] });
      await issue('session without usage scope', 'bridge_session', { scopes: ['minds:read', 'minds:write'] });
      await issue('session without Sandbox', 'bridge_session', { sandbox: false });
      await issue('derived session', 'bridge_session', { original_session: false });
      await issue('expired selection', 'bridge_session', { selection_expires_in_seconds: -1 });
      await issue('API key', 'api_key');
      await issue('m2m token', 'm2m_token');
      await issue('expired', 'api_key', { expires_in_seconds: -1 });
      await issue('agent credential', 'agent_credential');
      await issue('agent token', 'agent_token', { dpop_jkt: jkt });
      const revoked = await stack.issue('api_key');
      await stack.admin(`/admin/credentials/${revoked.id}/revoke`, {});
      tokens.revoked = revoked.token;
      tokens.unknown = 'ak_thisTokenWasNeverIssued0000000000';
      strictToken = (await strict.issue('agent_token', { dpop_jkt: jkt })).token;
    });
    afterAll(async () => {
      await Promise.all([stack?.close(), strict?.close()]);
    });

    async function proof(base: string, operationId: OperationId, path: string, token: string, claims: Record<string, unknown> = {}): Promise<string> {
      const facts = operationTable[operationId];
      return new SignJWT({
        htm: facts.dpopHtm ?? facts.method.toUpperCase(),
        htu: base + path.split('?')[0],
        jti: randomUUID(),
        ath: createHash('sha256').update(token).digest('base64url'),
        ...claims,
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: dpopKey.jwk })
        .setIssuedAt()
        .sign(dpopKey.privateKey);
    }

    /** The answer to one operation under one situation. */
    async function attempt(operationId: OperationId, situation: string): Promise<Answer> {
      const request = requestFor(operationId);
      const body = request.body === undefined ? undefined : JSON.stringify(operationId === 'iam_verifyCredential' ? { credential: tokens.session } : request.body);
      let base = stack.url;
      const headers: Record<string, string | string[]> = { ...request.headers };
      const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
      switch (situation) {
        case 'no credential':
          break;
        case 'two bearers':
          headers.authorization = [`Bearer ${tokens.session}`, `Bearer ${tokens['API key']}`];
          break;
        case 'cookie only':
          headers.cookie = `session=${tokens.session}`;
          break;
        case 'agent token, no DPoP':
          Object.assign(headers, bearer(tokens['agent token']!));
          break;
        case 'agent token, wrong proof':
          Object.assign(headers, bearer(tokens['agent token']!), { dpop: await proof(base, operationId, request.path, tokens['agent token']!, { htm: 'PATCH' }) });
          break;
        case 'agent token, replayed proof': {
          const used = await proof(base, operationId, request.path, tokens['agent token']!);
          Object.assign(headers, bearer(tokens['agent token']!), { dpop: used });
          await rawSend(base, request.method, request.path, { ...headers }, body); // the first use
          break;
        }
        case 'agent token, stale nonce':
          base = strict.url;
          Object.assign(headers, bearer(strictToken), { dpop: await proof(base, operationId, request.path, strictToken, { nonce: 'a-nonce-from-long-ago-000000' }) });
          break;
        default:
          Object.assign(headers, bearer(tokens[situation]!));
      }
      return rawSend(base, request.method, request.path, headers, body);
    }

    describe('authentication matrix', () => {
      const table: Record<string, Record<string, string>> = {};

      it.each(situations)('$name (follows $follows)', async ({ name, expected }) => {
        table[name] = {};
        for (const operationId of operationIds) {
          const answer = await attempt(operationId, name);
          const outcome = outcomeOf(answer);
          table[name]![operationId] = outcome;
          expect({ operationId, situation: name, outcome }).toEqual({ operationId, situation: name, outcome: expected[familyOf(operationId)] });
          if (outcome !== 'pass') {
            expect(answer.body.error.request_id).toBe(answer.headers.get('x-request-id'));
            if (outcome === 'SCOPE_MISSING') expect(answer.body.error.required_scope).toMatch(/^[a-z]/);
            if (outcome === 'DPOP_NONCE_REQUIRED') expect(answer.headers.get('dpop-nonce')).toBeTruthy();
          }
          // RFC 9110 §15.5.2 and §11.6.1: every 401 carries a well-formed WWW-Authenticate (rfc-auth-challenges.test.ts says which).
          if (answer.status === 401) expect(parseChallenges(answer.headers.get('www-authenticate')).length, `${operationId} ${name}`).toBeGreaterThan(0);
        }
      });

      afterAll(() => {
        const short = (code: string) => (code === 'pass' ? '·' : code.replace(/_/g, ' ').toLowerCase().split(' ').map((w) => w[0]).join('').toUpperCase());
        const legend = new Map<string, string>();
        const lines = [`${'operation'.padEnd(34)} ${situations.map((_, i) => String(i + 1).padStart(5)).join('')}`];
        for (const operationId of operationIds) {
          lines.push(`${operationId.padEnd(34)} ${situations.map((s) => {
            const code = table[s.name]?.[operationId] ?? '?';
            legend.set(short(code), code);
            return short(code).padStart(5);
          }).join('')}`);
        }
        console.log(`\nAuthentication matrix (· = authenticated, then the operation's own answer)\n${situations.map((s, i) => `${i + 1}=${s.name}`).join(', ')}\n${lines.join('\n')}\n${[...legend].filter(([k]) => k !== '·').map(([k, v]) => `${k}=${v}`).join(', ')}`);
      });
    });
  });
}
