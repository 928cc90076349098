/**
 * Bearer authentication against the credential store, then the operation's
 * own credential rules, all read from the contract's operation table:
 *
 *   exactly one `Authorization: Bearer` (or `DPoP` for a sender-constrained
 *   agent token; else BEARER_REQUIRED; a cookie or
 *   forwarded authority instead of one: AMBIENT_AUTHORITY_NOT_ALLOWED) ->
 *   known, unexpired, unrevoked (CREDENTIAL_INVALID, or the agent codes on
 *   agent operations) -> selection not expired (SELECTION_EXPIRED) -> rate
 *   limit -> kind accepted by `security` (else x-credential-refusal) ->
 *   scopes (SCOPE_MISSING) -> Sandbox selection -> original session -> DPoP.
 */
import type { Request } from 'express';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { credentialSchemes, operationTable, type ErrorCode, type OperationFacts } from '@gateway-minds/contract';
import { ServiceError, requestedMethod, type VerifiedPrincipal } from '@gateway-minds/service-kit';
import type { CredentialRecord, CredentialStore } from '../iam/credentials.js';
import { kindOfToken } from '../iam/credentials.js';
import type { DpopVerifier } from './dpop.js';
import { consume } from './rate-limit.js';

/** Headers that carry authority without an explicit bearer (spec/DECISIONS.md, "Ambient authority"). */
export const AMBIENT_AUTHORITY_HEADERS = ['cookie', 'proxy-authorization', 'x-forwarded-authorization', 'x-forwarded-access-token', 'x-forwarded-user', 'x-forwarded-email'];

/** `Bearer` (RFC 6750 §2.1), or `DPoP` (RFC 9449 §7.1) for a sender-constrained agent token; then the token68. */
const credentialHeader = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i;

export interface AuthenticatorDeps {
  store: CredentialStore;
  dpop: DpopVerifier;
  limiter: RateLimiterAbstract;
  /** The URL callers use (DPoP `htu`); a function because a test gateway learns its port only after listening. */
  publicBaseUrl: () => string;
}

function schemeOf(kind: CredentialRecord['kind']): string {
  return credentialSchemes[kind].scheme;
}

export function toPrincipal(record: CredentialRecord): VerifiedPrincipal {
  return {
    credentialId: record.id,
    kind: record.kind,
    principal: record.principalId,
    org: record.organizationId,
    project: record.projectId,
    workspace: record.workspaceId,
    sandbox: record.sandboxId,
    scopes: record.scopes,
    originalSession: record.originalSession,
    agentId: record.agentId,
  };
}

