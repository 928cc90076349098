/**
 * The controller loop: moves each Mind's observed state toward its desired
 * state through a HostDriver, one tick at a time.
 *
 * A tick claims the Minds that need work (a generation the host has not been
 * handed or has not finished, a pending or uncertain observation, or a running
 * Mind due for its telemetry heartbeat) with `FOR UPDATE SKIP LOCKED` and a
 * short lease, so several replicas on one PostgreSQL database never work on
 * the same Mind at once. For each claimed Mind it hands the desired generation
 * to the host once, observes the host, and writes in one transaction, guarded
 * by the lease: the observed fields and derived status (state.ts), the usage
 * ledger (host-confirmed running intervals), the host's CPU telemetry.
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

export interface ControllerOptions {
  /** Pause between ticks. */
  tickMs: number;
  /** A running Mind is observed (heartbeat and telemetry) at least this often. */
  heartbeatMs: number;
  /** How long a claim holds before another replica may take the Mind over. */
  leaseMs: number;
  /** Minds claimed per tick. */
  batchSize?: number;
  logger: Logger;
}

export const HOST_UNREACHABLE = 'host_unreachable';
export const HOST_INSTANCE_MISSING = 'host_instance_missing';

interface IntervalRow {
  started_at: Date;
  ended_at: Date | null;
}

export class MindsController {
  readonly replicaId = `ctl_${randomUUID()}`;
  readonly #db: Database;
  readonly #host: HostDriver;
  readonly #options: ControllerOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = true;
  #closing = false;

  constructor(db: Database, host: HostDriver, options: ControllerOptions) {
    this.#db = db;
    this.#host = host;
    this.#options = options;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#closing = false;
    this.#schedule(0);
  }

  /** Stops the loop and waits for the tick in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#closing = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.tick()
        .catch((error: unknown) => this.#options.logger.error({ err: error }, 'controller tick failed'))
        .finally(() => this.#schedule(this.#options.tickMs));
    }, delay);
    this.#timer.unref();
  }

  /** One pass: claim, reconcile each claimed Mind. Returns how many Minds it reconciled. */
  async tick(): Promise<number> {
    const claimed = await this.#claim();
    for (const mind of claimed) {
      if (this.#closing) break;
      try {
        await this.#reconcile(mind);
      } catch (error) {
        this.#options.logger.error({ err: error, mindId: mind.mind_id }, 'reconcile failed');
        await this.#release(mind.mind_id).catch(() => {});
      }
    }
    return claimed.length;
  }

  async #claim(): Promise<MindRow[]> {
    const { rows } = await this.#db.query<MindRow>(
      `UPDATE minds SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::double precision / 1000)
        WHERE mind_id IN (
          SELECT mind_id FROM minds
           WHERE (host_requested_generation < desired_generation
                  OR (observed_generation < desired_generation AND observed_state <> 'failed')
                  OR observed_state IN ('pending', 'uncertain')
                  OR (observed_state = 'running'
                      AND (host_reported_at IS NULL OR host_reported_at < now() - make_interval(secs => $3::double precision / 1000))))
             AND (lease_until IS NULL OR lease_until < now())
           ORDER BY updated_at
           LIMIT $4
           FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [this.replicaId, this.#options.leaseMs, this.#options.heartbeatMs, this.#options.batchSize ?? 20],
    );
    return rows;
  }

  async #release(mindId: string): Promise<void> {
    await this.#db.query(`UPDATE minds SET lease_owner = NULL, lease_until = NULL WHERE mind_id = $1 AND lease_owner = $2`, [mindId, this.replicaId]);
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
      const { rows } = await tx.query<MindRow>(`SELECT * FROM minds WHERE mind_id = $1 AND lease_owner = $2 FOR UPDATE`, [mind.mind_id, this.replicaId]);
      const current = rows[0];
      if (!current) return; // the lease ran out and another replica took the Mind over
      await this.#record(tx, current, requested, observation);
    });
  }

  /** Writes one observation: observed fields, status, ledger, telemetry; releases the lease. */
  async #record(tx: Queryable, mind: MindRow, requested: number, observation: HostObservation | undefined): Promise<void> {
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

    if (observation && observation.state !== 'absent') {
      await this.#recordLedger(tx, mind, observation);
      await this.#recordTelemetry(tx, mind, observation);
    }

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
         status = ${statusSql('$2::text', '$3::bigint')},
         updated_at = CASE WHEN $10::boolean THEN GREATEST(now(), updated_at) ELSE updated_at END,
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
      ],
    );
  }

  /** Opens an interval when the host confirms a run, closes it when the host confirms its end. */
  async #recordLedger(tx: Queryable, mind: MindRow, observation: HostObservation): Promise<void> {
    const { rows } = await tx.query<IntervalRow>(`SELECT started_at, ended_at FROM mind_running_intervals WHERE mind_id = $1 AND ended_at IS NULL`, [mind.mind_id]);
    const open = rows[0];
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

  async #recordTelemetry(tx: Queryable, mind: MindRow, observation: HostObservation): Promise<void> {
    const through = mind.telemetry_through;
    if (through && observation.reportedAt <= through) return;
    if (observation.state === 'pending') return; // nothing runs while pending
    // A running Mind reports at its heartbeat, not at every tick it is observed for another reason.
    if (observation.state === 'running' && through && observation.reportedAt.getTime() - through.getTime() < this.#options.heartbeatMs) return;
    const delta = observation.cpuSecondsTotal - mind.telemetry_cpu_total;
    if (delta < 0) return; // a host that went backwards is not believed
    const start = through ?? observation.volumeCreatedAt ?? observation.reportedAt;
    if (!through && delta === 0 && observation.state !== 'running') return; // nothing ever ran: nothing to report yet
    await tx.query(
      `INSERT INTO mind_telemetry (mind_id, organization_id, project_id, period_start, period_end, cpu_seconds)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [mind.mind_id, mind.organization_id, mind.project_id, start.toISOString(), observation.reportedAt.toISOString(), delta],
    );
    await tx.query(`UPDATE minds SET telemetry_through = $2, telemetry_cpu_total = $3 WHERE mind_id = $1`, [
      mind.mind_id,
      observation.reportedAt.toISOString(),
      observation.cpuSecondsTotal,
    ]);
  }
}

/** Field by field: jsonb hands keys back in its own order, so JSON text would differ for equal capacities. */
function sameCapacity(a: MindRow['observed_capacity'], b: MindRow['observed_capacity']): boolean {
  if (a === null || b === null) return a === b;
  return a.profile_id === b.profile_id && a.cpus === b.cpus && a.memory_mb === b.memory_mb && a.volume_size_gb === b.volume_size_gb;
}
