/**
 * The admin API: issuing and revoking credentials, creating organizations and
 * agents. It listens on a separate port bound to 127.0.0.1 and needs the admin
 * token kept in the data directory; it is not part of the public contract.
 * It also answers the services' internal agent lookups, authorized by the very
 * assertion the gateway signed for the request the service is handling.
 */
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { credentialSchemes } from '@gateway-minds/contract';
import { isDatabaseUnavailable } from '@gateway-minds/db';
import { ASSERTION_HEADER, verifyAssertion, type AssertionVerificationKey, type CredentialKind } from '@gateway-minds/service-kit';
import type { CredentialStore } from '../iam/credentials.js';
import { defaultScopes, isJwkThumbprint, JWK_THUMBPRINT_RULE, knownScopes, unknownScopes } from './admin-rules.js';

export interface AdminDeps {
  store: CredentialStore;
  adminToken: string;
  /** Verifies assertions on the internal agent lookup (a key, or a trusted key set); null when the gateway has none. */
  assertionPublicKey: AssertionVerificationKey | null;
  /** Services whose assertions the lookup accepts. */
  audiences: string[];
}

class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** A 401's WWW-Authenticate challenge (RFC 9110 §15.5.2: every 401 carries one). */
    readonly challenge?: string,
  ) {
    super(message);
  }
}

/** The internal route's credential is the gateway's own assertion header, not an Authorization scheme. */
const ASSERTION_CHALLENGE = `Gateway-Assertion realm="gateway-minds-internal", header="${ASSERTION_HEADER}"`;
const ADMIN_CHALLENGE = 'Bearer realm="gateway-minds-admin"';

