/**
 * Owner management: agent groups, their members, and the attachments that let
 * an agent or a group use a Mind's agent data (spec/DECISIONS.md "Owner
 * management"). Original Console session only; behind its admission setting
 * (checked in auth.ts).
 *
 * Every write carries an `operationId` (replay.ts: the same body replays the
 * first successful result, another body is `operation_id_reused`; checked
 * before any other rule; a refused write records nothing) and, except group
 * creation, an `expectedVersion` checked by conditional writes: an INSERT that
 * loses to a concurrent one on the record's unique key, or an
 * `UPDATE ... WHERE version = expected`, so that of two racing writers with
 * the same expectedVersion exactly one wins.
 */
import type { Request, Response } from 'express';
import type { Queryable } from '@gateway-minds/db';
import type { Schemas } from '@gateway-minds/contract';
import { ServiceError, ASSERTION_HEADER, newPrefixedId, refused, requestContext } from '@gateway-minds/service-kit';
import { humanCaller, type HumanCaller } from '../auth.js';
import type { AgentRecord } from '../agents.js';
import type { Deps } from '../deps.js';
import { groupNamespace } from '../memory/store.js';
import { mindNotFound, sendStored, tenantOf } from '../minds/lifecycle.js';
import { mindExists } from '../minds/store.js';
import { findReplay, OPERATION_IDS, requestFingerprint, runOnce } from '../replay.js';
import { ATTACHMENT_MAX_LIFETIME_MS, DAY_MS, type Permission } from '../spec.js';

type AgentGroup = Schemas['AgentGroup'];
type AgentGroupMember = Schemas['AgentGroupMember'];
type MindAttachment = Schemas['MindAttachment'];

/**
 * `organizationGeneration` of new groups. The verified principal carries no
 * organization generation, so every group is created in generation 1
 * (see the final report: the assertion should carry it).
 */
export const ORGANIZATION_GENERATION = 1;

interface GroupRow {
  id: string;
  organization_id: string;
  owner_id: string;
  organization_generation: number;
  name: string;
  version: number;
  revoked_at: number | null;
}

interface MemberRow {
  group_id: string;
  agent_id: string;
  agent_did: string;
  agent_created_at: number;
  version: number;
  revoked_at: number | null;
}

interface AttachmentRow {
  id: string;
  mind_id: string;
  organization_id: string;
  project_id: string;
  subject_kind: 'agent' | 'group';
  subject_id: string;
  permissions: Permission[];
  expires_at: number;
  revoked_at: number | null;
  version: number;
}

function toGroup(row: GroupRow): AgentGroup {
  return {
    id: row.id,
    organizationId: row.organization_id,
    ownerId: row.owner_id,
    organizationGeneration: row.organization_generation,
    name: row.name,
    version: row.version,
    revokedAt: row.revoked_at,
  };
}

function toMember(row: MemberRow): AgentGroupMember {
  return { groupId: row.group_id, agentId: row.agent_id, agentDid: row.agent_did, agentCreatedAt: row.agent_created_at, version: row.version, revokedAt: row.revoked_at };
}

