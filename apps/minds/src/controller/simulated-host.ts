/**
 * A host that runs nothing but behaves like one: starting takes `provisionMs`,
 * stopping `stopMs`, a running Mind burns `cpuUtilization` of its vCPUs, and
 * every answer carries host-confirmed times. Its state lives in the
 * simulated_host_instances table, so every controller replica and a restarted
 * process observe the same instances; each action's completion time is fixed
 * when it is asked for, and observing is a pure function of that row and the clock.
 *
 * Failure injection (for tests and demos): failGeneration() makes an action fail
 * when it completes; setUnreachable() makes the host stop answering.
 */
import type { Database, Queryable } from '@gateway-minds/db';
import { HostUnreachableError, type HostCapacity, type HostDriver, type HostObservation, type HostSpec } from './host.js';

export interface SimulatedHostOptions {
  provisionMs: number;
  stopMs: number;
  /** Fraction of its vCPUs a running Mind uses (telemetry). Default 0.25. */
  cpuUtilization?: number;
}

interface InstanceRow {
  mind_id: string;
  generation: number;
  target_state: 'running' | 'stopped';
  from_state: 'running' | 'pending' | 'stopped' | 'absent';
  from_generation: number;
  requested_at: Date;
  due_at: Date;
  cpus: number;
  memory_mb: number;
  volume_size_gb: number;
  profile_id: HostCapacity['profile_id'];
  running_since: Date | null;
  stopped_at: Date | null;
  volume_created_at: Date | null;
  cpu_seconds_before: number;
  fail_generation: number | null;
}

/** An observation plus the CPU of runs that have ended (the base of the next action). */
interface Computed extends HostObservation {
  completedCpu: number;
}

export const HOST_ACTION_FAILED = 'host_action_failed';

export class SimulatedHost implements HostDriver {
  readonly #db: Database;
  readonly #options: Required<SimulatedHostOptions>;
  readonly #failures = new Map<string, number>();
  readonly #unreachable = new Set<string>();

  constructor(db: Database, options: SimulatedHostOptions) {
    this.#db = db;
    this.#options = { cpuUtilization: 0.25, ...options };
  }

  /** The action for this generation of the Mind will fail when it completes. */
  failGeneration(mindId: string, generation: number): void {
    this.#failures.set(mindId, generation);
  }

  /** While set, the host answers nothing for the Mind (apply and observe throw). */
  setUnreachable(mindId: string, unreachable: boolean): void {
    if (unreachable) this.#unreachable.add(mindId);
    else this.#unreachable.delete(mindId);
  }

