/**
 * Durable replay of writes named by the caller: the Idempotency-Key of
 * createMind / resumeMind / stopMind and the body `operationId` of the
 * owner-management writes. One mechanism for both:
 *
 * In ONE transaction, the record (caller scope + key, operation, fingerprint
 * of the request) is inserted first, then the work runs, then the response is
 * stored on the record; COMMIT publishes both together. A concurrent request
 * with the same key blocks on the primary key until the first commits (or
 * rolls back), so exactly one executes; the others then find the committed
 * record and replay its response, byte for byte. A refused request (any
 * ServiceError thrown by the work) rolls back and records nothing.
 *
 * Keys are scoped to the caller: organization, project and principal.
 */
import type { Database, Queryable } from '@gateway-minds/db';
import { ServiceError } from '@gateway-minds/service-kit';
import { canonicalJson, sha256Hex } from './canonical.js';

export interface ReplayStore {
  table: 'idempotency_records' | 'owner_operations';
  keyColumn: 'idempotency_key' | 'operation_id';
  /** INVALID_REQUEST reason when the key comes back with another request. */
  reusedReason: 'idempotency_key_reused' | 'operation_id_reused';
}

export const IDEMPOTENCY_KEYS: ReplayStore = { table: 'idempotency_records', keyColumn: 'idempotency_key', reusedReason: 'idempotency_key_reused' };
export const OPERATION_IDS: ReplayStore = { table: 'owner_operations', keyColumn: 'operation_id', reusedReason: 'operation_id_reused' };

export interface ReplayScope {
  org: string;
  project: string;
  principal: string;
  key: string;
}

export interface StoredResponse {
  status: number;
  /** The JSON text first sent; replays send exactly this. */
  body: string;
  replayed: boolean;
}

/** What makes two requests "the same": the operation, its path parameters and its body. */
export function requestFingerprint(operation: string, pathParams: Record<string, string>, body: unknown): string {
  return sha256Hex(canonicalJson({ operation, pathParams, body }));
}

interface RecordRow {
  operation: string;
  fingerprint: string;
  response_status: number | null;
  response_body: string | null;
}

async function findRecord(db: Queryable, store: ReplayStore, scope: ReplayScope): Promise<RecordRow | undefined> {
  const { rows } = await db.query<RecordRow>(
    `SELECT operation, fingerprint, response_status, response_body FROM ${store.table}
      WHERE organization_id = $1 AND project_id = $2 AND principal = $3 AND ${store.keyColumn} = $4`,
    [scope.org, scope.project, scope.principal, scope.key],
  );
  return rows[0];
}

function replayOf(store: ReplayStore, record: RecordRow, operation: string, fingerprint: string): StoredResponse {
  if (record.operation !== operation || record.fingerprint !== fingerprint) {
    throw new ServiceError('INVALID_REQUEST', 'This key was already used with a different request.', { reason: store.reusedReason });
  }
  if (record.response_status === null || record.response_body === null) throw new Error('committed replay record without a response');
  return { status: record.response_status, body: record.response_body, replayed: true };
}

/**
 * Looks for a committed record without taking part in a transaction: lets a
 * caller resolve a replay before doing slow work (an HTTP lookup) that a
 * replay would not need. Returns undefined when the key is new.
 */
export async function findReplay(db: Queryable, store: ReplayStore, scope: ReplayScope, operation: string, fingerprint: string): Promise<StoredResponse | undefined> {
  const record = await findRecord(db, store, scope);
  return record ? replayOf(store, record, operation, fingerprint) : undefined;
}

/** Runs `work` at most once per key; see the module comment. */
export async function runOnce(
  db: Database,
  store: ReplayStore,
  scope: ReplayScope,
  operation: string,
  fingerprint: string,
  work: (tx: Queryable) => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  return db.transaction(async (tx) => {
    const reserved = await tx.query(
      `INSERT INTO ${store.table} (organization_id, project_id, principal, ${store.keyColumn}, operation, fingerprint)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [scope.org, scope.project, scope.principal, scope.key, operation, fingerprint],
    );
    if (reserved.rowCount === 0) {
      // Another request with this key committed first (this INSERT waited for it).
      const record = await findRecord(tx, store, scope);
      if (!record) throw new Error('replay record vanished');
      return replayOf(store, record, operation, fingerprint);
    }
    const result = await work(tx);
    const body = JSON.stringify(result.body);
    await tx.query(
      `UPDATE ${store.table} SET response_status = $5, response_body = $6
        WHERE organization_id = $1 AND project_id = $2 AND principal = $3 AND ${store.keyColumn} = $4`,
      [scope.org, scope.project, scope.principal, scope.key, result.status, body],
    );
    return { status: result.status, body, replayed: false };
  });
}
