/**
 * What must hold after the Minds process was killed and started again:
 *
 *   - every acknowledged insert is readable by its storage id with the content,
 *     summary, tags, type and timestamp that were sent;
 *   - every acknowledged stop/resume is reflected in desired_generation and
 *     desired_state, and replaying its Idempotency-Key returns the original
 *     answer byte for byte without changing the Mind again;
 *   - an unacknowledged stop/resume is resolved the way the contract says
 *     (retry with the same key): it either had committed (the replay returns
 *     its answer, the generation does not move again) or not (the retry
 *     applies it now, once);
 *   - in the database itself: no memory row that nobody sent, none that is
 *     not exactly what was sent, none missing for an acknowledged insert; no
 *     idempotency record without its response (a half-applied reservation);
 *     each Mind's generations produced exactly once each.
 */
import type { Database } from '@gateway-minds/db';
import type { HttpClient, RawAnswer, RawRequest } from '../hostile/client.js';
import { pool } from '../hostile/client.js';
import type { InsertAttempt, Ledger, LifecycleAttempt, LifecycleMind } from './workload.js';

export interface RecoveryCounts {
  acknowledged: number;
  recovered: number;
  lost: number;
  /** Unacknowledged (unknown outcome) attempts, and how many had in fact committed. */
  unknown: number;
  unknownCommitted: number;
}

