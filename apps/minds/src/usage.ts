/**
 * Usage of the Minds of one organization and project over a window, from
 * host-confirmed intervals (basis `host_confirmed_intervals`):
 *
 *   compute_seconds     time inside the window covered by running intervals
 *                       (an open interval counts up to now)
 *   vcpu_seconds        the same, weighted by the interval's vCPUs
 *   memory_mb_seconds   weighted by its memory
 *   storage_gb_seconds  the retained volume's size over the part of the window
 *                       after the host confirmed the volume (volumes are never deleted)
 *   measured            host CPU telemetry: `reported` (CPU seconds of the reported
 *                       periods inside the window, a period cut by the window counted
 *                       pro rata, and how far the reports reach) or `not_reported`
 *                       (never_reported / no_report_in_window): unknown, never zero
 *   metering_compute    an interval is open (compute is being metered now)
 *   complete            false with the first reason that applies, in this order:
 *     host_state_uncertain              the Mind is uncertain
 *     compute_unconfirmed_after_failure failed with an interval still open
 *     running_without_ledger_interval   running without an open interval
 *     ledger_open_after_stop            stopped with an interval still open
 *     host_not_reporting                running, host silent for longer than hostReportStaleMs
 *   An uncertain or silent host makes incomplete the windows that reach past its
 *   last report; an open interval the windows it overlaps; a running Mind without
 *   an interval the windows that reach past the end of its last interval.
 *
 * A window reaching past now is reported up to now (its `to` becomes measured_at).
 */
import type { Queryable } from '@gateway-minds/db';
import type { Schemas } from '@gateway-minds/contract';
import type { MindRow, Tenant } from './minds/store.js';
import { SCHEMA_VERSION, USAGE_BASIS } from './spec.js';

export type UsageEntry = Schemas['MindUsageEntry'];
export type UsageReport = Schemas['MindUsageReport'];

export interface IntervalRecord {
  mind_id: string;
  cpus: number;
  memory_mb: number;
  started_at: Date;
  ended_at: Date | null;
}

export interface TelemetryRecord {
  mind_id: string;
  period_start: Date;
  period_end: Date;
  cpu_seconds: number;
}

export interface UsageWindow {
  from: Date;
  to: Date;
}

type UsageMind = Pick<
  MindRow,
  'mind_id' | 'name' | 'profile_id' | 'desired_state' | 'observed_state' | 'stop_reason' | 'last_activity_at' | 'volume_size_gb' | 'volume_provisioned_at' | 'host_reported_at' | 'created_at'
> & {
  /** The end of the Mind's last closed ledger interval (any window), or null. */
  ledger_last_end: Date | null;
};

function overlapSeconds(start: Date, end: Date, window: UsageWindow): number {
  const s = Math.max(start.getTime(), window.from.getTime());
  const e = Math.min(end.getTime(), window.to.getTime());
  return Math.max(0, e - s) / 1000;
}

/** Seconds with millisecond precision, without binary noise (0.1 + 0.2). */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** One Mind's usage entry: a pure function of its row, ledger and telemetry. */
export function usageEntry(
  mind: UsageMind,
  intervals: IntervalRecord[],
  telemetry: TelemetryRecord[],
  everReported: boolean,
  window: UsageWindow,
  now: Date,
  hostReportStaleMs: number,
): UsageEntry {
  let compute = 0;
  let vcpu = 0;
  let memory = 0;
  for (const interval of intervals) {
    const seconds = overlapSeconds(interval.started_at, interval.ended_at ?? now, window);
    compute += seconds;
    vcpu += seconds * interval.cpus;
    memory += seconds * interval.memory_mb;
  }
  const storage = mind.volume_provisioned_at ? overlapSeconds(mind.volume_provisioned_at, now, window) * mind.volume_size_gb : 0;

  let measured: UsageEntry['measured'];
  const reported = telemetry.filter((t) => t.period_start < window.to && t.period_end > window.from);
  if (reported.length > 0) {
    let cpu = 0;
    let through = 0;
    for (const period of reported) {
      const length = period.period_end.getTime() - period.period_start.getTime();
      const inside = overlapSeconds(period.period_start, period.period_end, window) * 1000;
      cpu += length > 0 ? (period.cpu_seconds * inside) / length : period.cpu_seconds;
      through = Math.max(through, Math.min(period.period_end.getTime(), window.to.getTime()));
    }
    measured = { kind: 'reported', reported_through: new Date(through).toISOString(), cpu_seconds: round(cpu) };
  } else {
    measured = { kind: 'not_reported', reason: everReported ? 'no_report_in_window' : 'never_reported' };
  }

  const open = intervals.find((i) => i.ended_at === null);
  const lastCertain = mind.host_reported_at ?? mind.created_at;
  const presentInWindow = window.to > lastCertain;
  const openInWindow = open !== undefined && open.started_at < window.to;
  let incomplete: UsageEntry['incomplete_reason'] = null;
  if (mind.observed_state === 'uncertain' && presentInWindow) incomplete = 'host_state_uncertain';
  else if (mind.observed_state === 'failed' && openInWindow) incomplete = 'compute_unconfirmed_after_failure';
  else if (mind.observed_state === 'running' && !open && window.to > (mind.ledger_last_end ?? mind.created_at)) incomplete = 'running_without_ledger_interval';
  else if (mind.observed_state === 'stopped' && openInWindow) incomplete = 'ledger_open_after_stop';
  else if (mind.observed_state === 'running' && presentInWindow && (!mind.host_reported_at || now.getTime() - mind.host_reported_at.getTime() > hostReportStaleMs)) {
    incomplete = 'host_not_reporting';
  }

  return {
    mind_id: mind.mind_id,
    name: mind.name,
    profile_id: mind.profile_id,
    desired_state: mind.desired_state,
    observed_state: mind.observed_state,
    stop_reason: mind.stop_reason,
    last_activity_at: mind.last_activity_at?.toISOString() ?? null,
    compute_seconds: round(compute),
    vcpu_seconds: round(vcpu),
    memory_mb_seconds: round(memory),
    storage_gb_seconds: round(storage),
    measured,
    metering_compute: open !== undefined,
    complete: incomplete === null,
    incomplete_reason: incomplete,
  };
}

