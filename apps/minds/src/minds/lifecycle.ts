/** Mind lifecycle: list, create, read, resume, stop. */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Queryable } from '@gateway-minds/db';
import type { Schemas } from '@gateway-minds/contract';
import { ServiceError, requestContext } from '@gateway-minds/service-kit';
import { humanCaller, type HumanCaller } from '../auth.js';
import { contextSha256 } from '../canonical.js';
import { CHANGED_LANE } from '../controller/controller.js';
import { deriveStatus } from '../controller/state.js';
import { notifyWork } from '../controller/wake-ups.js';
import type { Deps } from '../deps.js';
import { IDEMPOTENCY_KEYS, requestFingerprint, runOnce, type StoredResponse } from '../replay.js';
import { CREATION_CONTEXT_HEADER, IDEMPOTENCY_HEADER, LIST_LIMIT_DEFAULT, MAX_MINDS_PER_SANDBOX, SCHEMA_VERSION } from '../spec.js';
import { resolveCapacity } from './profiles.js';
import { findMind, lockAndCountSandboxMinds, MIND_VIEW_COLUMNS, mindExists, mindViewReader, toMind, type MindRow, type MindView, type Tenant } from './store.js';

/** The services every Mind runs (the interface's examples: memory). */
export const MIND_SERVICES = ['memory'];
/** stop_reason of a Mind stopped by its owner (usage report). */
export const OWNER_STOP = 'owner_stop';

export function tenantOf(caller: { org: string; project: string }): Tenant {
  return { org: caller.org, project: caller.project };
}

export function mindNotFound(): ServiceError {
  return new ServiceError('NOT_FOUND', 'No such Mind in the selected organization and project.', { reason: 'mind_not_found' });
}

/** Sends a stored (first or replayed) response: same status, same JSON text. */
export function sendStored(res: Response, stored: StoredResponse): void {
  res.status(stored.status).json(JSON.parse(stored.body));
}

function header(req: Request, name: string): string {
  return String(req.headers[name] ?? '');
}

function replayScope(caller: HumanCaller, key: string) {
  return { org: caller.org, project: caller.project, principal: caller.principal, key };
}

/** A page of the tenant's Minds after the cursor, oldest first: the columns the list shows. */
const LIST_SQL = `
  SELECT ${MIND_VIEW_COLUMNS.join(', ')} FROM minds
   WHERE organization_id = $1 AND project_id = $2
     AND ($3::uuid IS NULL OR (created_at, mind_id) > (
           SELECT created_at, mind_id FROM minds WHERE mind_id = $3 AND organization_id = $1 AND project_id = $2))
   ORDER BY created_at, mind_id
   LIMIT $4`;

