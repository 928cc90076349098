/** Rows written straight into the real database, for storage-level tests (no mocked persistence). */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '@gateway-minds/db';

export interface MindRowInput {
  org: string;
  project: string;
  name?: string;
  profile?: 'F1' | 'D1' | 'D2';
  cpus?: number;
  memoryMb?: number;
  volumeGb?: number;
  desired?: 'running' | 'stopped';
  observed?: 'pending' | 'running' | 'stopped' | 'failed' | 'uncertain';
  status?: 'ready' | 'provisioning' | 'stopped' | 'failed' | 'uncertain';
  createdAt: Date;
  volumeAt?: Date | null;
  hostReportedAt?: Date | null;
}

export async function insertMindRow(db: Queryable, input: MindRowInput): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO minds (mind_id, organization_id, project_id, created_by, name, region, plan, profile_id, cpus, memory_mb, volume_size_gb,
       services, volume_id, base_url, desired_state, desired_generation, observed_state, observed_generation, status,
       volume_provisioned_at, host_reported_at, created_at, updated_at)
     VALUES ($1, $2, $3, 'usr_test', $4, 'local', 'pro', $5, $6, $7, $8, '["memory"]', $9, 'https://x.minds.localhost', $10, 1, $11, 1, $12, $13, $14, $15, $15)`,
    [
      id, input.org, input.project, input.name ?? 'Sandbox row', input.profile ?? 'D1', input.cpus ?? 2, input.memoryMb ?? 4096, input.volumeGb ?? 20,
      randomUUID(), input.desired ?? 'running', input.observed ?? 'running', input.status ?? 'ready',
      input.volumeAt === undefined ? input.createdAt.toISOString() : input.volumeAt?.toISOString() ?? null,
      input.hostReportedAt?.toISOString() ?? null, input.createdAt.toISOString(),
    ],
  );
  return id;
}

export async function insertInterval(db: Queryable, mind: { id: string; org: string; project: string; cpus?: number; memoryMb?: number }, start: Date, end: Date | null): Promise<void> {
  await db.query(
    `INSERT INTO mind_running_intervals (mind_id, organization_id, project_id, generation, cpus, memory_mb, started_at, ended_at)
     VALUES ($1, $2, $3, 1, $4, $5, $6, $7)`,
    [mind.id, mind.org, mind.project, mind.cpus ?? 2, mind.memoryMb ?? 4096, start.toISOString(), end?.toISOString() ?? null],
  );
}

export async function insertTelemetry(db: Queryable, mind: { id: string; org: string; project: string }, start: Date, end: Date, cpuSeconds: number): Promise<void> {
  await db.query(
    `INSERT INTO mind_telemetry (mind_id, organization_id, project_id, period_start, period_end, cpu_seconds) VALUES ($1, $2, $3, $4, $5, $6)`,
    [mind.id, mind.org, mind.project, start.toISOString(), end.toISOString(), cpuSeconds],
  );
}
