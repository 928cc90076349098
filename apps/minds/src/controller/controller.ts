/**
 * The controller loop: moves each Mind's observed state toward its desired
 * state through a HostDriver.
 *
 * Work is a queue in the minds table (migration 0004): each Mind carries when it
 * is next due (due_at, NULL when nothing is to be done) and a lane. Lane 0 is
 * changed work: a desired generation the host has not been handed or has not
 * finished, a pending or uncertain observation. Lane 1 is a running Mind's
 * heartbeat, due `heartbeatMs` after its last observation. A tick claims lane 0
 * before lane 1, each oldest due first, through an index, so a new or changed
 * Mind is claimed in the next tick however many Minds run; heartbeats get what
 * changed work leaves of the batch, and at least a tenth of it, so a flood of
 * changes slows them but never stops them. The API wakes the loop of its own
 * process when it changes a desired state (`wake`); on PostgreSQL a
 * notification wakes every other replica's (wake-ups.ts), and without one a
 * replica finds the change at its next tick.
 *
 * Claims take `FOR UPDATE SKIP LOCKED` rows and a lease, so several replicas on
 * one PostgreSQL database never work on the same Mind at once, and none waits
 * for another: each takes the oldest due rows nobody else holds. A claim moves
 * the Mind's due time to the end of its lease, so a replica that stops mid-claim
 * leaves its Minds due again, for any replica, when the lease runs out.
 *
 * For each claimed Mind it hands the desired generation to the host once,
 * observes the host, and writes in one transaction, guarded by the lease: the
 * observed fields and derived status (state.ts), the usage ledger
 * (host-confirmed running intervals), the host's CPU telemetry, and when the
 * Mind is next due.
 *
 * It never retries on its own: a generation the host acknowledged is not sent
 * again, and a Mind whose action failed stays failed until its owner resumes
 * or stops it. Only an `apply` the host did not acknowledge (unreachable) is
 * handed over again on a later tick, which `apply`'s idempotency makes safe.
 */
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '@gateway-minds/db';
import type { Logger } from '@gateway-minds/service-kit';
import { capacityOf, type MindRow } from '../minds/store.js';
import { HostUnreachableError, type HostDriver, type HostObservation } from './host.js';
import { statusSql, type ObservedState } from './state.js';

export interface ControllerSettings {
  /** Pause between ticks when the last one found less than a full batch; also how often a Mind in progress is observed. */
  tickMs: number;
  /** A running Mind is observed (heartbeat and telemetry) this long after its last observation. */
  heartbeatMs: number;
  /** How long a claim holds before another replica may take the Mind over. Must outlast a batch's reconciles. */
  leaseMs: number;
  /** Minds claimed per tick. */
  batchSize: number;
  /** Claimed Minds reconciled at once (each holds a database connection while it writes). */
  concurrency: number;
}

export const CONTROLLER_DEFAULTS: ControllerSettings = { tickMs: 250, heartbeatMs: 5000, leaseMs: 10_000, batchSize: 20, concurrency: 4 };

export interface ControllerOptions extends Partial<ControllerSettings> {
  logger: Logger;
}

export const HOST_UNREACHABLE = 'host_unreachable';
export const HOST_INSTANCE_MISSING = 'host_instance_missing';

/** The queue's lanes (minds.due_lane). */
export const CHANGED_LANE = 0;
export const HEARTBEAT_LANE = 1;

/** A Mind as the reconcile's write reads it: the row, locked, and the start of its open ledger interval. */
interface LockedMind extends MindRow {
  open_interval_started_at: Date | null;
}

/** What a heartbeat's telemetry moved the Mind's telemetry mark to. */
interface TelemetryMark {
  through: Date;
  cpuTotal: number;
}

/** SQL for "the Mind still needs work toward its desired generation", given its new observed values and requested generation. */
function needsChangeSql(observedState: string, observedGeneration: string, requestedGeneration: string): string {
  return `(${requestedGeneration} < desired_generation
    OR (${observedGeneration} < desired_generation AND ${observedState} <> 'failed')
    OR ${observedState} IN ('pending', 'uncertain'))`;
}

