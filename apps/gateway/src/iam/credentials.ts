/**
 * The credential store: organizations, projects, agents and credentials in the
 * gateway's database. A token is shown once, when issued; only its SHA-256 is
 * kept. Kinds and token prefixes come from the contract's security schemes.
 */
import { hash, randomBytes } from 'node:crypto';
import { credentialSchemes } from '@gateway-minds/contract';
import { isDatabaseUnavailable, type Database } from '@gateway-minds/db';
import { ServiceError, newPrefixedId, type CredentialKind } from '@gateway-minds/service-kit';

export interface CredentialRecord {
  id: string;
  kind: CredentialKind;
  organizationId: string;
  projectId: string | null;
  workspaceId: string | null;
  sandboxId: string | null;
  principalId: string;
  agentId: string | null;
  scopes: string[];
  originalSession: boolean;
  dpopJkt: string | null;
  expiresAt: Date | null;
  selectionExpiresAt: Date | null;
  revokedAt: Date | null;
}

export interface IssueCredentialInput {
  kind: CredentialKind;
  organizationId: string;
  projectId?: string | null;
  workspaceId?: string | null;
  sandboxId?: string | null;
  principalId?: string;
  agentId?: string | null;
  scopes?: string[];
  originalSession?: boolean;
  dpopJkt?: string | null;
  expiresInSeconds?: number | null;
  selectionExpiresInSeconds?: number | null;
}

export interface AgentRecord {
  id: string;
  organizationId: string;
  did: string;
  createdAtMs: number;
}

export function hashToken(token: string): string {
  // The one-shot hash: a Hash object per request cost 4× as much on the authentication path.
  return hash('sha256', token, 'hex');
}

/** The credential kind a token claims by its prefix (longest prefix first: `mak_acr_` before `m…`). */
export function kindOfToken(token: string): CredentialKind | null {
  const byLength = Object.values(credentialSchemes).sort((a, b) => b.tokenPrefix.length - a.tokenPrefix.length);
  return (byLength.find((s) => token.startsWith(s.tokenPrefix))?.kind as CredentialKind | undefined) ?? null;
}

interface CredentialRow {
  id: string;
  kind: CredentialKind;
  organization_id: string;
  project_id: string | null;
  workspace_id: string | null;
  sandbox_id: string | null;
  principal_id: string;
  agent_id: string | null;
  scopes: string[];
  original_session: boolean;
  dpop_jkt: string | null;
  expires_at: Date | null;
  selection_expires_at: Date | null;
  revoked_at: Date | null;
}

function toRecord(row: CredentialRow): CredentialRecord {
  return {
    id: row.id,
    kind: row.kind,
    organizationId: row.organization_id,
    projectId: row.project_id,
    workspaceId: row.workspace_id,
    sandboxId: row.sandbox_id,
    principalId: row.principal_id,
    agentId: row.agent_id,
    scopes: row.scopes,
    originalSession: row.original_session,
    dpopJkt: row.dpop_jkt,
    expiresAt: row.expires_at,
    selectionExpiresAt: row.selection_expires_at,
    revokedAt: row.revoked_at,
  };
}

const secondsFromNow = (seconds: number | null | undefined) => (seconds == null ? null : new Date(Date.now() + seconds * 1000));

export class CredentialStore {
  private readonly cache = new Map<string, { record: CredentialRecord | null; until: number }>();

  constructor(
    private readonly db: Database,
    private readonly cacheMs: number,
  ) {}

  async createOrganization(name: string): Promise<{ organizationId: string; projectId: string }> {
    const organizationId = newPrefixedId('org_');
    const projectId = newPrefixedId('prj_');
    await this.db.transaction(async (tx) => {
      await tx.query('insert into organizations (id, name) values ($1, $2)', [organizationId, name]);
      await tx.query('insert into projects (id, organization_id, name) values ($1, $2, $3)', [projectId, organizationId, name]);
    });
    return { organizationId, projectId };
  }