export function createAdminApp(deps: AdminDeps) {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '16kb' }));

  app.get('/internal/iam/agents/:agentId', async (req, res) => {
    const token = req.headers[ASSERTION_HEADER];
    if (!deps.assertionPublicKey || typeof token !== 'string') throw new AdminError(401, 'an assertion is required', ASSERTION_CHALLENGE);
    let org: string | undefined;
    for (const audience of deps.audiences) {
      try {
        org = (await verifyAssertion(deps.assertionPublicKey, token, audience)).principal.org;
        break;
      } catch {
        // try the next audience
      }
    }
    if (!org) throw new AdminError(401, 'the assertion is invalid', ASSERTION_CHALLENGE);
    const agent = await deps.store.findAgent(req.params.agentId, org);
    if (!agent) throw new AdminError(404, 'no such agent in the organization');
    res.json({ id: agent.id, organizationId: agent.organizationId, did: agent.did, createdAtMs: agent.createdAtMs });
  });

  const requireAdmin: RequestHandler = (req, _res, next) => {
    const presented = Buffer.from(String(req.headers.authorization ?? '').replace(/^Bearer /i, ''));
    const expected = Buffer.from(deps.adminToken);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw new AdminError(401, 'admin token required', req.headers.authorization ? `${ADMIN_CHALLENGE}, error="invalid_token"` : ADMIN_CHALLENGE);
    next();
  };
  app.use('/admin', requireAdmin);

  app.post('/admin/organizations', async (req, res) => {
    const name = typeof req.body?.name === 'string' && req.body.name ? req.body.name : 'Organization';
    const created = await deps.store.createOrganization(name);
    res.status(201).json({ organization_id: created.organizationId, project_id: created.projectId });
  });

  /** A clean 404 instead of the database's foreign-key message. */
  const requireOrganization = async (organizationId: string) => {
    if (!(await deps.store.hasOrganization(organizationId))) throw new AdminError(404, `no organization ${organizationId}`);
  };

  app.post('/admin/projects', async (req, res) => {
    const { organization_id: organizationId, name } = req.body ?? {};
    if (typeof organizationId !== 'string') throw new AdminError(400, 'organization_id is required');
    await requireOrganization(organizationId);
    res.status(201).json({ project_id: await deps.store.createProject(organizationId, typeof name === 'string' ? name : 'Project') });
  });

  app.post('/admin/agents', async (req, res) => {
    const organizationId = req.body?.organization_id;
    if (typeof organizationId !== 'string') throw new AdminError(400, 'organization_id is required');
    await requireOrganization(organizationId);
    const agent = await deps.store.createAgent(organizationId);
    // snake_case like every other admin answer
    res.status(201).json({ id: agent.id, organization_id: agent.organizationId, did: agent.did, created_at: new Date(agent.createdAtMs).toISOString() });
  });

  // The organization and project that credentials get when a request names none (made at first start).
  app.get('/admin/defaults', async (_req, res) => {
    const defaults = await deps.store.firstOrganization();
    res.json({ organization_id: defaults?.organizationId ?? null, project_id: defaults?.projectId ?? null });
  });

  app.post('/admin/credentials', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const kind = body.kind as CredentialKind;
    if (!Object.hasOwn(credentialSchemes, kind)) throw new AdminError(400, `kind must be one of ${Object.keys(credentialSchemes).join(', ')}`);
    const defaults = await deps.store.firstOrganization();
    const organizationId = (body.organization_id as string | undefined) ?? defaults?.organizationId;
    if (!organizationId) throw new AdminError(400, 'organization_id is required (no organization exists yet)');
    const projectId = (body.project_id as string | undefined) ?? (body.organization_id ? undefined : defaults?.projectId);
    await requireOrganization(organizationId);
    if (projectId !== undefined && !(await deps.store.hasProject(projectId, organizationId))) {
      throw new AdminError(404, `no project ${projectId} in organization ${organizationId}`);
    }
    if (body.agent_id !== undefined && (typeof body.agent_id !== 'string' || !(await deps.store.findAgent(body.agent_id, organizationId)))) {
      throw new AdminError(404, `no agent ${String(body.agent_id)} in organization ${organizationId}`);
    }
    if (body.scopes !== undefined) {
      const unknown = Array.isArray(body.scopes) ? unknownScopes(body.scopes) : [String(body.scopes)];
      if (unknown.length) throw new AdminError(400, `unknown scopes: ${unknown.join(', ')} (the contract knows ${knownScopes().join(', ')})`);
    }
    if (body.dpop_jkt !== undefined && body.dpop_jkt !== null && !isJwkThumbprint(body.dpop_jkt)) {
      throw new AdminError(400, `dpop_jkt must be ${JWK_THUMBPRINT_RULE}`);
    }
    for (const field of ['expires_in_seconds', 'selection_expires_in_seconds']) {
      const value = body[field];
      // Negative is allowed: tests issue credentials that are already expired.
      if (value !== undefined && value !== null && !Number.isSafeInteger(value)) throw new AdminError(400, `${field} must be a whole number of seconds`);
    }
    const isSession = kind === 'bridge_session';
    const credential = await deps.store.issue({
      kind,
      organizationId,
      projectId: projectId ?? null,
      workspaceId: isSession && body.sandbox !== false ? ((body.workspace_id as string | undefined) ?? 'wsp_default') : ((body.workspace_id as string | undefined) ?? null),
      sandboxId: isSession && body.sandbox !== false ? ((body.sandbox_id as string | undefined) ?? 'sbx_default') : null,
      principalId: body.principal_id as string | undefined,
      agentId: (body.agent_id as string | undefined) ?? null,
      scopes: Array.isArray(body.scopes) ? (body.scopes as string[]) : defaultScopes(kind),
      originalSession: body.original_session !== false,
      dpopJkt: (body.dpop_jkt as string | undefined) ?? null,
      expiresInSeconds: (body.expires_in_seconds as number | undefined) ?? null,
      selectionExpiresInSeconds: (body.selection_expires_in_seconds as number | undefined) ?? null,
    });
    res.status(201).json({
      id: credential.id,
      token: credential.token,
      kind: credential.kind,
      organization_id: credential.organizationId,
      project_id: credential.projectId,
      workspace_id: credential.workspaceId,
      sandbox_id: credential.sandboxId,
      principal_id: credential.principalId,
      agent_id: credential.agentId,
      scopes: credential.scopes,
      original_session: credential.originalSession,
      dpop_jkt: credential.dpopJkt,
      expires_at: credential.expiresAt?.toISOString() ?? null,
      selection_expires_at: credential.selectionExpiresAt?.toISOString() ?? null,
    });
  });

  app.post('/admin/credentials/:id/revoke', async (req, res) => {
    if (!(await deps.store.revoke(req.params.id))) throw new AdminError(404, 'no such active credential');
    res.json({ id: req.params.id, revoked: true });
  });

  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    // Local, token-protected tooling: say what went wrong (a foreign key, an unknown agent). A
    // database that does not answer is the server's state, not the request's fault: 503, try again.
    const unavailable = isDatabaseUnavailable(err);
    const status = err instanceof AdminError ? err.status : unavailable ? 503 : 400;
    if (unavailable) res.set('Retry-After', '1');
    if (err instanceof AdminError && err.challenge) res.set('WWW-Authenticate', err.challenge);
    res.status(status).json({ error: err instanceof Error ? err.message : String(err) });
  };
  app.use(onError);
  return app;
}
