/**
 * The controller's work queue, on PGlite and, when TEST_DATABASE_URL is set, on PostgreSQL: changed
 * work is claimed ahead of due heartbeats, heartbeats oldest due first and each once per heartbeat,
 * and a replica that stops answering mid-claim has its Minds taken over when its lease runs out,
 * with one ledger interval per run. Ticks are driven by hand (`tick()`), so nothing depends on timing.
 * The interface is silent on the controller's order of work: spec/DECISIONS.md, "Controller work order"
 * and "Controller" (leases, apply once per generation and idempotent).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '@gateway-minds/db';
import { createLogger } from '@gateway-minds/service-kit';
import { CHANGED_LANE, HEARTBEAT_LANE, MindsController, type ControllerOptions } from '../src/controller/controller.js';
import type { HostDriver, HostObservation, HostSpec } from '../src/controller/host.js';
import { SimulatedHost } from '../src/controller/simulated-host.js';
import { WorkListener } from '../src/controller/wake-ups.js';
import { cleanUp, createMind, drivers, human, postgresUrl, startHarness, waitForMind, type Harness } from './support/harness.js';

afterAll(async () => {
  await cleanUp();
});

/** The service's own host, with a record of what the controller asked it, and a gate that can hold observations back. */
class RecordingHost implements HostDriver {
  readonly applied: string[] = [];
  readonly observed: string[] = [];
  #gate: Promise<void> = Promise.resolve();
  #open: () => void = () => {};

  constructor(private readonly inner: HostDriver) {}