  async apply(spec: HostSpec): Promise<void> {
    if (this.#unreachable.has(spec.mindId)) throw new HostUnreachableError();
    await this.#db.transaction(async (tx) => {
      const row = await this.#row(tx, spec.mindId, true);
      if (row && row.generation >= spec.generation) return; // already asked: idempotent per generation
      const now = new Date();
      const current = row ? this.#compute(row, now) : null;
      const fromState: InstanceRow['from_state'] = !current || current.state === 'absent' ? 'absent' : current.state === 'failed' ? 'stopped' : current.state;
      let delay = 0;
      if (spec.state === 'running' && fromState !== 'running') delay = this.#options.provisionMs;
      if (spec.state === 'stopped' && (fromState === 'running' || fromState === 'pending')) delay = this.#options.stopMs;
      const failGeneration = this.#failures.get(spec.mindId) === spec.generation ? spec.generation : null;
      await tx.query(
        `INSERT INTO simulated_host_instances (mind_id, generation, target_state, from_state, from_generation, requested_at, due_at,
           cpus, memory_mb, volume_size_gb, profile_id, running_since, stopped_at, volume_created_at, cpu_seconds_before, fail_generation)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
         ON CONFLICT (mind_id) DO UPDATE SET generation = EXCLUDED.generation, target_state = EXCLUDED.target_state,
           from_state = EXCLUDED.from_state, from_generation = EXCLUDED.from_generation, requested_at = EXCLUDED.requested_at,
           due_at = EXCLUDED.due_at, cpus = EXCLUDED.cpus, memory_mb = EXCLUDED.memory_mb, volume_size_gb = EXCLUDED.volume_size_gb,
           profile_id = EXCLUDED.profile_id, running_since = EXCLUDED.running_since, stopped_at = EXCLUDED.stopped_at,
           volume_created_at = EXCLUDED.volume_created_at, cpu_seconds_before = EXCLUDED.cpu_seconds_before,
           fail_generation = EXCLUDED.fail_generation`,
        [
          spec.mindId,
          spec.generation,
          spec.state,
          fromState,
          current?.generation ?? 0,
          now.toISOString(),
          new Date(now.getTime() + delay).toISOString(),
          spec.capacity.cpus,
          spec.capacity.memory_mb,
          spec.capacity.volume_size_gb,
          spec.capacity.profile_id,
          fromState === 'running' ? current!.runningSince!.toISOString() : null,
          current?.stoppedAt?.toISOString() ?? null,
          // The retained volume is created with the first action and kept from then on.
          (current?.volumeCreatedAt ?? now).toISOString(),
          current?.completedCpu ?? 0,
          failGeneration,
        ],
      );
    });
  }

  async observe(mindId: string): Promise<HostObservation> {
    if (this.#unreachable.has(mindId)) throw new HostUnreachableError();
    const now = new Date();
    const row = await this.#row(this.#db, mindId, false);
    if (!row) {
      return { state: 'absent', generation: 0, capacity: null, runningSince: null, stoppedAt: null, volumeCreatedAt: null, errorCode: null, cpuSecondsTotal: 0, reportedAt: now };
    }
    const { completedCpu: _completed, ...observation } = this.#compute(row, now);
    return observation;
  }

  async #row(db: Queryable, mindId: string, forUpdate: boolean): Promise<InstanceRow | undefined> {
    const { rows } = await db.query<InstanceRow>(`SELECT * FROM simulated_host_instances WHERE mind_id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [mindId]);
    return rows[0];
  }

  #cpu(row: InstanceRow, from: Date, to: Date): number {
    return (Math.max(0, to.getTime() - from.getTime()) / 1000) * row.cpus * this.#options.cpuUtilization;
  }

  /** The host's state at `now`, from the last action asked of it. */
  #compute(row: InstanceRow, now: Date): Computed {
    const capacity: HostCapacity = { profile_id: row.profile_id, cpus: row.cpus, memory_mb: row.memory_mb, volume_size_gb: row.volume_size_gb };
    const base = { reportedAt: now, errorCode: null };
    if (now < row.due_at) {
      // The action is in progress: the host still reports what it had.
      if (row.from_state === 'running') {
        return {
          ...base, state: 'running', generation: row.from_generation, capacity, runningSince: row.running_since, stoppedAt: row.stopped_at,
          volumeCreatedAt: row.volume_created_at, completedCpu: row.cpu_seconds_before,
          cpuSecondsTotal: row.cpu_seconds_before + this.#cpu(row, row.running_since!, now),
        };
      }
      return {
        ...base, state: 'pending', generation: row.from_generation,
        capacity: row.from_state === 'absent' ? null : capacity, runningSince: null, stoppedAt: row.stopped_at,
        volumeCreatedAt: row.volume_created_at, completedCpu: row.cpu_seconds_before, cpuSecondsTotal: row.cpu_seconds_before,
      };
    }
    // The action completed at due_at.
    const endedRunCpu = row.from_state === 'running' ? this.#cpu(row, row.running_since!, row.due_at) : 0;
    const runEnd = row.from_state === 'running' ? row.due_at : row.stopped_at;
    if (row.fail_generation === row.generation) {
      // A failed action leaves no instance running; the host confirms when the previous run ended.
      return {
        ...base, state: 'failed', generation: row.generation, capacity, runningSince: null,
        stoppedAt: runEnd, volumeCreatedAt: row.volume_created_at, errorCode: HOST_ACTION_FAILED,
        completedCpu: row.cpu_seconds_before + endedRunCpu, cpuSecondsTotal: row.cpu_seconds_before + endedRunCpu,
      };
    }
    if (row.target_state === 'running') {
      const runningSince = row.from_state === 'running' ? row.running_since! : row.due_at;
      return {
        ...base, state: 'running', generation: row.generation, capacity, runningSince, stoppedAt: row.stopped_at,
        volumeCreatedAt: row.volume_created_at, completedCpu: row.cpu_seconds_before,
        cpuSecondsTotal: row.cpu_seconds_before + this.#cpu(row, runningSince, now),
      };
    }
    return {
      ...base, state: 'stopped', generation: row.generation, capacity,
      runningSince: null, stoppedAt: runEnd, volumeCreatedAt: row.volume_created_at,
      completedCpu: row.cpu_seconds_before + endedRunCpu, cpuSecondsTotal: row.cpu_seconds_before + endedRunCpu,
    };
  }
}
