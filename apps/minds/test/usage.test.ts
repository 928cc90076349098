/** getUsage over real HTTP: numbers consistent with the controller's ledger, window rules, tenancy. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, human, readyMind, startHarness, waitForMind, type Harness } from './support/harness.js';

let h: Harness;
const owner = human({ org: 'org_use', project: 'prj_use' });

beforeAll(async () => {
  h = await startHarness({ hostProvisionMs: 40, hostStopMs: 30, controller: { heartbeatMs: 50 } });
});
afterAll(async () => {
  await h?.close();
  await cleanUp();
});

const usage = (from: string, to: string, who = owner) => h.call('GET', `/v1/minds/usage?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, { as: who });

describe('usage', () => {
  it('reports host-confirmed intervals: compute, vCPU, memory and storage seconds agree with the ledger', async () => {
    const from = new Date(Date.now() - 60_000).toISOString();
    const mind = await readyMind(h, owner, { name: 'Sandbox metered', plan: 'pro' });
    await new Promise((resolve) => setTimeout(resolve, 250)); // let it run, with heartbeats
    await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { as: owner, body: { expected_generation: 1 }, headers: { 'idempotency-key': randomUUID() } });
    await waitForMind(h, owner, mind.mind_id, 'stopped');
    const to = new Date(Date.now() + 60_000).toISOString();

    const reply = await usage(from, to);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ schema_version: 'minds.controller.v1', organization_id: 'org_use', project_id: 'prj_use', from, basis: 'host_confirmed_intervals' });
    // `to` was a minute ahead: the report ends at measured_at (DECISIONS.md, "A usage window reaching past now").
    expect(reply.body.to).toBe(reply.body.measured_at);
    const entry = reply.body.minds.find((m: any) => m.mind_id === mind.mind_id);

    const { rows: intervals } = await h.service.db.query<{ started_at: Date; ended_at: Date }>(`SELECT started_at, ended_at FROM mind_running_intervals WHERE mind_id = $1`, [mind.mind_id]);
    expect(intervals).toHaveLength(1);
    const seconds = (intervals[0]!.ended_at.getTime() - intervals[0]!.started_at.getTime()) / 1000;
    expect(seconds).toBeGreaterThan(0.2);
    const { rows: minds } = await h.service.db.query<{ volume_provisioned_at: Date }>(`SELECT volume_provisioned_at FROM minds WHERE mind_id = $1`, [mind.mind_id]);
    const measuredAt = Date.parse(reply.body.measured_at);
    const storageSeconds = (measuredAt - minds[0]!.volume_provisioned_at.getTime()) / 1000;

    expect(entry).toMatchObject({
      name: 'Sandbox metered',
      profile_id: 'D1',
      desired_state: 'stopped',
      observed_state: 'stopped',
      stop_reason: 'owner_stop',
      compute_seconds: seconds,
      vcpu_seconds: seconds * 2,
      memory_mb_seconds: Math.round(seconds * 4096 * 1000) / 1000,
      metering_compute: false,
      complete: true,
      incomplete_reason: null,
    });
    expect(entry.storage_gb_seconds).toBeCloseTo(storageSeconds * 20, 0);
    expect(entry.measured.kind).toBe('reported');
    // The simulated host burns 25% of its vCPUs while running.
    expect(entry.measured.cpu_seconds).toBeCloseTo(seconds * 2 * 0.25, 1);
    expect(entry.last_activity_at).not.toBeNull();

    // A window before the Mind existed reports nothing for it; one that cuts the interval counts the part inside.
    const before = await usage(new Date(Date.now() - 7_200_000).toISOString(), new Date(Date.now() - 3_600_000).toISOString());
    expect(before.body.minds.map((m: any) => m.mind_id)).not.toContain(mind.mind_id);
    const mid = new Date(intervals[0]!.started_at.getTime() + 100);
    const half = await usage(mid.toISOString(), to);
    const cut = half.body.minds.find((m: any) => m.mind_id === mind.mind_id);
    expect(cut.compute_seconds).toBeCloseTo(seconds - 0.1, 3);
  });

  it('a running Mind is metered up to now, with an open interval', async () => {
    const mind = await readyMind(h, owner, { name: 'Sandbox running' });
    const reply = await usage(new Date(Date.now() - 60_000).toISOString(), new Date(Date.now() + 60_000).toISOString());
    const entry = reply.body.minds.find((m: any) => m.mind_id === mind.mind_id);
    expect(entry).toMatchObject({ desired_state: 'running', observed_state: 'running', metering_compute: true, complete: true, stop_reason: null });
    expect(entry.compute_seconds).toBeGreaterThan(0);
  });

  it('the window must be positive and at most 93 days: INVALID_QUERY window_invalid', async () => {
    const t = Date.parse('2026-11-21T12:00:00Z');
    const iso = (ms: number) => new Date(ms).toISOString();
    for (const [from, to] of [[t, t], [t, t - 1000], [t, t + 93 * 86_400_000 + 1000]]) {
      const reply = await usage(iso(from!), iso(to!));
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({ code: 'INVALID_QUERY', reason: 'window_invalid' });
    }
    expect((await usage(iso(t), iso(t + 93 * 86_400_000))).status).toBe(200);
    expect((await usage('2026-11-21T12:00:00+02:00', '2026-11-21T12:00:00Z')).status).toBe(200);
    const missing = await h.call('GET', `/v1/minds/usage?from=${iso(t)}`, { as: owner });
    expect(missing.body.error.code).toBe('INVALID_QUERY');
    const malformed = await usage('yesterday', iso(t));
    expect(malformed.body.error.code).toBe('INVALID_QUERY');
  });

  it('another project sees none of these Minds', async () => {
    const reply = await usage(new Date(Date.now() - 3_600_000).toISOString(), new Date(Date.now() + 60_000).toISOString(), human({ org: 'org_use', project: 'prj_else' }));
    expect(reply.status).toBe(200);
    expect(reply.body.minds).toEqual([]);
  });
});