function toAttachment(row: AttachmentRow): MindAttachment {
  return {
    id: row.id,
    version: row.version,
    organizationId: row.organization_id,
    projectId: row.project_id,
    mindId: row.mind_id,
    subject: row.subject_kind === 'agent' ? { kind: 'agent', agentId: row.subject_id } : { kind: 'group', groupId: row.subject_id },
    permissions: row.permissions as MindAttachment['permissions'],
    sharedNamespace: row.subject_kind === 'group' ? (groupNamespace(row.subject_id) as MindAttachment['sharedNamespace']) : null,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

const versionMismatch = () => new ServiceError('INVALID_REQUEST', 'expectedVersion is not the current version of this record; read it again.', { reason: 'version_mismatch' });
const groupNotFound = () => new ServiceError('NOT_FOUND', 'No such agent group of yours in the selected organization.', { reason: 'group_not_found' });
const agentNotFound = () => new ServiceError('NOT_FOUND', 'No such agent in the selected organization.', { reason: 'agent_not_found' });

/** A group of the caller in the caller's organization (groups are organization-wide, owned by their creator). */
async function findOwnGroup(db: Queryable, caller: HumanCaller, groupId: string, options: { active: boolean }): Promise<GroupRow | undefined> {
  const { rows } = await db.query<GroupRow>(
    `SELECT * FROM agent_groups WHERE id = $1 AND organization_id = $2 AND owner_id = $3${options.active ? ' AND revoked_at IS NULL' : ''}`,
    [groupId, caller.org, caller.principal],
  );
  return rows[0];
}

export function ownerHandlers(deps: Deps) {
  const { db } = deps;

  function lookupAgent(req: Request, res: Response, caller: HumanCaller, agentId: string): Promise<AgentRecord | null> {
    return deps.agents.find(agentId, { org: caller.org, assertion: String(req.headers[ASSERTION_HEADER]), requestId: requestContext(res).requestId });
  }

  /**
   * One owner-management write: resolve a replay first (before any other rule and
   * before slow lookups), then `prepare` (reads and directory lookups outside the
   * transaction), then `work` under the operationId reservation.
   */
  async function ownerWrite<P>(req: Request, res: Response, prepare: (caller: HumanCaller) => Promise<P>, work: (tx: Queryable, caller: HumanCaller, prepared: P) => Promise<unknown>): Promise<void> {
    const caller = humanCaller(res);
    const { operation, pathParams } = requestContext(res);
    const body = req.body as { operationId: string };
    const scope = { org: caller.org, project: caller.project, principal: caller.principal, key: body.operationId };
    const fingerprint = requestFingerprint(operation.operationId, pathParams, body);
    const early = await findReplay(db, OPERATION_IDS, scope, operation.operationId, fingerprint);
    if (early) return sendStored(res, early);
    const prepared = await prepare(caller);
    const stored = await runOnce(db, OPERATION_IDS, scope, operation.operationId, fingerprint, async (tx) => ({ status: 200, body: await work(tx, caller, prepared) }));
    sendStored(res, stored);
  }

  async function listAgentGroups(_req: Request, res: Response): Promise<void> {
    const caller = humanCaller(res);
    const { rows } = await db.query<GroupRow>(`SELECT * FROM agent_groups WHERE organization_id = $1 AND owner_id = $2 ORDER BY id`, [caller.org, caller.principal]);
    const body: Schemas['AgentGroupList'] = { groups: rows.map(toGroup) };
    res.json(body);
  }

  async function createAgentGroup(req: Request, res: Response): Promise<void> {
    const { name } = req.body as Schemas['CreateAgentGroupRequest'];
    await ownerWrite(req, res, async () => undefined, async (tx, caller) => {
      const { rows } = await tx.query<GroupRow>(
        `INSERT INTO agent_groups (id, organization_id, project_id, owner_id, organization_generation, name, version)
         VALUES ($1, $2, $3, $4, $5, $6, 1) RETURNING *`,
        [newPrefixedId('agp_'), caller.org, caller.project, caller.principal, ORGANIZATION_GENERATION, name],
      );
      return toGroup(rows[0]!);
    });
  }

  async function listAgentGroupMembers(_req: Request, res: Response): Promise<void> {
    const caller = humanCaller(res);
    const group = await findOwnGroup(db, caller, requestContext(res).pathParams.group_id!, { active: false });
    if (!group) throw groupNotFound();
    const { rows } = await db.query<MemberRow>(`SELECT * FROM agent_group_members WHERE group_id = $1 AND organization_id = $2 ORDER BY agent_id`, [group.id, caller.org]);
    const body: Schemas['AgentGroupMemberList'] = { members: rows.map(toMember) };
    res.json(body);
  }

  async function addAgentGroupMember(req: Request, res: Response): Promise<void> {
    const { agentId, expectedVersion } = req.body as Schemas['AddAgentGroupMemberRequest'];
    const groupId = requestContext(res).pathParams.group_id!;
    await ownerWrite(
      req,
      res,
      async (caller) => {
        if (!(await findOwnGroup(db, caller, groupId, { active: true }))) throw groupNotFound();
        return lookupAgent(req, res, caller, agentId);
      },
      async (tx, caller, agent) => {
        if (!(await findOwnGroup(tx, caller, groupId, { active: true }))) throw groupNotFound();
        if (!agent) throw agentNotFound();
        const { rows } = await tx.query<MemberRow>(`SELECT * FROM agent_group_members WHERE group_id = $1 AND agent_id = $2 FOR UPDATE`, [groupId, agentId]);
        const record = rows[0];
        if (!record) {
          if (expectedVersion !== 0) throw versionMismatch();
          const inserted = await tx.query<MemberRow>(
            `INSERT INTO agent_group_members (group_id, agent_id, organization_id, agent_did, agent_created_at, version)
             VALUES ($1, $2, $3, $4, $5, 1) ON CONFLICT DO NOTHING RETURNING *`,
            [groupId, agentId, caller.org, agent.did, agent.createdAtMs],
          );
          if (!inserted.rows[0]) throw versionMismatch(); // a concurrent writer created it first
          return toMember(inserted.rows[0]);
        }
        if (record.version !== expectedVersion) throw versionMismatch();
        if (record.revoked_at === null) return toMember(record); // already an active member: unchanged
        const revived = await tx.query<MemberRow>(
          `UPDATE agent_group_members SET revoked_at = NULL, version = version + 1, agent_did = $4, agent_created_at = $5, updated_at = now()
            WHERE group_id = $1 AND agent_id = $2 AND version = $3 RETURNING *`,
          [groupId, agentId, expectedVersion, agent.did, agent.createdAtMs],
        );
        if (!revived.rows[0]) throw versionMismatch();
        return toMember(revived.rows[0]);
      },
    );
  }

  async function removeAgentGroupMember(req: Request, res: Response): Promise<void> {
    const { expectedVersion } = req.body as Schemas['RemoveAgentGroupMemberRequest'];
    const { group_id: groupId, agent_id: agentId } = requestContext(res).pathParams as { group_id: string; agent_id: string };
    await ownerWrite(req, res, async () => undefined, async (tx, caller) => {
      if (!(await findOwnGroup(tx, caller, groupId, { active: false }))) throw groupNotFound();
      const { rows } = await tx.query<MemberRow>(`SELECT * FROM agent_group_members WHERE group_id = $1 AND agent_id = $2 FOR UPDATE`, [groupId, agentId]);
      const record = rows[0];
      if (!record) throw new ServiceError('NOT_FOUND', 'This agent has no membership record in the group.', { reason: 'member_not_found' });
      if (record.version !== expectedVersion) throw versionMismatch();
      if (record.revoked_at !== null) return toMember(record); // already removed: the tombstone, unchanged
      const removed = await tx.query<MemberRow>(
        `UPDATE agent_group_members SET revoked_at = $4, version = version + 1, updated_at = now()
          WHERE group_id = $1 AND agent_id = $2 AND version = $3 AND revoked_at IS NULL RETURNING *`,
        [groupId, agentId, expectedVersion, Date.now()],
      );
      if (!removed.rows[0]) throw versionMismatch();
      return toMember(removed.rows[0]);
    });
  }

  async function listMindAttachments(_req: Request, res: Response): Promise<void> {
    const caller = humanCaller(res);
    const mindId = requestContext(res).pathParams.mind_id!;
    if (!(await mindExists(db, tenantOf(caller), mindId))) throw mindNotFound();
    const { rows } = await db.query<AttachmentRow>(
      `SELECT * FROM mind_attachments WHERE mind_id = $1 AND organization_id = $2 AND project_id = $3 ORDER BY id`,
      [mindId, caller.org, caller.project],
    );
    const body: Schemas['MindAttachmentList'] = { attachments: rows.map(toAttachment) };
    res.json(body);
  }

  async function attachMind(req: Request, res: Response): Promise<void> {
    const body = req.body as Schemas['AttachMindRequest'];
    const mindId = requestContext(res).pathParams.mind_id!;
    const subjectKind = body.subject.kind;
    const subjectId = body.subject.kind === 'agent' ? body.subject.agentId : body.subject.groupId;
    await ownerWrite(
      req,
      res,
      async (caller) => {
        if (!(await mindExists(db, tenantOf(caller), mindId))) throw mindNotFound();
        return subjectKind === 'agent' ? lookupAgent(req, res, caller, subjectId) : null;
      },
      async (tx, caller, agent) => {
        if (!(await mindExists(tx, tenantOf(caller), mindId))) throw mindNotFound();
        if (subjectKind === 'group' && !(await findOwnGroup(tx, caller, subjectId, { active: true }))) throw groupNotFound();
        if (subjectKind === 'agent' && !agent) throw agentNotFound();
        const now = Date.now();
        if (!(body.expiresAt > now && body.expiresAt <= now + ATTACHMENT_MAX_LIFETIME_MS)) {
          throw refused('attachment-expiry-out-of-range', { values: { days: ATTACHMENT_MAX_LIFETIME_MS / DAY_MS } });
        }
        const permissions = JSON.stringify(body.permissions);
        const { rows } = await tx.query<AttachmentRow>(
          `SELECT * FROM mind_attachments WHERE mind_id = $1 AND subject_kind = $2 AND subject_id = $3 AND organization_id = $4 AND project_id = $5 FOR UPDATE`,
          [mindId, subjectKind, subjectId, caller.org, caller.project],
        );
        const record = rows[0];
        if (!record) {
          if (body.expectedVersion !== 0) throw versionMismatch();
          const inserted = await tx.query<AttachmentRow>(
            `INSERT INTO mind_attachments (id, mind_id, organization_id, project_id, subject_kind, subject_id, permissions, expires_at, version)
             VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, 1) ON CONFLICT DO NOTHING RETURNING *`,
            [newPrefixedId('mat_'), mindId, caller.org, caller.project, subjectKind, subjectId, permissions, body.expiresAt],
          );
          if (!inserted.rows[0]) throw versionMismatch(); // a concurrent writer created it first
          return toAttachment(inserted.rows[0]);
        }
        if (record.version !== body.expectedVersion) throw versionMismatch();
        // Renewal of an active record, or revival of a detached one: same id, next version.
        const written = await tx.query<AttachmentRow>(
          `UPDATE mind_attachments SET permissions = $3::jsonb, expires_at = $4, revoked_at = NULL, version = version + 1, updated_at = now()
            WHERE id = $1 AND version = $2 RETURNING *`,
          [record.id, body.expectedVersion, permissions, body.expiresAt],
        );
        if (!written.rows[0]) throw versionMismatch();
        return toAttachment(written.rows[0]);
      },
    );
  }

  async function detachMind(req: Request, res: Response): Promise<void> {
    const { expectedVersion } = req.body as Schemas['DetachMindRequest'];
    const { mind_id: mindId, attachment_id: attachmentId } = requestContext(res).pathParams as { mind_id: string; attachment_id: string };
    await ownerWrite(req, res, async () => undefined, async (tx, caller) => {
      if (!(await mindExists(tx, tenantOf(caller), mindId))) throw mindNotFound();
      const { rows } = await tx.query<AttachmentRow>(
        `SELECT * FROM mind_attachments WHERE id = $1 AND mind_id = $2 AND organization_id = $3 AND project_id = $4 FOR UPDATE`,
        [attachmentId, mindId, caller.org, caller.project],
      );
      const record = rows[0];
      if (!record) throw new ServiceError('NOT_FOUND', 'The Mind has no attachment with this id.', { reason: 'attachment_not_found' });
      if (record.version !== expectedVersion) throw versionMismatch();
      if (record.revoked_at !== null) return toAttachment(record); // already detached: the tombstone, unchanged
      const detached = await tx.query<AttachmentRow>(
        `UPDATE mind_attachments SET revoked_at = $3, version = version + 1, updated_at = now()
          WHERE id = $1 AND version = $2 AND revoked_at IS NULL RETURNING *`,
        [record.id, expectedVersion, Date.now()],
      );
      if (!detached.rows[0]) throw versionMismatch();
      return toAttachment(detached.rows[0]);
    });
  }

  return {
    minds_listAgentGroups: listAgentGroups,
    minds_createAgentGroup: createAgentGroup,
    minds_listAgentGroupMembers: listAgentGroupMembers,
    minds_addAgentGroupMember: addAgentGroupMember,
    minds_removeAgentGroupMember: removeAgentGroupMember,
    minds_listMindAttachments: listMindAttachments,
    minds_attachMind: attachMind,
    minds_detachMind: detachMind,
  };
}