export function lifecycleHandlers(deps: Deps) {
  const { db } = deps;
  const readMindView = mindViewReader(db);

  async function listMinds(req: Request, res: Response): Promise<void> {
    const caller = humanCaller(res);
    const limit = req.query.limit === undefined ? LIST_LIMIT_DEFAULT : Number(req.query.limit);
    const after = typeof req.query.after === 'string' ? req.query.after : null;
    if (after) {
      if (!(await mindExists(db, tenantOf(caller), after))) throw new ServiceError('INVALID_QUERY', '`after` is not a Mind of this list.', { reason: 'cursor_not_found' });
    }
    const { rows } = await db.query<MindView>(LIST_SQL, [caller.org, caller.project, after, limit + 1]);
    const page = rows.slice(0, limit);
    const body: Schemas['MindList'] = {
      schema_version: SCHEMA_VERSION,
      items: page.map(toMind),
      next_cursor: rows.length > limit ? page[page.length - 1]!.mind_id : null,
      context_sha256: contextSha256(caller),
    };
    res.json(body);
  }

  async function createMind(req: Request, res: Response): Promise<void> {
    const caller = humanCaller(res);
    if (header(req, CREATION_CONTEXT_HEADER) !== contextSha256(caller)) {
      throw new ServiceError('ORIGINAL_CONTEXT_MISMATCH', 'The creation context is not the verified selection of this session; list the Minds again.');
    }
    const { operationId } = requestContext(res).operation;
    const body = req.body as Schemas['CreateMindRequest'];
    const key = header(req, IDEMPOTENCY_HEADER);
    const stored = await runOnce(db, IDEMPOTENCY_KEYS, replayScope(caller, key), operationId, requestFingerprint(operationId, {}, body), async (tx) => {
      const { plan, capacity } = resolveCapacity(body.plan, body.profile_id);
      if ((await lockAndCountSandboxMinds(tx, tenantOf(caller), caller.sandbox)) >= MAX_MINDS_PER_SANDBOX) {
        throw new ServiceError('SANDBOX_CREATE_NOT_ADMITTED', `This Sandbox already holds ${MAX_MINDS_PER_SANDBOX} Minds, the most it admits.`, { reason: 'sandbox_mind_limit' });
      }
      const mindId = randomUUID();
      const { rows } = await tx.query<MindRow>(
        `INSERT INTO minds (mind_id, organization_id, project_id, workspace_id, sandbox_id, created_by, name, region, plan,
           profile_id, cpus, memory_mb, volume_size_gb, services, volume_id, base_url,
           desired_state, desired_generation, observed_state, observed_generation, status, operation_id, last_activity_at, created_at, updated_at,
           due_lane, due_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
           'running', 1, 'pending', 0, $17, $18, now(), now(), now(), ${CHANGED_LANE}, now())
         RETURNING *`,
        [
          mindId, caller.org, caller.project, caller.workspace, caller.sandbox, caller.principal, body.name, deps.region, plan,
          capacity.profile_id, capacity.cpus, capacity.memory_mb, capacity.volume_size_gb, JSON.stringify(MIND_SERVICES), randomUUID(),
          deps.mindBaseUrl(mindId), deriveStatus('running', 'pending', 1, 0), key,
        ],
      );
      await notifyWork(tx);
      return { status: 202, body: toMind(rows[0]!) };
    });
    deps.desiredStateChanged();
    sendStored(res, stored);
  }

  async function getMind(_req: Request, res: Response): Promise<void> {
    const caller = humanCaller(res);
    const mind = await readMindView({ tenant: tenantOf(caller), mindId: requestContext(res).pathParams.mind_id! });
    if (!mind) throw mindNotFound();
    res.json(toMind(mind));
  }

  /** Resume and stop: replay first, then the generation check, then the new desired state. */
  async function changeDesiredState(req: Request, res: Response, apply: (tx: Queryable, mind: MindRow, key: string) => Promise<MindRow>): Promise<void> {
    const caller = humanCaller(res);
    const { operation, pathParams } = requestContext(res);
    const body = req.body as { expected_generation: number };
    const key = header(req, IDEMPOTENCY_HEADER);
    const fingerprint = requestFingerprint(operation.operationId, pathParams, body);
    const stored = await runOnce(db, IDEMPOTENCY_KEYS, replayScope(caller, key), operation.operationId, fingerprint, async (tx) => {
      const mind = await findMind(tx, tenantOf(caller), pathParams.mind_id!, { forUpdate: true });
      if (!mind) throw mindNotFound();
      if (mind.desired_generation !== body.expected_generation) {
        throw new ServiceError('MIND_NOT_READY', "expected_generation does not match the Mind's desired_generation; read the Mind again.", {
          reason: 'generation_mismatch',
        });
      }
      const changed = await apply(tx, mind, key);
      await notifyWork(tx);
      return { status: 202, body: toMind(changed) };
    });
    deps.desiredStateChanged();
    sendStored(res, stored);
  }

  async function resumeMind(req: Request, res: Response): Promise<void> {
    const body = req.body as Schemas['ResumeMindRequest'];
    await changeDesiredState(req, res, async (tx, mind, key) => {
      const generation = mind.desired_generation + 1;
      const { rows } = await tx.query<MindRow>(
        `UPDATE minds SET desired_state = 'running', desired_generation = $2, observed_state = 'pending', status = $3,
           wake_reason = $4, stop_reason = NULL, operation_id = $5, last_activity_at = now(), updated_at = GREATEST(now(), updated_at),
           due_lane = ${CHANGED_LANE}, due_at = now()
         WHERE mind_id = $1 RETURNING *`,
        [mind.mind_id, generation, deriveStatus('running', 'pending', generation, mind.observed_generation), body.wake_reason ?? null, key],
      );
      return rows[0]!;
    });
  }

  async function stopMind(req: Request, res: Response): Promise<void> {
    await changeDesiredState(req, res, async (tx, mind, key) => {
      const generation = mind.desired_generation + 1;
      const { rows } = await tx.query<MindRow>(
        `UPDATE minds SET desired_state = 'stopped', desired_generation = $2, status = $3,
           stop_reason = $4, wake_reason = NULL, operation_id = $5, last_activity_at = now(), updated_at = GREATEST(now(), updated_at),
           due_lane = ${CHANGED_LANE}, due_at = now()
         WHERE mind_id = $1 RETURNING *`,
        [mind.mind_id, generation, deriveStatus('stopped', mind.observed_state, generation, mind.observed_generation), OWNER_STOP, key],
      );
      return rows[0]!;
    });
  }

  return {
    minds_listMinds: listMinds,
    minds_createMind: createMind,
    minds_getMind: getMind,
    minds_resumeMind: resumeMind,
    minds_stopMind: stopMind,
  };
}