/**
 * The usage report of a tenant's Minds for the window (the window is already validated). A window
 * reaching past now is reported up to now and says so: its `to` is then `measured_at`. Time that
 * has not happened is neither counted nor called complete (DECISIONS.md, "A usage window reaching
 * past now").
 */
export async function readUsage(
  db: Queryable,
  tenant: Tenant,
  requested: UsageWindow & { fromText: string; toText: string },
  options: { hostReportStaleMs: number; now?: Date },
): Promise<UsageReport> {
  const now = options.now ?? new Date();
  const window = requested.to > now ? { ...requested, to: now, toText: now.toISOString() } : requested;
  const params = [tenant.org, tenant.project, window.from.toISOString(), window.to.toISOString()];
  const { rows: minds } = await db.query<UsageMind>(
    `SELECT mind_id, name, profile_id, desired_state, observed_state, stop_reason, last_activity_at, volume_size_gb,
            volume_provisioned_at, host_reported_at, created_at,
            (SELECT max(i.ended_at) FROM mind_running_intervals i WHERE i.mind_id = minds.mind_id) AS ledger_last_end
       FROM minds WHERE organization_id = $1 AND project_id = $2 AND created_at < $3
      ORDER BY created_at, mind_id`,
    [tenant.org, tenant.project, window.to.toISOString()],
  );
  // Intervals in the window, and every open interval (an open interval decides completeness).
  const { rows: intervals } = await db.query<IntervalRecord>(
    `SELECT mind_id, cpus, memory_mb, started_at, ended_at FROM mind_running_intervals
      WHERE organization_id = $1 AND project_id = $2
        AND ((started_at < $4 AND (ended_at IS NULL OR ended_at > $3)) OR ended_at IS NULL)`,
    params,
  );
  const { rows: telemetry } = await db.query<TelemetryRecord>(
    `SELECT mind_id, period_start, period_end, cpu_seconds FROM mind_telemetry
      WHERE organization_id = $1 AND project_id = $2 AND period_start < $4 AND period_end > $3`,
    params,
  );
  const { rows: everReported } = await db.query<{ mind_id: string }>(
    `SELECT DISTINCT mind_id FROM mind_telemetry WHERE organization_id = $1 AND project_id = $2`,
    [tenant.org, tenant.project],
  );
  const reportedMinds = new Set(everReported.map((r) => r.mind_id));
  const byMind = <T extends { mind_id: string }>(rows: T[], id: string) => rows.filter((r) => r.mind_id === id);
  return {
    schema_version: SCHEMA_VERSION,
    organization_id: tenant.org,
    project_id: tenant.project,
    from: window.fromText,
    to: window.toText,
    measured_at: now.toISOString(),
    basis: USAGE_BASIS,
    minds: minds.map((mind) =>
      usageEntry(mind, byMind(intervals, mind.mind_id), byMind(telemetry, mind.mind_id), reportedMinds.has(mind.mind_id), window, now, options.hostReportStaleMs),
    ),
  };
}