const CLAIM_SQL = `
  WITH changed AS (
    SELECT mind_id FROM minds
     WHERE due_lane = ${CHANGED_LANE} AND due_at <= now() AND (lease_until IS NULL OR lease_until < now())
     ORDER BY due_at
     LIMIT $3
     FOR UPDATE SKIP LOCKED),
  heartbeats AS (
    SELECT mind_id FROM minds
     WHERE due_lane = ${HEARTBEAT_LANE} AND due_at <= now() AND (lease_until IS NULL OR lease_until < now())
     ORDER BY due_at
     LIMIT GREATEST($3 - (SELECT count(*) FROM changed), $4)
     FOR UPDATE SKIP LOCKED)
  UPDATE minds SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::double precision / 1000),
                   due_at = now() + make_interval(secs => $2::double precision / 1000)
   WHERE mind_id IN (SELECT mind_id FROM changed UNION ALL SELECT mind_id FROM heartbeats)
  RETURNING *`;

export class MindsController {
  readonly replicaId = `ctl_${randomUUID()}`;
  readonly #db: Database;
  readonly #host: HostDriver;
  readonly #settings: ControllerSettings;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #ticking = false;
  #wokenDuringTick = false;
  #stopped = true;
  #closing = false;

  constructor(db: Database, host: HostDriver, options: ControllerOptions) {
    this.#db = db;
    this.#host = host;
    const { logger, ...settings } = options;
    this.#logger = logger;
    this.#settings = { ...CONTROLLER_DEFAULTS, ...Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) };
  }

  get settings(): Readonly<ControllerSettings> {
    return this.#settings;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#closing = false;
    this.#schedule(0);
  }

