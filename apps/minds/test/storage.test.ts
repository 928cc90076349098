/**
 * The storage-level suite, on PGlite and, when TEST_DATABASE_URL is set, on
 * PostgreSQL (a fresh schema per run, dropped at the end), where concurrent
 * transactions really overlap: durable replay under concurrency, racing
 * expectedVersion writers, ranked search, the usage computation, and two
 * controller replicas sharing one database.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, type Queryable } from '@gateway-minds/db';
import { createLogger } from '@gateway-minds/service-kit';
import { MindsController } from '../src/controller/controller.js';
import { insertEvent, searchEvents, type MemoryScope } from '../src/memory/store.js';
import { MIND_READS_PER_STATEMENT, mindViewReader } from '../src/minds/store.js';
import { IDEMPOTENCY_KEYS, runOnce } from '../src/replay.js';
import { MINDS_PAGE_COST } from '../src/service.js';
import { admissionSettings, SEARCH_RANKING_WINDOW } from '../src/spec.js';
import { readUsage } from '../src/usage.js';
import { cleanUp, contextOf, createMind, drivers, human, startHarness, waitForMind, type Harness } from './support/harness.js';
import { insertInterval, insertMindRow, insertTelemetry } from './support/rows.js';

afterAll(async () => {
  await cleanUp();
});

describe.each(drivers)('storage on %s', (driver) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ driver, admissions: Object.fromEntries(admissionSettings.map((name) => [name, true])), hostProvisionMs: 30, hostStopMs: 20 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('durable replay: 20 concurrent runs with one key execute the work once and all return its response', async () => {
    const db = h.service.db;
    const scope = { org: 'org_store', project: 'prj_store', principal: 'usr_store', key: randomUUID() };
    let executions = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        runOnce(db, IDEMPOTENCY_KEYS, scope, 'test_op', 'fingerprint-1', async (tx) => {
          executions++;
          await tx.query('SELECT pg_sleep(0.02)'); // widen the window in which the others arrive
          return { status: 202, body: { execution: executions, at: Date.now() } };
        }),
      ),
    );
    expect(executions).toBe(1);
    expect(new Set(results.map((r) => r.body)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    await expect(runOnce(db, IDEMPOTENCY_KEYS, scope, 'test_op', 'fingerprint-2', async () => ({ status: 202, body: {} }))).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { reason: 'idempotency_key_reused' },
    });
    // A failed run records nothing: the key is free again.
    const fresh = { ...scope, key: randomUUID() };
    await expect(runOnce(db, IDEMPOTENCY_KEYS, fresh, 'test_op', 'f', async () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect((await runOnce(db, IDEMPOTENCY_KEYS, fresh, 'test_op', 'f', async () => ({ status: 202, body: { ok: 1 } }))).replayed).toBe(false);
  });

  it('20 parallel createMind with one Idempotency-Key make one Mind', async () => {
    const who = human({ org: `org_${driver}`, project: 'prj_idem' });
    const key = randomUUID();
    const context = await contextOf(h, who);
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.call('POST', '/v1/minds/services', { as: who, body: { name: 'Sandbox once' }, headers: { 'idempotency-key': key, 'x-platform-minds-creation-context': context } }),
      ),
    );
    expect(new Set(replies.map((r) => `${r.status} ${r.text}`)).size).toBe(1);
    expect(replies[0]!.status).toBe(202);
    const { rows } = await h.service.db.query(`SELECT mind_id FROM minds WHERE organization_id = $1 AND project_id = $2`, [who.org, who.project]);
    expect(rows).toHaveLength(1);
  });

  it('racing expectedVersion writers: exactly one wins, for attachments and for members', async () => {
    const owner = human({ org: 'org_race', project: 'prj_race' });
    const mindId = (await createMind(h, owner, { name: 'Sandbox raced' })).body.mind_id;
    const agent = h.iam.add('org_race');
    const attachOnce = (expectedVersion: number, expiresAt: number) =>
      h.call('POST', `/v1/minds/${mindId}/attachments`, {
        as: owner,
        body: { operationId: randomUUID(), expectedVersion, subject: { kind: 'agent', agentId: agent.id }, permissions: ['minds.agent_data.read'], expiresAt },
      });
    for (const expectedVersion of [0, 1, 2]) {
      const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => attachOnce(expectedVersion, Date.now() + 3_600_000 + i)));
      expect(replies.filter((r) => r.status === 200), `expectedVersion ${expectedVersion}`).toHaveLength(1);
      for (const r of replies.filter((r) => r.status !== 200)) expect(r.body.error).toMatchObject({ code: 'INVALID_REQUEST', reason: 'version_mismatch' });
    }
    const { rows } = await h.service.db.query<{ version: number }>(`SELECT version FROM mind_attachments WHERE mind_id = $1`, [mindId]);
    expect(rows).toEqual([{ version: 3 }]);

    const group = (await h.call('POST', '/v1/minds/agent-groups', { as: owner, body: { operationId: randomUUID(), name: 'Racers' } })).body.id;
    const adds = await Promise.all(
      Array.from({ length: 12 }, () => h.call('POST', `/v1/minds/agent-groups/${group}/members`, { as: owner, body: { operationId: randomUUID(), expectedVersion: 0, agentId: agent.id } })),
    );
    expect(adds.filter((r) => r.status === 200)).toHaveLength(1);
    const removes = await Promise.all(
      Array.from({ length: 12 }, () => h.call('DELETE', `/v1/minds/agent-groups/${group}/members/${agent.id}`, { as: owner, body: { operationId: randomUUID(), expectedVersion: 1 } })),
    );
    expect(removes.filter((r) => r.status === 200)).toHaveLength(1);
    // The same operationId sent concurrently executes once and replays the same result.
    const operationId = randomUUID();
    const same = await Promise.all(
      Array.from({ length: 8 }, () => h.call('POST', '/v1/minds/agent-groups', { as: owner, body: { operationId, name: 'Once' } })),
    );
    expect(new Set(same.map((r) => r.text)).size).toBe(1);
    const { rows: groups } = await h.service.db.query(`SELECT id FROM agent_groups WHERE owner_id = $1 AND name = 'Once'`, [owner.principal]);
    expect(groups).toHaveLength(1);
  });

  it('ranked full-text search: most relevant first, deterministic ties, scoped to the namespace', async () => {
    const db = h.service.db;
    const mindId = await insertMindRow(db, { org: 'org_fts', project: 'prj_fts', createdAt: new Date() });
    const scope: MemoryScope = { mindId, org: 'org_fts', project: 'prj_fts', namespace: 'owner' };
    const event = (content: string, extra: Record<string, unknown> = {}) => ({ id: randomUUID(), content, timestamp: '2026-11-21T12:00:00Z', ...extra });
    const best = event('Invoice reconciliation failed twice; invoice totals mismatch in the reconciliation job.', { summary: 'invoice reconciliation failure', tags: ['invoice'] });
    const good = event('The invoice reconciliation job ran.');
    const weak = event('Sent an invoice to ACME.');
    for (const e of [weak, good, best]) await insertEvent(db, scope, e);
    for (let i = 0; i < 300; i++) await insertEvent(db, scope, event(`Background note ${i} about quarterly planning and hiring.`));
    await insertEvent(db, { ...scope, namespace: 'agent:a_01JD3MA2B3C4D5E6F7G8H9J0KM' }, event('invoice reconciliation invoice reconciliation (agent namespace)'));

    const started = performance.now();
    const hits = await searchEvents(db, scope, 'invoice reconciliation', 20, SEARCH_RANKING_WINDOW.owner);
    const elapsed = performance.now() - started;
    expect(hits.map((h) => h.id)).toEqual([best.id, good.id]);
    expect((await searchEvents(db, scope, 'invoice', 20, SEARCH_RANKING_WINDOW.owner)).map((h) => h.id)).toEqual([best.id, good.id, weak.id]);
    // Stemming: "reconciling" finds "reconciliation"? English stems differ; "failures" finds "failed"'s stem "fail".
    expect((await searchEvents(db, scope, 'failures', 20, SEARCH_RANKING_WINDOW.owner)).map((h) => h.id)).toEqual([best.id]);
    const planning = await searchEvents(db, scope, 'planning', 100, SEARCH_RANKING_WINDOW.owner);
    expect(planning).toHaveLength(100);
    expect((await searchEvents(db, scope, 'planning', 100, SEARCH_RANKING_WINDOW.owner)).map((h) => h.id)).toEqual(planning.map((h) => h.id));
    expect(await searchEvents(db, scope, 'the and of', 20, SEARCH_RANKING_WINDOW.owner)).toEqual([]); // stop words only
    console.info(`[${driver}] search over ${303} events: ${elapsed.toFixed(1)} ms`);
  });

  it('equally relevant events come newest first, also when stored within one clock tick (DECISIONS "Search order and its cost")', async () => {
    // "ties go to the newer event, then the storage id": PGlite's now() moves in whole milliseconds,
    // so events stored back to back share created_at and the storage id alone must order them.
    const db = h.service.db;
    const mindId = await insertMindRow(db, { org: 'org_tie', project: 'prj_tie', createdAt: new Date() });
    const scope: MemoryScope = { mindId, org: 'org_tie', project: 'prj_tie', namespace: 'owner' };
    const inserted: string[] = [];
    for (let i = 0; i < 40; i++) {
      const id = randomUUID();
      await insertEvent(db, scope, { id, content: 'Identical standup note.', timestamp: '2026-11-25T09:00:00Z' });
      inserted.push(id);
    }
    const { rows } = await db.query<{ ticks: number }>('SELECT count(DISTINCT created_at)::int AS ticks FROM memory_events WHERE mind_id = $1', [mindId]);
    console.info(`[${driver}] 40 events stored in ${rows[0]!.ticks} distinct created_at values`);
    const hits = await searchEvents(db, scope, 'standup', 40, SEARCH_RANKING_WINDOW.owner);
    expect(hits.map((hit) => hit.id)).toEqual([...inserted].reverse());
  });

  it("plans with the service's page cost in every session, transactions included", async () => {
    const db = h.service.db;
    const setting = `SELECT current_setting('seq_page_cost') AS seq, current_setting('random_page_cost') AS random`;
    const expected = { seq: String(MINDS_PAGE_COST), random: String(MINDS_PAGE_COST) };
    expect((await db.query(setting)).rows[0]).toEqual(expected);
    expect((await db.transaction((tx) => tx.query(setting))).rows[0]).toEqual(expected);
  });

  it('usage from ledger rows: allocations, pro-rated telemetry, and every incomplete reason', async () => {
    const db = h.service.db;
    // The rows below are written by hand; the service's own controller would
    // reconcile them (an uncertain Mind gets observed again) while the report is read.
    await h.service.controller.stop();
    const T0 = new Date('2026-01-10T00:00:00Z').getTime();
    const at = (minutes: number) => new Date(T0 + minutes * 60_000);
    const now = at(120);
    const tenant = { org: `org_usage_${driver}`, project: 'prj_usage' };
    const mind = async (name: string, input: Partial<Parameters<typeof insertMindRow>[1]> = {}) => {
      const id = await insertMindRow(db, { ...tenant, name, createdAt: at(-60), hostReportedAt: at(119), ...input });
      return { id, ...tenant };
    };
    const complete = await mind('complete', { desired: 'stopped', observed: 'stopped', status: 'stopped' });
    await insertInterval(db, complete, at(10), at(20));
    await insertTelemetry(db, complete, at(10), at(20), 150);
    const running = await mind('running');
    await insertInterval(db, running, at(30), null);
    await insertTelemetry(db, running, at(-30), at(30), 100); // straddles the window's start
    const openAfterStop = await mind('open after stop', { desired: 'stopped', observed: 'stopped', status: 'stopped' });
    await insertInterval(db, openAfterStop, at(40), null);
    const uncertain = await mind('uncertain', { observed: 'uncertain', status: 'uncertain', hostReportedAt: at(5) });
    const failed = await mind('failed', { observed: 'failed', status: 'failed' });
    await insertInterval(db, failed, at(50), null);
    const noLedger = await mind('no ledger');
    const silent = await mind('silent', { hostReportedAt: at(30) });
    await insertInterval(db, silent, at(0), null);
    const otherProject = await insertMindRow(db, { org: tenant.org, project: 'prj_other', createdAt: at(-60) });

    const report = await readUsage(db, tenant, { from: at(0), to: at(60), fromText: at(0).toISOString(), toText: at(60).toISOString() }, { hostReportStaleMs: 60_000, now });
    const entry = (id: string) => report.minds.find((m) => m.mind_id === id)!;
    expect(report.minds.map((m) => m.mind_id)).not.toContain(otherProject);
    expect(report.minds).toHaveLength(7);

    expect(entry(complete.id)).toMatchObject({
      compute_seconds: 600, vcpu_seconds: 1200, memory_mb_seconds: 600 * 4096, storage_gb_seconds: 3600 * 20,
      measured: { kind: 'reported', reported_through: at(20).toISOString(), cpu_seconds: 150 },
      metering_compute: false, complete: true, incomplete_reason: null,
    });
    expect(entry(running.id)).toMatchObject({
      compute_seconds: 1800, vcpu_seconds: 3600, metering_compute: true, complete: true,
      measured: { kind: 'reported', reported_through: at(30).toISOString(), cpu_seconds: 50 },
    });
    expect(entry(openAfterStop.id)).toMatchObject({ compute_seconds: 1200, complete: false, incomplete_reason: 'ledger_open_after_stop' });
    expect(entry(uncertain.id)).toMatchObject({ complete: false, incomplete_reason: 'host_state_uncertain', measured: { kind: 'not_reported', reason: 'never_reported' } });
    expect(entry(failed.id)).toMatchObject({ compute_seconds: 600, complete: false, incomplete_reason: 'compute_unconfirmed_after_failure' });
    expect(entry(noLedger.id)).toMatchObject({ compute_seconds: 0, complete: false, incomplete_reason: 'running_without_ledger_interval', metering_compute: false });
    expect(entry(silent.id)).toMatchObject({ compute_seconds: 3600, complete: false, incomplete_reason: 'host_not_reporting' });

    // A window reaching past now is reported up to now, not with zeros for the future (DECISIONS.md,
    // "A usage window reaching past now"): its `to` is measured_at, and the figures are those of from..now.
    const ahead = await readUsage(db, tenant, { from: at(60), to: at(180), fromText: at(60).toISOString(), toText: at(180).toISOString() }, { hostReportStaleMs: 60_000, now });
    expect({ to: ahead.to, measured_at: ahead.measured_at }).toEqual({ to: now.toISOString(), measured_at: now.toISOString() });
    expect(ahead.minds.find((m) => m.mind_id === complete.id)).toMatchObject({ compute_seconds: 0, storage_gb_seconds: 3600 * 20, complete: true });
    expect(ahead.minds.find((m) => m.mind_id === running.id)).toMatchObject({ compute_seconds: 3600, metering_compute: true });

    // A window after the stop reports the closed interval as nothing, and telemetry as unknown rather than zero.
    const later = await readUsage(db, tenant, { from: at(60), to: at(90), fromText: '', toText: '' }, { hostReportStaleMs: 60_000, now });
    expect(later.minds.find((m) => m.mind_id === complete.id)).toMatchObject({
      compute_seconds: 0, storage_gb_seconds: 1800 * 20, complete: true, measured: { kind: 'not_reported', reason: 'no_report_in_window' },
    });
  });

  // DECISIONS "Mind reads gathered per turn": reads made in one turn share one statement. Each still
  // meets only its own tenant's Mind: interface "Minds lifecycle", minds_getMind "Mind must be owned
  // by the verified organization and project"; DECISIONS "Missing or foreign resources".
  it('Mind reads of one turn go out as one statement, and each read gets its own tenant\'s Mind or nothing', async () => {
    const db = h.service.db;
    const owner = { org: 'org_gather', project: 'prj_gather' };
    const other = { org: 'org_gather_other', project: 'prj_gather' };
    const ownMind = await insertMindRow(db, { ...owner, name: 'Gathered one', createdAt: new Date() });
    const otherMind = await insertMindRow(db, { ...other, name: 'Gathered two', createdAt: new Date() });
    const statements: string[] = [];
    let unreachable = false; // the database as a lost connection leaves it
    const counted: Queryable = {
      query: (sql, params, options) => {
        statements.push(sql);
        if (unreachable) return Promise.reject(new DatabaseUnavailableError(new Error('Connection terminated unexpectedly')));
        return db.query(sql, params, options);
      },
    };
    const read = mindViewReader(counted);

    const answers = await Promise.all([
      read({ tenant: owner, mindId: ownMind }),
      read({ tenant: other, mindId: otherMind }),
      read({ tenant: other, mindId: ownMind }), // another organization's Mind
      read({ tenant: { ...owner, project: 'prj_elsewhere' }, mindId: ownMind }), // another project's
      read({ tenant: owner, mindId: ownMind }), // the same read twice in one turn
      read({ tenant: owner, mindId: randomUUID() }), // no such Mind
    ]);
    expect(statements).toHaveLength(1);
    expect(answers.map((mind) => mind?.name)).toEqual(['Gathered one', 'Gathered two', undefined, undefined, 'Gathered one', undefined]);
    expect(answers[0]).toMatchObject({ mind_id: ownMind, organization_id: owner.org, project_id: owner.project, status: 'ready' });

    // A lone read and the next turn: each goes to the database again (nothing is kept).
    statements.length = 0;
    await db.query('UPDATE minds SET name = $2 WHERE mind_id = $1', [ownMind, 'Renamed']);
    expect((await read({ tenant: owner, mindId: ownMind }))?.name).toBe('Renamed');
    expect(statements).toHaveLength(1);

    // More reads than one statement takes: as many statements as needed, every answer in its place.
    statements.length = 0;
    const many = await Promise.all(Array.from({ length: MIND_READS_PER_STATEMENT + 1 }, (_, i) => read({ tenant: i % 2 ? owner : other, mindId: i % 2 ? ownMind : otherMind })));
    expect(statements).toHaveLength(2);
    expect(many.every((mind, i) => mind?.mind_id === (i % 2 ? ownMind : otherMind))).toBe(true);

    // A read the database refuses (an id that is not a UUID) fails the shared statement: the others
    // are then read one by one and answered, and only that read is refused.
    statements.length = 0;
    const [good, bad] = await Promise.allSettled([read({ tenant: owner, mindId: ownMind }), read({ tenant: owner, mindId: 'not-a-uuid' })]);
    expect(good).toMatchObject({ status: 'fulfilled', value: { mind_id: ownMind } });
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: '22P02' } });
    expect(statements).toHaveLength(3);

    // An unreachable database refuses every gathered read at once, with no read tried again alone.
    statements.length = 0;
    unreachable = true;
    const refused = await Promise.allSettled([read({ tenant: owner, mindId: ownMind }), read({ tenant: other, mindId: otherMind })]);
    expect(refused.map((answer) => answer.status === 'rejected' && answer.reason instanceof DatabaseUnavailableError)).toEqual([true, true]);
    expect(statements).toHaveLength(1);
  });

  it('two controller replicas on one database reconcile every Mind once', async () => {
    const second = new MindsController(h.service.db, h.service.host, { tickMs: 10, heartbeatMs: 200, leaseMs: 5000, logger: createLogger('replica-2') });
    second.start();
    try {
      const owner = human({ org: `org_replicas_${driver}`, project: 'prj_replicas' });
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await createMind(h, owner, { name: `Sandbox r${i}` })).body.mind_id);
      for (const id of ids) await waitForMind(h, owner, id, 'ready');
      for (const id of ids.slice(0, 3)) {
        await h.call('POST', `/v1/minds/services/${id}/stop`, { as: owner, body: { expected_generation: 1 }, headers: { 'idempotency-key': randomUUID() } });
      }
      for (const id of ids.slice(0, 3)) await waitForMind(h, owner, id, 'stopped');
      const { rows } = await h.service.db.query<{ mind_id: string; n: number; open: number }>(
        `SELECT mind_id, count(*)::int AS n, count(*) FILTER (WHERE ended_at IS NULL)::int AS open FROM mind_running_intervals WHERE mind_id = ANY(string_to_array($1, ',')::uuid[]) GROUP BY mind_id`,
        [ids.join(',')],
      );
      expect(rows).toHaveLength(6);
      for (const row of rows) {
        expect(row.n).toBe(1);
        expect(row.open).toBe(ids.slice(0, 3).includes(row.mind_id) ? 0 : 1);
      }
    } finally {
      await second.stop();
    }
  });
});