/** Reads are safe to retry; so is a POST with its Idempotency-Key. A 5xx right after a restart is retried. */
async function sendRetrying(client: HttpClient, request: RawRequest, tries = 6): Promise<RawAnswer> {
  let last: RawAnswer | Error = new Error('not sent');
  for (let i = 0; i < tries; i++) {
    last = await client.send(request).catch((error: Error) => error);
    if (!(last instanceof Error) && last.status < 500) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (last instanceof Error) throw last;
  return last;
}

const sameEvent = (item: any, event: InsertAttempt['event']): boolean =>
  item !== null &&
  item !== undefined &&
  item.id === event.id &&
  item.content === event.content &&
  item.timestamp === event.timestamp &&
  item.event_type === event.event_type &&
  item.summary === event.summary &&
  JSON.stringify(item.tags) === JSON.stringify(event.tags);

export async function verifyInserts(client: HttpClient, token: string, ledger: Ledger): Promise<{ counts: RecoveryCounts; problems: string[] }> {
  const acknowledged = ledger.inserts.filter((a) => a.outcome === 'acknowledged');
  const problems: string[] = [];
  const results = await pool(acknowledged, 8, async (attempt) => {
    const answer = await sendRetrying(client, {
      method: 'GET',
      path: `/v1/minds/memory/episodic/${attempt.storageId}?mind=${attempt.mindId}`,
      headers: { authorization: `Bearer ${token}` },
    });
    const ok = answer.status === 200 && sameEvent(answer.json?.item, attempt.event);
    if (!ok) problems.push(`insert ${attempt.event.id} (storage ${attempt.storageId}) acknowledged, now: ${answer.status} ${answer.text.slice(0, 200)}`);
    return ok;
  });
  const recovered = results.filter(Boolean).length;
  const unknown = ledger.inserts.filter((a) => a.outcome === 'unknown').length;
  return { counts: { acknowledged: acknowledged.length, recovered, lost: acknowledged.length - recovered, unknown, unknownCommitted: 0 }, problems };
}

export async function verifyLifecycle(
  client: HttpClient,
  token: string,
  ledger: Ledger,
  minds: LifecycleMind[],
): Promise<{ counts: RecoveryCounts; problems: string[] }> {
  const problems: string[] = [];
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const read = async (mindId: string) => (await sendRetrying(client, { method: 'GET', path: `/v1/minds/services/${mindId}`, headers })).json;
  const replay = (attempt: LifecycleAttempt) =>
    sendRetrying(client, { method: 'POST', path: `/v1/minds/services/${attempt.mindId}/${attempt.action}`, headers: { ...headers, 'idempotency-key': attempt.key }, body: JSON.stringify(attempt.body) });
  let unknown = 0;
  let unknownCommitted = 0;

  for (const mind of minds) {
    const current = await read(mind.mindId);
    if (mind.uncertain) {
      const pending = ledger.lifecycle.filter((a) => a.mindId === mind.mindId && a.outcome === 'unknown').at(-1)!;
      const expected = pending.body.expected_generation;
      const target = pending.action === 'stop' ? 'stopped' : 'running';
      unknown++;
      const committed = current.desired_generation === expected + 1;
      if (committed) unknownCommitted++;
      if (!committed && current.desired_generation !== expected) problems.push(`${mind.mindId}: generation ${current.desired_generation}, expected ${expected} or ${expected + 1}`);
      if (committed && current.desired_state !== target) problems.push(`${mind.mindId}: ${pending.action} committed (generation ${expected + 1}) but desired_state is ${current.desired_state}`);
      if (!committed && current.desired_state !== mind.state) problems.push(`${mind.mindId}: ${pending.action} not committed but desired_state is ${current.desired_state}, was ${mind.state}`);
      // The contract's recovery: retry with the same key. Committed: its answer comes back; not committed: it applies now.
      const retried = await replay(pending);
      if (retried.status !== 202 || retried.json?.desired_generation !== expected + 1 || retried.json?.desired_state !== target) {
        problems.push(`${mind.mindId}: retrying ${pending.action} ${pending.key}: ${retried.status} ${retried.text.slice(0, 200)}`);
      }
      const again = await replay(pending);
      if (again.text !== retried.text) problems.push(`${mind.mindId}: a second retry of ${pending.key} answered differently`);
      const after = await read(mind.mindId);
      if (after.desired_generation !== expected + 1) problems.push(`${mind.mindId}: after the retries desired_generation is ${after.desired_generation}, expected ${expected + 1} (applied more than once?)`);
      pending.outcome = 'acknowledged';
      pending.text = retried.text;
      pending.json = retried.json;
      (pending as LifecycleAttempt & { resolved?: string }).resolved = committed ? 'committed before the kill' : 'applied on retry';
      mind.generation = expected + 1;
      mind.state = target;
      mind.uncertain = false;
    } else if (current.desired_generation !== mind.generation || current.desired_state !== mind.state) {
      problems.push(`${mind.mindId}: desired ${current.desired_state}@${current.desired_generation}, acknowledged ${mind.state}@${mind.generation}`);
    }
  }

  // Every key answered so far, including those resolved by a retry in an earlier cycle, replays its first answer.
  const answered = ledger.lifecycle.filter((a) => a.outcome === 'acknowledged');
  const results = await pool(answered, 8, async (attempt) => {
    const answer = await replay(attempt);
    const ok = answer.status === 202 && answer.text === attempt.text;
    if (!ok) problems.push(`${attempt.action} ${attempt.key} on ${attempt.mindId}: replay answered ${answer.status} ${answer.text.slice(0, 160)}, first ${attempt.text?.slice(0, 160)}`);
    return ok;
  });
  const firstTry = answered.map((attempt, i) => ({ attempt, ok: results[i]! })).filter(({ attempt }) => !(attempt as { resolved?: string }).resolved);
  for (const mind of minds) {
    const current = await read(mind.mindId);
    if (current.desired_generation !== mind.generation) problems.push(`${mind.mindId}: replays moved desired_generation to ${current.desired_generation} (was ${mind.generation})`);
  }
  const recovered = firstTry.filter(({ ok }) => ok).length;
  return { counts: { acknowledged: firstTry.length, recovered, lost: firstTry.length - recovered, unknown, unknownCommitted }, problems };
}

export interface StorageCounts {
  rows: number;
  acknowledgedInserts: number;
  unknownInserts: number;
  unknownPresent: number;
  /** Rows nobody sent, or not exactly what was sent. */
  halfApplied: number;
  incompleteReservations: number;
}

/** The database itself, read directly once no Minds process holds it. */
export async function verifyStorage(db: Database, ledger: Ledger, minds: LifecycleMind[]): Promise<{ counts: StorageCounts; problems: string[] }> {
  const problems: string[] = [];
  const byEventId = new Map(ledger.inserts.map((a) => [a.event.id, a]));
  const { rows } = await db.query<{ storage_id: string; mind_id: string; event_id: string; content: string; summary: string | null; tags: string[]; event_type: string; event_timestamp: string; namespace: string; has_search: boolean }>(
    `SELECT storage_id, mind_id, event_id, content, summary, tags, event_type, event_timestamp, namespace, search IS NOT NULL AS has_search FROM memory_events`,
  );
  const seen = new Set<string>();
  let unknownPresent = 0;
  let halfApplied = 0;
  for (const row of rows) {
    const attempt = byEventId.get(row.event_id);
    if (!attempt) {
      problems.push(`memory row ${row.storage_id} (event ${row.event_id}) that nobody inserted`);
      halfApplied++;
      continue;
    }
    if (seen.has(row.event_id)) problems.push(`event ${row.event_id} stored twice`);
    seen.add(row.event_id);
    const whole =
      row.mind_id === attempt.mindId &&
      row.namespace === 'owner' &&
      row.content === attempt.event.content &&
      row.summary === attempt.event.summary &&
      JSON.stringify(row.tags) === JSON.stringify(attempt.event.tags) &&
      row.event_type === attempt.event.event_type &&
      row.event_timestamp === attempt.event.timestamp &&
      row.has_search;
    if (!whole) {
      problems.push(`memory row ${row.storage_id} is not what was sent (half-applied?)`);
      halfApplied++;
    }
    if (attempt.outcome === 'acknowledged' && row.storage_id !== attempt.storageId) problems.push(`event ${row.event_id} stored as ${row.storage_id}, acknowledged as ${attempt.storageId}`);
    if (attempt.outcome === 'refused') problems.push(`event ${row.event_id} was refused but is stored`);
    if (attempt.outcome === 'unknown') unknownPresent++;
  }
  const acknowledgedInserts = ledger.inserts.filter((a) => a.outcome === 'acknowledged');
  for (const attempt of acknowledgedInserts) if (!seen.has(attempt.event.id)) problems.push(`acknowledged insert ${attempt.event.id} is not in the database`);
  const expectedRows = acknowledgedInserts.length + unknownPresent;
  if (rows.length !== expectedRows) problems.push(`memory_events holds ${rows.length} rows, expected ${expectedRows} (acknowledged + unacknowledged that committed)`);

  const incomplete = await db.query<{ n: number }>(`SELECT count(*) AS n FROM idempotency_records WHERE response_status IS NULL OR response_body IS NULL`);
  const incompleteReservations = incomplete.rows[0]!.n;
  if (incompleteReservations) problems.push(`${incompleteReservations} idempotency records without their response`);

  const records = await db.query<{ operation: string; response_body: string }>(`SELECT operation, response_body FROM idempotency_records`);
  const generations = new Map<string, number[]>();
  for (const record of records.rows) {
    const body = JSON.parse(record.response_body) as { mind_id: string; desired_generation: number };
    generations.set(body.mind_id, [...(generations.get(body.mind_id) ?? []), body.desired_generation]);
  }
  const stored = await db.query<{ mind_id: string; desired_generation: number; desired_state: string }>(`SELECT mind_id, desired_generation, desired_state FROM minds`);
  for (const mind of minds) {
    const row = stored.rows.find((r) => r.mind_id === mind.mindId);
    if (!row || row.desired_generation !== mind.generation || row.desired_state !== mind.state) {
      problems.push(`minds row of ${mind.mindId}: ${row?.desired_state}@${row?.desired_generation}, expected ${mind.state}@${mind.generation}`);
    }
    const produced = (generations.get(mind.mindId) ?? []).sort((a, b) => a - b);
    const expected = Array.from({ length: mind.generation }, (_, i) => i + 1);
    if (JSON.stringify(produced) !== JSON.stringify(expected)) problems.push(`${mind.mindId}: generations recorded ${JSON.stringify(produced)}, expected each of 1..${mind.generation} once`);
  }
  return {
    counts: { rows: rows.length, acknowledgedInserts: acknowledgedInserts.length, unknownInserts: ledger.inserts.filter((a) => a.outcome === 'unknown').length, unknownPresent, halfApplied, incompleteReservations },
    problems,
  };
}