  /** Stops the loop, waits for the tick in progress and hands back the Minds it claimed and had not reached. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#closing = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** A desired state changed: tick now rather than at the next scheduled tick. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#ticking) this.#wokenDuringTick = true;
    else this.#schedule(0);
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#ticking = true;
      this.#wokenDuringTick = false;
      let claimed = 0;
      this.#running = this.tick()
        .then((count) => (claimed = count))
        .catch((error: unknown) => this.#logger.error({ err: error }, 'controller tick failed'))
        .finally(() => {
          this.#ticking = false;
          // A full batch means more is due already; a wake-up during the tick means new work.
          this.#schedule(claimed >= this.#settings.batchSize || this.#wokenDuringTick ? 0 : this.#settings.tickMs);
        });
    }, delay);
    this.#timer.unref();
  }

  /** One pass: claim, reconcile each claimed Mind. Returns how many Minds it claimed. */
  async tick(): Promise<number> {
    const claimed = await this.#claim();
    let next = 0;
    const worker = async () => {
      while (!this.#closing && next < claimed.length) {
        const mind = claimed[next++]!;
        try {
          await this.#reconcile(mind);
        } catch (error) {
          this.#logger.error({ err: error, mindId: mind.mind_id }, 'reconcile failed');
          await this.#release([mind.mind_id]).catch(() => {});
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#settings.concurrency, claimed.length) }, worker));
    if (next < claimed.length) await this.#release(claimed.slice(next).map((mind) => mind.mind_id)).catch(() => {});
    return claimed.length;
  }

  async #claim(): Promise<MindRow[]> {
    const { batchSize, leaseMs } = this.#settings;
    const { rows } = await this.#db.query<MindRow>(CLAIM_SQL, [this.replicaId, leaseMs, batchSize, Math.ceil(batchSize / 10)]);
    // Changed work first (RETURNING keeps no order).
    return rows.sort((a, b) => a.due_lane - b.due_lane);
  }

  /** Gives claimed Minds back, due again after a tick. */
  async #release(mindIds: string[]): Promise<void> {
    await this.#db.query(
      `UPDATE minds SET lease_owner = NULL, lease_until = NULL, due_at = now() + make_interval(secs => $3::double precision / 1000)
        WHERE mind_id = ANY($1::uuid[]) AND lease_owner = $2`,
      [`{${mindIds.join(',')}}`, this.replicaId, this.#settings.tickMs],
    );
  }

  async #reconcile(mind: MindRow): Promise<void> {
    let requested = mind.host_requested_generation;
    let unreachable = false;
    if (requested < mind.desired_generation && (mind.desired_state === 'running' || mind.desired_state === 'stopped')) {
      try {
        await this.#host.apply({
          mindId: mind.mind_id,
          volumeId: mind.volume_id,
          generation: mind.desired_generation,
          state: mind.desired_state,
          capacity: capacityOf(mind),
        });
        requested = mind.desired_generation;
      } catch (error) {
        if (!(error instanceof HostUnreachableError)) throw error;
        unreachable = true;
      }
    }
    let observation: HostObservation | undefined;
    if (!unreachable) {
      try {
        observation = await this.#host.observe(mind.mind_id);
      } catch (error) {
        if (!(error instanceof HostUnreachableError)) throw error;
      }
    }
    await this.#db.transaction(async (tx) => {
      const { rows } = await tx.query<LockedMind>(
        `SELECT m.*, (SELECT started_at FROM mind_running_intervals i WHERE i.mind_id = m.mind_id AND i.ended_at IS NULL) AS open_interval_started_at
           FROM minds m WHERE m.mind_id = $1 AND m.lease_owner = $2 FOR UPDATE OF m`,
        [mind.mind_id, this.replicaId],
      );
      const current = rows[0];
      if (!current) return; // the lease ran out and another replica took the Mind over
      await this.#record(tx, current, requested, observation);
    });
  }

  /** Writes one observation: observed fields, status, ledger, telemetry; releases the lease. */
  async #record(tx: Queryable, mind: LockedMind, requested: number, observation: HostObservation | undefined): Promise<void> {
    let observedState: ObservedState;
    let observedGeneration = mind.observed_generation;
    let observedCapacity = mind.observed_capacity;
    let errorCode: string | null;
    if (!observation) {
      observedState = 'uncertain';
      errorCode = HOST_UNREACHABLE;
    } else if (observation.state === 'absent') {
      // Nothing asked yet means nothing to find; otherwise the host lost the instance.
      observedState = requested === 0 ? 'pending' : 'uncertain';
      errorCode = requested === 0 ? null : HOST_INSTANCE_MISSING;
    } else {
      observedState = observation.state;
      observedGeneration = observation.generation;
      observedCapacity = observation.capacity ?? observedCapacity;
      errorCode = observation.state === 'failed' ? observation.errorCode : null;
    }
    const capacity = capacityOf(mind);
    const capacityApplied =
      observedCapacity !== null &&
      observedCapacity.profile_id === capacity.profile_id &&
      observedCapacity.cpus === capacity.cpus &&
      observedCapacity.memory_mb === capacity.memory_mb &&
      observedCapacity.volume_size_gb === capacity.volume_size_gb;

    let telemetry: TelemetryMark | undefined;
    if (observation && observation.state !== 'absent') {
      await this.#recordLedger(tx, mind, observation);
      telemetry = await this.#recordTelemetry(tx, mind, observation);
    }

    // Still on its way to the desired generation: observed again after a tick. Running and settled: at its heartbeat.
    // Settled otherwise (stopped, failed): not due until its desired state changes.
    const needsChange = needsChangeSql('$2::text', '$3::bigint', 'GREATEST(host_requested_generation, $7::bigint)');
    const changed =
      observedState !== mind.observed_state ||
      observedGeneration !== mind.observed_generation ||
      errorCode !== mind.error_code ||
      capacityApplied !== mind.capacity_applied ||
      !sameCapacity(observedCapacity, mind.observed_capacity);
    await tx.query(
      `UPDATE minds SET
         observed_state = $2::text, observed_generation = $3::bigint, observed_capacity = $4::jsonb, capacity_applied = $5,
         error_code = $6, host_requested_generation = GREATEST(host_requested_generation, $7::bigint),
         host_reported_at = coalesce($8::timestamptz, host_reported_at),
         volume_provisioned_at = coalesce(volume_provisioned_at, $9::timestamptz),
         telemetry_through = coalesce($13::timestamptz, telemetry_through),
         telemetry_cpu_total = coalesce($14::double precision, telemetry_cpu_total),
         status = ${statusSql('$2::text', '$3::bigint')},
         updated_at = CASE WHEN $10::boolean THEN GREATEST(now(), updated_at) ELSE updated_at END,
         due_lane = CASE WHEN ${needsChange} THEN ${CHANGED_LANE} ELSE ${HEARTBEAT_LANE} END,
         due_at = CASE
           WHEN ${needsChange} THEN now() + make_interval(secs => $11::double precision / 1000)
           WHEN $2::text = 'running' THEN now() + make_interval(secs => $12::double precision / 1000)
           ELSE NULL END,
         lease_owner = NULL, lease_until = NULL
       WHERE mind_id = $1`,
      [
        mind.mind_id,
        observedState,
        observedGeneration,
        observedCapacity === null ? null : JSON.stringify(observedCapacity),
        capacityApplied,
        errorCode,
        requested,
        observation?.reportedAt.toISOString() ?? null,
        observation?.volumeCreatedAt?.toISOString() ?? null,
        changed,
        this.#settings.tickMs,
        this.#settings.heartbeatMs,
        telemetry?.through.toISOString() ?? null,
        telemetry?.cpuTotal ?? null,
      ],
    );
  }

  /** Opens an interval when the host confirms a run, closes it when the host confirms its end. */
  async #recordLedger(tx: Queryable, mind: LockedMind, observation: HostObservation): Promise<void> {
    const open = mind.open_interval_started_at === null ? undefined : { started_at: mind.open_interval_started_at };
    const close = async (at: Date) => {
      await tx.query(`UPDATE mind_running_intervals SET ended_at = $2 WHERE mind_id = $1 AND ended_at IS NULL`, [mind.mind_id, at.toISOString()]);
    };
    if (observation.state === 'running' && observation.runningSince) {
      const since = observation.runningSince;
      if (open && open.started_at.getTime() !== since.getTime()) {
        // A new run began: the host's last confirmed stop ends the old one, at the latest when the new one began.
        const end = observation.stoppedAt && observation.stoppedAt >= open.started_at && observation.stoppedAt <= since ? observation.stoppedAt : since;
        await close(end < open.started_at ? open.started_at : end);
      }
      if (!open || open.started_at.getTime() !== since.getTime()) {
        await tx.query(
          `INSERT INTO mind_running_intervals (mind_id, organization_id, project_id, generation, cpus, memory_mb, started_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
          [mind.mind_id, mind.organization_id, mind.project_id, observation.generation, (observation.capacity ?? capacityOf(mind)).cpus, (observation.capacity ?? capacityOf(mind)).memory_mb, since.toISOString()],
        );
      }
      return;
    }
    // Not running: close the open interval only at a host-confirmed end; otherwise it stays
    // open and the usage report says the entry is incomplete.
    if (open && observation.stoppedAt && observation.stoppedAt >= open.started_at) await close(observation.stoppedAt);
  }

  /** Records a telemetry period; returns the new mark, which the Mind's own write stores. */
  async #recordTelemetry(tx: Queryable, mind: MindRow, observation: HostObservation): Promise<TelemetryMark | undefined> {
    const through = mind.telemetry_through;
    if (through && observation.reportedAt <= through) return;
    if (observation.state === 'pending') return; // nothing runs while pending
    // A running Mind reports at its heartbeat, not at every tick it is observed for another reason.
    if (observation.state === 'running' && through && observation.reportedAt.getTime() - through.getTime() < this.#settings.heartbeatMs) return;
    const delta = observation.cpuSecondsTotal - mind.telemetry_cpu_total;
    if (delta < 0) return; // a host that went backwards is not believed
    const start = through ?? observation.volumeCreatedAt ?? observation.reportedAt;
    if (!through && delta === 0 && observation.state !== 'running') return; // nothing ever ran: nothing to report yet
    await tx.query(
      `INSERT INTO mind_telemetry (mind_id, organization_id, project_id, period_start, period_end, cpu_seconds)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [mind.mind_id, mind.organization_id, mind.project_id, start.toISOString(), observation.reportedAt.toISOString(), delta],
    );
    return { through: observation.reportedAt, cpuTotal: observation.cpuSecondsTotal };
  }
}

/** Field by field: jsonb hands keys back in its own order, so JSON text would differ for equal capacities. */
function sameCapacity(a: MindRow['observed_capacity'], b: MindRow['observed_capacity']): boolean {
  if (a === null || b === null) return a === b;
  return a.profile_id === b.profile_id && a.cpus === b.cpus && a.memory_mb === b.memory_mb && a.volume_size_gb === b.volume_size_gb;
}