  /** Observations wait until release(): the replica stops answering mid-claim. */
  hold(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  release(): void {
    this.#open();
  }

  async apply(spec: HostSpec): Promise<void> {
    this.applied.push(spec.mindId);
    await this.inner.apply(spec);
  }

  async observe(mindId: string): Promise<HostObservation> {
    this.observed.push(mindId);
    await this.#gate;
    return this.inner.observe(mindId);
  }
}

/** Running Minds whose heartbeats are all overdue, written straight into the database with their simulated host instances. Ids oldest due first. */
async function seedOverdueRunningMinds(db: Database, tenant: { org: string; project: string }, count: number): Promise<string[]> {
  await db.query(
    `INSERT INTO minds (mind_id, organization_id, project_id, created_by, name, region, plan, profile_id, cpus, memory_mb, volume_size_gb,
       services, volume_id, base_url, desired_state, desired_generation, observed_state, observed_generation, host_requested_generation,
       status, capacity_applied, host_reported_at, volume_provisioned_at, created_at, updated_at, due_lane, due_at)
     SELECT gen_random_uuid(), $1, $2, 'usr_test', 'Sandbox running ' || i, 'local', 'pro', 'D1', 2, 4096, 20,
       '["memory"]', gen_random_uuid(), 'https://x.minds.localhost', 'running', 1, 'running', 1, 1,
       'ready', true, now() - interval '1 hour', now() - interval '2 hours', now() - interval '2 hours', now() - interval '2 hours',
       ${HEARTBEAT_LANE}, now() - interval '1 hour' + i * interval '1 millisecond'
     FROM generate_series(1, $3::int) AS i`,
    [tenant.org, tenant.project, count],
  );
  await db.query(
    `INSERT INTO simulated_host_instances (mind_id, generation, target_state, from_state, from_generation, requested_at, due_at,
       cpus, memory_mb, volume_size_gb, profile_id, volume_created_at)
     SELECT mind_id, 1, 'running', 'absent', 0, created_at, created_at, cpus, memory_mb, volume_size_gb, profile_id, created_at
       FROM minds WHERE organization_id = $1 AND project_id = $2`,
    [tenant.org, tenant.project],
  );
  const { rows } = await db.query<{ mind_id: string }>(`SELECT mind_id FROM minds WHERE organization_id = $1 AND project_id = $2 ORDER BY due_at`, [tenant.org, tenant.project]);
  return rows.map((row) => row.mind_id);
}

const replica = (h: Harness, host: HostDriver, options: Partial<ControllerOptions> = {}) =>
  new MindsController(h.service.db, host, { batchSize: 20, tickMs: 3_600_000, heartbeatMs: 3_600_000, leaseMs: 60_000, logger: createLogger('controller-test'), ...options });

describe.each(drivers)('controller queue on %s', (driver) => {
  let h: Harness;
  // A harness per test: each counts on no other Mind being due. Started in the hook, whose timeout is longer.
  beforeEach(async () => {
    h = await startHarness({ driver, controller: { enabled: false } });
  });
  afterEach(async () => {
    await h?.close();
  });

  // DECISIONS "Controller work order": changed work before heartbeats, each oldest due first.
  it('claims a new Mind in the first tick ahead of 500 overdue heartbeats, and heartbeats oldest due first, each once per heartbeat', async () => {
    const running = await seedOverdueRunningMinds(h.service.db, { org: 'org_queue', project: 'prj_queue' }, 500);
    const owner = human({ org: 'org_queue', project: 'prj_new' });
    const created = await createMind(h, owner, { name: 'Sandbox new' });
    expect(created.status).toBe(202);
    const newMind = created.body.mind_id as string;

    // A host that provisions for an hour: the new Mind is still on its way after the tick, whatever the machine's speed.
    const host = new RecordingHost(new SimulatedHost(h.service.db, { provisionMs: 3_600_000, stopMs: 0 }));
    const controller = replica(h, host);
    expect(await controller.tick()).toBe(20);
    expect(host.applied).toEqual([newMind]);
    expect(host.observed).toContain(newMind);
    // The rest of the batch: the heartbeats that have waited longest.
    expect(host.observed.filter((id) => id !== newMind).sort()).toEqual(running.slice(0, 19).sort());

    const { rows } = await h.service.db.query<{ mind_id: string; due_lane: number; due_later: boolean; lease_owner: string | null }>(
      `SELECT mind_id, due_lane, due_at > now() AS due_later, lease_owner FROM minds WHERE mind_id = ANY($1::uuid[])`,
      [`{${host.observed.join(',')}}`],
    );
    expect(rows).toHaveLength(20);
    for (const row of rows) {
      // Every claim is written back and let go; a checked heartbeat is due again only after its heartbeat.
      expect(row).toMatchObject({ due_later: true, lease_owner: null, due_lane: row.mind_id === newMind ? CHANGED_LANE : HEARTBEAT_LANE });
    }

    // The next tick takes the next 20 heartbeats, none of those just checked.
    const first = new Set(host.observed);
    host.observed.length = 0;
    expect(await controller.tick()).toBe(20);
    expect(host.observed.sort()).toEqual(running.slice(19, 39).sort());
    expect(host.observed.some((id) => first.has(id))).toBe(false);
  }, 120_000);

  // DECISIONS "Controller work order": a claim's due time is the end of its lease; "Controller": apply is idempotent per generation.
  it("takes over a replica's Minds when its lease runs out, applies again without harm, and records one run per Mind", async () => {
    const owner = human({ org: 'org_takeover', project: 'prj_takeover' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createMind(h, owner, { name: `Sandbox takeover ${i}` })).body.mind_id);

    // Replica A claims all three, hands generation 1 to the host, and stops answering before it writes.
    const stalled = new RecordingHost(h.service.host);
    stalled.hold();
    const a = replica(h, stalled);
    const aTick = a.tick();
    const leased = async () =>
      (await h.service.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM minds WHERE lease_owner = $1`, [a.replicaId])).rows[0]!.n;
    while ((await leased()) < 3 || stalled.observed.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stalled.applied.sort()).toEqual([...ids].sort());

    // Replica B finds nothing to claim while A's lease holds.
    const b = replica(h, new RecordingHost(h.service.host), { tickMs: 10 });
    expect(await b.tick()).toBe(0);

    // A's lease runs out (set in the database rather than waited for): B takes the Minds over and brings them to ready.
    await h.service.db.query(`UPDATE minds SET lease_until = now() - interval '1 millisecond', due_at = now() - interval '1 millisecond' WHERE lease_owner = $1`, [a.replicaId]);
    b.start();
    try {
      for (const id of ids) await waitForMind(h, owner, id, 'ready');
    } finally {
      await b.stop();
    }

    // A answers at last: its writes find the lease gone and change nothing.
    const before = await h.service.db.query(`SELECT * FROM minds WHERE mind_id = ANY($1::uuid[]) ORDER BY mind_id`, [`{${ids.join(',')}}`]);
    stalled.release();
    expect(await aTick).toBe(3);
    const after = await h.service.db.query(`SELECT * FROM minds WHERE mind_id = ANY($1::uuid[]) ORDER BY mind_id`, [`{${ids.join(',')}}`]);
    expect(after.rows).toEqual(before.rows);

    const { rows } = await h.service.db.query<{ mind_id: string; runs: number; open: number }>(
      `SELECT mind_id, count(*)::int AS runs, count(*) FILTER (WHERE ended_at IS NULL)::int AS open
         FROM mind_running_intervals WHERE mind_id = ANY($1::uuid[]) GROUP BY mind_id`,
      [`{${ids.join(',')}}`],
    );
    expect(rows.map((row) => ({ runs: row.runs, open: row.open }))).toEqual(ids.map(() => ({ runs: 1, open: 1 })));
  }, 120_000);
});

// DECISIONS "Controller work order": on PostgreSQL a desired-state change wakes every replica's controller.
describe.runIf(postgresUrl)('controller wake-ups on postgres', () => {
  it('a create or stop made through any replica wakes the listeners of its schema, and only of its schema', async () => {
    const h = await startHarness({ driver: 'postgres', controller: { enabled: false } });
    const schema = (await h.service.db.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0]!.schema;
    let wakes = 0;
    const listener = new WorkListener(postgresUrl!, schema, () => wakes++, createLogger('wake-ups-test'));
    const woken = async (count: number) => {
      while (wakes < count) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(wakes).toBe(count);
    };
    try {
      await listener.start();
      expect(wakes).toBe(1); // once on listening, for whatever changed before
      // Another schema's notice first: notifications arrive in commit order, so the create's wakes it once, not twice.
      await h.service.db.query(`SELECT pg_notify('minds_work', 'minds_some_other_schema')`);
      const owner = human({ org: 'org_wake', project: 'prj_wake' });
      const mind = (await createMind(h, owner, { name: 'Sandbox woken' })).body;
      await woken(2);
      const stopped = await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { as: owner, body: { expected_generation: 1 }, headers: { 'idempotency-key': randomUUID() } });
      expect(stopped.status).toBe(202);
      await woken(3);
    } finally {
      await listener.close();
      await h.close();
    }
  }, 120_000);
});
