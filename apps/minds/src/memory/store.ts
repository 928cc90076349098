/**
 * Episodic memory storage, shared by the owner's and the agents' operations.
 * Every statement is scoped by Mind, organization, project and namespace:
 *   owner          the Mind owner's memory (human sessions)
 *   agent:<a_…>    an agent's private memory in the Mind
 *   group:<agp_…>  a group's shared namespace in the Mind
 */
import { v7 as uuidv7 } from 'uuid';
import type { Queryable } from '@gateway-minds/db';
import type { Schemas } from '@gateway-minds/contract';
import { DEFAULT_EVENT_TYPE, type EventType } from '../spec.js';

export const OWNER_NAMESPACE = 'owner';
export const agentNamespace = (agentId: string) => `agent:${agentId}`;
export const groupNamespace = (groupId: string) => `group:${groupId}`;

export interface MemoryScope {
  mindId: string;
  org: string;
  project: string;
  namespace: string;
}

export type MemoryItem = Schemas['MemoryItem'];
export type SearchHit = Schemas['MemorySearchHit'];

export interface EventInput {
  id: string;
  content: string;
  timestamp: string;
  event_type?: EventType;
  summary?: string | null;
  tags?: string[];
}

interface EventRow {
  storage_id: string;
  event_id: string;
  content: string;
  event_timestamp: string;
  event_type: EventType;
  summary: string | null;
  tags: string[];
  created_at: Date;
  updated_at: Date;
}

/** What a read returns: not the scope columns, nor the search vector (costly to send). */
const EVENT_COLUMNS = ['storage_id', 'event_id', 'content', 'event_timestamp', 'event_type', 'summary', 'tags', 'created_at', 'updated_at'] as const satisfies readonly (keyof EventRow)[];

const SCOPE = 'mind_id = $1 AND organization_id = $2 AND project_id = $3 AND namespace = $4';
const GET_EVENT_SQL = `SELECT ${EVENT_COLUMNS.join(', ')} FROM memory_events WHERE ${SCOPE} AND storage_id = $5`;
const scopeParams = (s: MemoryScope) => [s.mindId, s.org, s.project, s.namespace];

/**
 * Stores the event under a new storage id (never the caller's event id) and returns it. Storage ids
 * are UUIDv7 (RFC 9562 §5.7), ordered by when they were made and, within one millisecond, by a
 * counter: where two events share created_at (PGlite's clock moves in whole milliseconds) the one
 * stored later still sorts as the newer (spec/DECISIONS.md, "Search order and its cost").
 */
export async function insertEvent(db: Queryable, scope: MemoryScope, event: EventInput): Promise<string> {
  const storageId = uuidv7();
  await db.query(
    `INSERT INTO memory_events (storage_id, mind_id, organization_id, project_id, namespace, event_id, content, event_timestamp,
       event_type, summary, tags, created_at, updated_at)
     VALUES ($5, $1, $2, $3, $4, $6, $7, $8, $9, $10, $11::jsonb, now(), now())`,
    [...scopeParams(scope), storageId, event.id, event.content, event.timestamp, event.event_type ?? DEFAULT_EVENT_TYPE, event.summary ?? null, JSON.stringify(event.tags ?? [])],
  );
  return storageId;
}

export async function getEvent(db: Queryable, scope: MemoryScope, storageId: string): Promise<MemoryItem | null> {
  const { rows } = await db.query<EventRow>(GET_EVENT_SQL, [...scopeParams(scope), storageId]);
  const row = rows[0];
  if (!row) return null;
  return { storage_id: row.storage_id, ...toHit(row), created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

/** The event fields a search hit and a read share. */
function toHit(row: EventRow): SearchHit {
  return { id: row.event_id, content: row.content, timestamp: row.event_timestamp, event_type: row.event_type, summary: row.summary, tags: row.tags };
}

/**
 * Replaces the content of a stored event in place (same storage id, every other field kept)
 * and moves updated_at forward (by at least a millisecond, so that it visibly changes).
 * The event id must match the stored one. Last write wins.
 */
export async function updateEventContent(db: Queryable, scope: MemoryScope, storageId: string, eventId: string, content: string): Promise<'updated' | 'not_found' | 'event_id_mismatch'> {
  const updated = await db.query(
    `UPDATE memory_events SET content = $7, updated_at = GREATEST(clock_timestamp(), updated_at + interval '1 millisecond')
      WHERE ${SCOPE} AND storage_id = $5 AND event_id = $6`,
    [...scopeParams(scope), storageId, eventId, content],
  );
  if (updated.rowCount > 0) return 'updated';
  const { rowCount } = await db.query(`SELECT 1 FROM memory_events WHERE ${SCOPE} AND storage_id = $5`, [...scopeParams(scope), storageId]);
  return rowCount > 0 ? 'event_id_mismatch' : 'not_found';
}

/**
 * Ranked full-text search over the generated, GIN-indexed `search` tsvector,
 * with `websearch_to_tsquery` (quotes, `or`, `-` as on search engines).
 *
 * Relevance (ts_rank, best first) is computed for the newest `rankingWindow`
 * matching events only (x-ranking-window in the spec). Ranking every match
 * costs O(matches): 280 ms for a word in 12% of a million events, measured.
 * With the window, the planner either walks the (mind, namespace, created_at)
 * index newest first and stops after the window's worth of matches (common
 * words), or reads the few matches from the GIN index (rare words); both are
 * bounded. It chooses by its cost estimates, which price page reads as in
 * memory on the Minds database (MINDS_PAGE_COST in service.ts explains why).
 * Ties go to the newer event, then the storage id, so the order is
 * deterministic.
 */
export const SEARCH_SQL = `
  SELECT c.event_id, c.content, c.event_timestamp, c.event_type, c.summary, c.tags
    FROM (SELECT e.event_id, e.content, e.event_timestamp, e.event_type, e.summary, e.tags, e.search, e.created_at, e.storage_id
            FROM memory_events e
           WHERE e.mind_id = $1 AND e.organization_id = $2 AND e.project_id = $3 AND e.namespace = $4
             AND e.search @@ websearch_to_tsquery('english', $5)
           ORDER BY e.created_at DESC, e.storage_id DESC
           LIMIT $7) c
   ORDER BY ts_rank(c.search, websearch_to_tsquery('english', $5)) DESC, c.created_at DESC, c.storage_id DESC
   LIMIT $6`;

export const searchParams = (scope: MemoryScope, text: string, limit: number, rankingWindow: number) => [...scopeParams(scope), text, limit, rankingWindow];

export async function searchEvents(db: Queryable, scope: MemoryScope, text: string, limit: number, rankingWindow: number): Promise<SearchHit[]> {
  // The plan depends on the words searched for (see SEARCH_SQL): never one generic plan for all.
  const { rows } = await db.query<EventRow>(SEARCH_SQL, searchParams(scope, text, limit, rankingWindow), { planEachCall: true });
  return rows.map(toHit);
}
