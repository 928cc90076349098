/** Memory operations: the owner's (human session) and the attached agents'. */
import type { Request, Response } from 'express';
import type { Schemas } from '@gateway-minds/contract';
import { ServiceError, requestContext } from '@gateway-minds/service-kit';
import { agentCaller, humanCaller } from '../auth.js';
import type { MindStatus } from '../controller/state.js';
import type { Deps } from '../deps.js';
import { mindNotFound, tenantOf } from '../minds/lifecycle.js';
import { findMind, touchActivity } from '../minds/store.js';
import { SEARCH_LIMIT_DEFAULT, SEARCH_RANKING_WINDOW } from '../spec.js';
import { ACCESSED_MIND_COLUMNS, authorizeAgent, type AccessedMind, type AgentNeed } from './agent-access.js';
import { getEvent, insertEvent, OWNER_NAMESPACE, searchEvents, updateEventContent, type MemoryScope } from './store.js';

/** The status in which a Mind's memory can be used. */
const READY: MindStatus = 'ready';

function requireReady(mind: AccessedMind): void {
  if (mind.status !== READY) {
    throw new ServiceError('MIND_NOT_READY', `The Mind is ${mind.status}, not ready for memory operations.`, { reason: 'mind_not_ready' });
  }
}

function mindQuery(req: Request): string {
  return String(req.query.mind);
}

export function memoryHandlers(deps: Deps) {
  const { db } = deps;

  /**
   * The owner's namespace of a ready Mind of the caller's organization and project. The common case
   * (ready) is one statement that also records the activity; only a refusal reads the Mind again to
   * tell a missing Mind (404) from one that is not ready (409).
   */
  async function ownerScope(req: Request, res: Response): Promise<MemoryScope> {
    const tenant = tenantOf(humanCaller(res));
    const mindId = mindQuery(req);
    if (await touchActivity(db, tenant, mindId, { onlyIf: READY })) {
      return { mindId, org: tenant.org, project: tenant.project, namespace: OWNER_NAMESPACE };
    }
    const mind = await findMind(db, tenant, mindId, { columns: ACCESSED_MIND_COLUMNS });
    if (!mind) throw mindNotFound();
    requireReady(mind);
    await touchActivity(db, tenant, mindId); // it became ready between the two statements
    return { mindId, org: tenant.org, project: tenant.project, namespace: OWNER_NAMESPACE };
  }

  /** The namespace an attached agent may use: capability first (403/401), then readiness (409). */
  async function agentScope(req: Request, res: Response, need: AgentNeed): Promise<MemoryScope> {
    const group = typeof req.query.group === 'string' ? req.query.group : null;
    const { mind, namespace } = await authorizeAgent(db, agentCaller(res), mindQuery(req), group, need);
    requireReady(mind);
    await touchActivity(db, { org: mind.organization_id, project: mind.project_id }, mind.mind_id);
    return { mindId: mind.mind_id, org: mind.organization_id, project: mind.project_id, namespace };
  }

  async function insert(scope: MemoryScope, req: Request, res: Response): Promise<void> {
    const { event } = req.body as Schemas['InsertEpisodicMemoryRequest'];
    const body: Schemas['InsertEpisodicMemoryResult'] = { id: await insertEvent(db, scope, event) };
    res.json(body);
  }

  async function get(scope: MemoryScope, res: Response): Promise<void> {
    const body: Schemas['MemoryReadResult'] = { item: await getEvent(db, scope, requestContext(res).pathParams.storage_id!) };
    res.json(body);
  }

  async function search(scope: MemoryScope, req: Request, res: Response, rankingWindow: number): Promise<void> {
    const { text, limit } = req.body as Schemas['SearchMemoryRequest'];
    const body: Schemas['MemorySearchResults'] = { items: await searchEvents(db, scope, text, limit ?? SEARCH_LIMIT_DEFAULT, rankingWindow) };
    res.json(body);
  }

  return {
    minds_insertEpisodicMemory: async (req: Request, res: Response) => insert(await ownerScope(req, res), req, res),
    minds_getEpisodicMemory: async (req: Request, res: Response) => get(await ownerScope(req, res), res),
    minds_searchMemory: async (req: Request, res: Response) => search(await ownerScope(req, res), req, res, SEARCH_RANKING_WINDOW.owner),
    minds_updateEpisodicMemory: async (req: Request, res: Response) => {
      const scope = await ownerScope(req, res);
      const { event_id, content } = req.body as Schemas['UpdateEpisodicMemoryRequest'];
      const outcome = await updateEventContent(db, scope, requestContext(res).pathParams.storage_id!, event_id, content);
      if (outcome === 'not_found') throw new ServiceError('NOT_FOUND', 'No event with this storage id in the Mind.', { reason: 'memory_not_found' });
      if (outcome === 'event_id_mismatch') throw new ServiceError('EVENT_ID_MISMATCH', 'event_id is not the id of the event stored under this storage id.');
      const body: Schemas['UpdateEpisodicMemoryResult'] = { ok: true };
      res.json(body);
    },
    minds_agentInsertEpisodicMemory: async (req: Request, res: Response) => insert(await agentScope(req, res, 'write'), req, res),
    minds_agentGetEpisodicMemory: async (req: Request, res: Response) => get(await agentScope(req, res, 'read'), res),
    minds_agentSearchMemory: async (req: Request, res: Response) => search(await agentScope(req, res, 'read'), req, res, SEARCH_RANKING_WINDOW.agent),
  };
}