export function createAuthenticator(deps: AuthenticatorDeps) {
  const agentSchemes = new Set<string>([credentialSchemes.agent_credential.scheme, credentialSchemes.agent_token.scheme]);

  /** The verified principal for an operation that needs a credential, or null for one that needs none. */
  return async function authenticate(req: Request, operation: OperationFacts): Promise<VerifiedPrincipal | null> {
    const authorization = req.headersDistinct.authorization ?? [];
    if (operation.security.length === 0) {
      if (operation.operationId === operationTable.iam_verifyCredential.operationId && authorization.length > 0) {
        throw new ServiceError('NO_AUTHORIZATION_ON_VERIFY', 'Credential verification takes the credential in its body only; remove the Authorization header.');
      }
      return null;
    }

    if (authorization.length === 0) {
      if (AMBIENT_AUTHORITY_HEADERS.some((name) => req.headers[name] !== undefined)) {
        throw new ServiceError('AMBIENT_AUTHORITY_NOT_ALLOWED', 'Cookies and forwarded authority are not accepted; send an explicit bearer credential.');
      }
      throw new ServiceError('BEARER_REQUIRED', 'Send exactly one Authorization: Bearer header.');
    }
    if (authorization.length > 1) throw new ServiceError('BEARER_REQUIRED', 'Send exactly one Authorization header, not several.');
    const [, scheme, token] = credentialHeader.exec(authorization[0]!) ?? [];
    if (!token) throw new ServiceError('BEARER_REQUIRED', 'The Authorization header must use the Bearer scheme (or DPoP, for a sender-constrained agent token).');

    const agentOperation = operation.security.some((s) => agentSchemes.has(s.scheme));
    const record = await deps.store.lookup(token);
    const now = Date.now();
    if (!record || record.revokedAt || (record.expiresAt && record.expiresAt.getTime() <= now)) {
      const claimed = record?.kind ?? kindOfToken(token);
      if (agentOperation && claimed === 'agent_credential') throw new ServiceError('INVALID_AGENT_CREDENTIAL', 'The agent credential is invalid.');
      if (agentOperation && claimed === 'agent_token') throw new ServiceError('INVALID_AGENT_TOKEN', 'The agent token is invalid or expired.');
      throw new ServiceError('CREDENTIAL_INVALID', 'The credential is invalid, expired or revoked.');
    }
    if (scheme!.toLowerCase() === 'dpop' && !(record.kind === 'agent_token' && record.dpopJkt)) {
      throw new ServiceError('BEARER_REQUIRED', 'The DPoP scheme carries only sender-constrained agent tokens; send this credential with Bearer.');
    }
    if (record.selectionExpiresAt && record.selectionExpiresAt.getTime() <= now) {
      throw new ServiceError('SELECTION_EXPIRED', 'The organization and project selection has expired; select them again.');
    }

    await consume(deps.limiter, record.id);

    const requirement = operation.security.find((s) => s.scheme === schemeOf(record.kind));
    if (!requirement) {
      const code = (operation.credentialRefusal ?? 'UNAUTHORIZED') as ErrorCode;
      const requiredScope = code === 'SCOPE_MISSING' ? operation.security[0]?.scopes[0] : undefined;
      throw new ServiceError(code, `This operation does not accept ${record.kind} credentials.`, requiredScope ? { requiredScope } : {});
    }
    const missingScope = requirement.scopes.find((scope) => !record.scopes.includes(scope));
    if (missingScope) throw new ServiceError('SCOPE_MISSING', `The credential lacks the scope ${missingScope}.`, { requiredScope: missingScope });
    if (operation.requiresSandboxSelection && !record.sandboxId) {
      throw new ServiceError('HUMAN_SANDBOX_SELECTION_REQUIRED', 'This operation needs a signed-in human session with a Sandbox selection.');
    }
    if (operation.requiresOriginalSession && !record.originalSession) {
      throw new ServiceError('ORIGINAL_CONSOLE_REQUIRED', 'This operation needs the original Console session, not a credential derived from it.');
    }
    if (record.kind === 'agent_token' && record.dpopJkt) {
      const proof = req.headersDistinct.dpop;
      if (proof && proof.length > 1) throw new ServiceError('DPOP_INVALID', 'Send exactly one dpop header.');
      await deps.dpop.verify({
        proof: proof?.[0],
        methods: dpopMethods(req, operation),
        url: deps.publicBaseUrl() + req.path,
        accessToken: token,
        jkt: record.dpopJkt,
      });
    }
    return toPrincipal(record);
  };
}

/**
 * The `htm` a proof may carry: the operation's (x-dpop-htm: the interface's "method POST for
 * insert, GET for read and search"), else the request's method; and for a HEAD request, HEAD too:
 * RFC 9449 §4.3 checks "the htm claim matches the HTTP method of the current request", and HEAD
 * is answered as the GET it mirrors (DECISIONS.md "HEAD"), so a proof for either is accepted.
 */
function dpopMethods(req: Request, operation: OperationFacts): string[] {
  const htm = operation.dpopHtm ?? req.method;
  return requestedMethod(req) === 'HEAD' && htm === 'GET' ? ['HEAD', 'GET'] : [htm];
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
