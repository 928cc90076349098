/**
 * Authentication and defence in depth. The gateway has already authenticated
 * the caller and checked the operation's credential rules; this service still
 * refuses anything that did not come through it (no valid `x-gateway-assertion`:
 * 401 UNAUTHENTICATED) and checks the verified principal against the
 * operation's facts again, so that a misrouted or misconfigured request cannot
 * reach a handler:
 *
 *   kind not accepted by the operation's security -> its x-credential-refusal code
 *   a scope of the security requirement missing     -> SCOPE_MISSING (required_scope)
 *   no Sandbox selection where one is required      -> HUMAN_SANDBOX_SELECTION_REQUIRED
 *   a derived session where the original is needed -> ORIGINAL_CONSOLE_REQUIRED
 *   the operation's admission setting off           -> NOT_FOUND (reason not_admitted)
 *
 * The credential rules run in the gateway's order (spec/DECISIONS.md, "Order of the
 * credential checks"), and admission after them, so that from the outside the order is the
 * same whether the gateway or this service refuses.
 */
import type { RequestHandler, Response } from 'express';
import { credentialSchemes, type ErrorCode, type OperationFacts } from '@gateway-minds/contract';
import { ServiceError, requestContext, requireGatewayAssertion, type AssertionVerificationKey, type VerifiedPrincipal } from '@gateway-minds/service-kit';

export const SERVICE_AUDIENCE = 'minds';

/** The human caller of a Sandbox-selected operation: tenancy comes only from here. */
export interface HumanCaller {
  kind: 'human';
  principal: string;
  org: string;
  project: string;
  workspace: string | null;
  sandbox: string;
}

export interface AgentCaller {
  kind: 'agent';
  agentId: string;
  org: string;
  /** The project the agent credential is bound to, if any. */
  project: string | null;
}

function acceptedKinds(operation: OperationFacts): Set<string> {
  const schemes = new Set(operation.security.map((s) => s.scheme));
  return new Set(Object.values(credentialSchemes).filter((c) => schemes.has(c.scheme)).map((c) => c.kind));
}

function isAgentKind(kind: string): boolean {
  return kind === credentialSchemes.agent_credential.kind || kind === credentialSchemes.agent_token.kind;
}

/** Checks a verified principal against an operation's facts; throws the contract's refusal. */
/** What a refused caller (or the person running the server) needs to know: which setting admits the operation. */
export function notAdmittedMessage(admissionSetting: string): string {
  return `This operation is not admitted on this server; the server setting ${admissionSetting} admits it.`;
}

export function checkPrincipal(operation: OperationFacts, principal: VerifiedPrincipal, admissions: Record<string, boolean>): void {
  const refusal = (operation.credentialRefusal ?? 'UNAUTHORIZED') as ErrorCode;
  if (!acceptedKinds(operation).has(principal.kind)) {
    throw new ServiceError(refusal, 'This credential is not accepted for this operation.');
  }
  if (!principal.org) throw new ServiceError(refusal, 'The credential carries no organization.');
  const requirement = operation.security.find((s) => Object.values(credentialSchemes).some((c) => c.scheme === s.scheme && c.kind === principal.kind));
  const missing = requirement?.scopes.find((scope) => !principal.scopes.includes(scope));
  if (missing) throw new ServiceError('SCOPE_MISSING', `The credential lacks the ${missing} scope.`, { requiredScope: missing });
  if (isAgentKind(principal.kind)) {
    if (!principal.agentId) throw new ServiceError(refusal, 'The agent credential names no agent.');
  } else if (operation.requiresSandboxSelection && (!principal.sandbox || !principal.project)) {
    throw new ServiceError('HUMAN_SANDBOX_SELECTION_REQUIRED', 'A signed-in human session with a Sandbox selection is required.');
  }
  if (operation.requiresOriginalSession && !principal.originalSession) {
    throw new ServiceError('ORIGINAL_CONSOLE_REQUIRED', 'This operation needs the original Console session, not a credential derived from it.');
  }
  if (operation.admissionSetting && !admissions[operation.admissionSetting]) {
    // The setting's name is the spec's x-admission-setting: the one place it is written.
    throw new ServiceError('NOT_FOUND', notAdmittedMessage(operation.admissionSetting), { reason: 'not_admitted' });
  }
}

/** requireGatewayAssertion, then checkPrincipal for the matched operation. */
export function authenticate(verificationKey: AssertionVerificationKey, admissions: Record<string, boolean>): RequestHandler {
  const verify = requireGatewayAssertion(verificationKey, SERVICE_AUDIENCE);
  return (req, res, next) => {
    void verify(req, res, (error?: unknown) => {
      if (error) return next(error);
      try {
        checkPrincipal(requestContext(res).operation, res.locals.principal as VerifiedPrincipal, admissions);
        next();
      } catch (refusal) {
        next(refusal);
      }
    });
  };
}

export function principalOf(res: Response): VerifiedPrincipal {
  return res.locals.principal as VerifiedPrincipal;
}

/** The human caller; only called after checkPrincipal admitted a Sandbox-selected session. */
export function humanCaller(res: Response): HumanCaller {
  const p = principalOf(res);
  return { kind: 'human', principal: p.principal, org: p.org, project: p.project!, workspace: p.workspace, sandbox: p.sandbox! };
}

export function agentCaller(res: Response): AgentCaller {
  const p = principalOf(res);
  return { kind: 'agent', agentId: p.agentId!, org: p.org, project: p.project };
}