  /**
   * The development organization and project an empty deployment starts with, made once however
   * many gateways start at once: the check and the insert run under a transaction-scoped advisory
   * lock, so a second gateway waits, then finds the first one's.
   */
  async seedFirstOrganization(name: string): Promise<{ organizationId: string; projectId: string; seeded: boolean }> {
    return this.db.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock(hashtext($1))', ['gateway-minds: seed the first organization']);
      const { rows } = await tx.query<{ organization_id: string; id: string }>('select organization_id, id from projects order by created_at, id limit 1');
      if (rows[0]) return { organizationId: rows[0].organization_id, projectId: rows[0].id, seeded: false };
      const organizationId = newPrefixedId('org_');
      const projectId = newPrefixedId('prj_');
      await tx.query('insert into organizations (id, name) values ($1, $2)', [organizationId, name]);
      await tx.query('insert into projects (id, organization_id, name) values ($1, $2, $3)', [projectId, organizationId, name]);
      return { organizationId, projectId, seeded: true };
      // Read committed: each statement sees what the gateway that held the lock before committed.
    }, { isolation: 'read committed' });
  }

  async createProject(organizationId: string, name: string): Promise<string> {
    const projectId = newPrefixedId('prj_');
    await this.db.query('insert into projects (id, organization_id, name) values ($1, $2, $3)', [projectId, organizationId, name]);
    return projectId;
  }

  async hasOrganization(organizationId: string): Promise<boolean> {
    const { rows } = await this.db.query('select 1 from organizations where id = $1', [organizationId]);
    return rows.length > 0;
  }

  async hasProject(projectId: string, organizationId: string): Promise<boolean> {
    const { rows } = await this.db.query('select 1 from projects where id = $1 and organization_id = $2', [projectId, organizationId]);
    return rows.length > 0;
  }

  async firstOrganization(): Promise<{ organizationId: string; projectId: string } | null> {
    const { rows } = await this.db.query<{ organization_id: string; id: string }>(
      'select organization_id, id from projects order by created_at, id limit 1',
    );
    return rows[0] ? { organizationId: rows[0].organization_id, projectId: rows[0].id } : null;
  }

  async createAgent(organizationId: string): Promise<AgentRecord> {
    const id = newPrefixedId('a_');
    const agent = { id, organizationId, did: `did:web:agents.gateway-minds.dev:${id.toLowerCase()}`, createdAtMs: Date.now() };
    await this.db.query('insert into agents (id, organization_id, did, created_at_ms) values ($1, $2, $3, $4)', [
      agent.id,
      agent.organizationId,
      agent.did,
      agent.createdAtMs,
    ]);
    return agent;
  }

  async findAgent(id: string, organizationId: string): Promise<AgentRecord | null> {
    const { rows } = await this.db.query<{ id: string; organization_id: string; did: string; created_at_ms: number }>(
      'select id, organization_id, did, created_at_ms from agents where id = $1 and organization_id = $2',
      [id, organizationId],
    );
    const row = rows[0];
    return row ? { id: row.id, organizationId: row.organization_id, did: row.did, createdAtMs: Number(row.created_at_ms) } : null;
  }

  /** Issues a credential and returns it with its token, the only time the token is seen. */
  async issue(input: IssueCredentialInput): Promise<CredentialRecord & { token: string }> {
    const scheme = credentialSchemes[input.kind];
    const isAgent = input.kind === 'agent_credential' || input.kind === 'agent_token';
    let agentId = input.agentId ?? null;
    if (isAgent && !agentId) agentId = (await this.createAgent(input.organizationId)).id;
    if (isAgent && agentId && !(await this.findAgent(agentId, input.organizationId))) {
      throw new Error(`agent ${agentId} is not in organization ${input.organizationId}`);
    }
    const token = `${scheme.tokenPrefix}${randomBytes(24).toString('base64url')}`;
    const id = newPrefixedId('cred_');
    const principalId = input.principalId ?? (isAgent ? agentId! : newPrefixedId(input.kind === 'bridge_session' ? 'usr_' : 'key_'));
    const { rows } = await this.db.query<CredentialRow>(
      `insert into credentials (id, token_hash, kind, organization_id, project_id, workspace_id, sandbox_id, principal_id,
         agent_id, scopes, original_session, dpop_jkt, expires_at, selection_expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) returning *`,
      [
        id,
        hashToken(token),
        input.kind,
        input.organizationId,
        input.projectId ?? null,
        input.workspaceId ?? null,
        input.sandboxId ?? null,
        principalId,
        agentId,
        input.scopes ?? [],
        input.originalSession ?? true,
        input.dpopJkt ?? null,
        secondsFromNow(input.expiresInSeconds),
        secondsFromNow(input.selectionExpiresInSeconds),
      ],
    );
    return { ...toRecord(rows[0]!), token };
  }

  async revoke(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query('update credentials set revoked_at = now() where id = $1 and revoked_at is null', [id]);
    this.cache.clear(); // this replica forgets at once; others within cacheMs
    return rowCount > 0;
  }

  /**
   * The credential a token names, or null; briefly cached (revocation reaches other replicas within
   * cacheMs). A credential store that cannot be read is AUTH_UNAVAILABLE (503), not an invalid
   * credential and not a 500: the caller's credential may well be good.
   */
  async lookup(token: string): Promise<CredentialRecord | null> {
    const hash = hashToken(token);
    const cached = this.cache.get(hash);
    const now = Date.now();
    if (cached && cached.until > now) return cached.record;
    const { rows } = await this.db.query<CredentialRow>('select * from credentials where token_hash = $1', [hash]).catch((error: unknown) => {
      if (!isDatabaseUnavailable(error)) throw error;
      throw new ServiceError('AUTH_UNAVAILABLE', 'The credential store could not be read; nothing was done. Retry the request.', { reason: 'credential_store_unavailable' });
    });
    const record = rows[0] ? toRecord(rows[0]) : null;
    if (this.cacheMs > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, { record, until: now + this.cacheMs });
    }
    return record;
  }
}
