/**
 * Whether an agent may use a Mind's agent data, and in which namespace.
 *
 * The agent needs an attachment to the Mind that is not revoked, not expired
 * and grants the needed permissions (read for get and search; read and write
 * for insert). Which attachment counts depends on the namespace (the
 * interface: "searches private memory or an explicitly authorized group"):
 * without `group`, the agent's private namespace (agent:<id>), reached only
 * through an attachment of the agent itself; with `group`, the group's shared
 * namespace (group:<id>), reached only through an attachment of that very
 * group while the agent is an active member of it. A group attachment grants
 * the group's namespace and nothing more.
 *
 *   a matching attachment is valid                -> allowed
 *   matching attachments exist, all expired       -> 401 AGENT_CAPABILITY_EXPIRED
 *   otherwise (also: the Mind does not exist)     -> 403 INVALID_AGENT_CAPABILITY
 */
import type { Queryable } from '@gateway-minds/db';
import { ServiceError } from '@gateway-minds/service-kit';
import type { AgentCaller } from '../auth.js';
import type { MindRow } from '../minds/store.js';
import { PERMISSION_READ, PERMISSION_WRITE, type Permission } from '../spec.js';
import { agentNamespace, groupNamespace } from './store.js';

export type AgentNeed = 'read' | 'write';

/** What memory access reads of the Mind: its tenancy and whether it is ready. */
export const ACCESSED_MIND_COLUMNS = ['mind_id', 'organization_id', 'project_id', 'status'] as const satisfies readonly (keyof MindRow)[];
export type AccessedMind = Pick<MindRow, (typeof ACCESSED_MIND_COLUMNS)[number]>;

/** The Mind of the agent's organization (and its project, when the credential is bound to one). */
const AGENT_MIND_SQL = `SELECT ${ACCESSED_MIND_COLUMNS.join(', ')} FROM minds WHERE mind_id = $1 AND organization_id = $2 AND ($3::text IS NULL OR project_id = $3)`;

export interface AgentAccess {
  mind: AccessedMind;
  namespace: string;
}

interface CandidateRow {
  subject_kind: 'agent' | 'group';
  subject_id: string;
  permissions: Permission[];
  expires_at: number;
}

export function invalidCapability(): ServiceError {
  return new ServiceError('INVALID_AGENT_CAPABILITY', 'No active attachment grants this agent the permission on this Mind.');
}

export async function authorizeAgent(db: Queryable, caller: AgentCaller, mindId: string, group: string | null, need: AgentNeed, now = Date.now()): Promise<AgentAccess> {
  const { rows: minds } = await db.query<AccessedMind>(AGENT_MIND_SQL, [mindId, caller.org, caller.project]);
  const mind = minds[0];
  if (!mind) throw invalidCapability();
  const { rows: candidates } = await db.query<CandidateRow>(
    `SELECT a.subject_kind, a.subject_id, a.permissions, a.expires_at
       FROM mind_attachments a
      WHERE a.mind_id = $1 AND a.organization_id = $2 AND a.project_id = $3 AND a.revoked_at IS NULL
        AND ((a.subject_kind = 'agent' AND a.subject_id = $4)
          OR (a.subject_kind = 'group' AND EXISTS (
                SELECT 1 FROM agent_group_members m JOIN agent_groups g ON g.id = m.group_id
                 WHERE m.group_id = a.subject_id AND m.agent_id = $4 AND m.revoked_at IS NULL
                   AND g.organization_id = $2 AND g.revoked_at IS NULL)))`,
    [mind.mind_id, mind.organization_id, mind.project_id, caller.agentId],
  );
  const needed: Permission[] = need === 'write' ? [PERMISSION_READ, PERMISSION_WRITE] : [PERMISSION_READ];
  const grantsNamespace = (c: CandidateRow) => (group === null ? c.subject_kind === 'agent' : c.subject_kind === 'group' && c.subject_id === group);
  const matching = candidates.filter((c) => needed.every((p) => c.permissions.includes(p)) && grantsNamespace(c));
  if (matching.some((c) => c.expires_at > now)) {
    return { mind, namespace: group === null ? agentNamespace(caller.agentId) : groupNamespace(group) };
  }
  if (matching.length > 0) throw new ServiceError('AGENT_CAPABILITY_EXPIRED', 'The attachment granting access to this Mind has expired.');
  throw invalidCapability();
}
