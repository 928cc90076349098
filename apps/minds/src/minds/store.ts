/** The minds table: row shape, the Mind resource view, tenant-scoped reads. */
import DataLoader from 'dataloader';
import { DatabaseUnavailableError, type Queryable } from '@gateway-minds/db';
import type { Schemas } from '@gateway-minds/contract';
import { SCHEMA_VERSION, type Plan, type ProfileId } from '../spec.js';
import type { DesiredState, MindStatus, ObservedState } from '../controller/state.js';

export type Mind = Schemas['Mind'];
export type MindCapacity = Schemas['MindCapacity'];

export interface Tenant {
  org: string;
  project: string;
}

export interface MindRow {
  mind_id: string;
  organization_id: string;
  project_id: string;
  workspace_id: string | null;
  sandbox_id: string | null;
  created_by: string;
  name: string;
  region: string;
  plan: Plan;
  profile_id: ProfileId;
  cpus: number;
  memory_mb: number;
  volume_size_gb: number;
  services: string[];
  volume_id: string;
  base_url: string;
  desired_state: DesiredState;
  desired_generation: number;
  observed_state: ObservedState;
  observed_generation: number;
  observed_capacity: MindCapacity | null;
  status: MindStatus;
  capacity_applied: boolean;
  operation_id: string | null;
  error_code: string | null;
  stop_reason: string | null;
  wake_reason: string | null;
  last_activity_at: Date | null;
  host_requested_generation: number;
  host_reported_at: Date | null;
  volume_provisioned_at: Date | null;
  telemetry_through: Date | null;
  telemetry_cpu_total: number;
  lease_owner: string | null;
  lease_until: Date | null;
  /** The controller's queue (controller.ts): 0 changed work, 1 heartbeat. */
  due_lane: 0 | 1;
  /** When the controller next needs the Mind; null when not until its desired state changes. */
  due_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function capacityOf(row: Pick<MindRow, 'profile_id' | 'cpus' | 'memory_mb' | 'volume_size_gb'>): MindCapacity {
  return { profile_id: row.profile_id, cpus: row.cpus, memory_mb: row.memory_mb, volume_size_gb: row.volume_size_gb };
}

/**
 * The columns the Mind resource shows. A read that only shows or checks a Mind selects what it
 * uses instead of all 40 columns: each column costs PGlite about 7 µs to send (scripts/bench).
 */
export const MIND_VIEW_COLUMNS = [
  'mind_id', 'organization_id', 'project_id', 'name', 'region', 'plan', 'profile_id', 'cpus', 'memory_mb', 'volume_size_gb',
  'observed_capacity', 'services', 'volume_id', 'base_url', 'desired_state', 'observed_state', 'desired_generation',
  'observed_generation', 'status', 'capacity_applied', 'operation_id', 'error_code', 'created_at', 'updated_at',
] as const satisfies readonly (keyof MindRow)[];

export type MindView = Pick<MindRow, (typeof MIND_VIEW_COLUMNS)[number]>;

export function toMind(row: MindView): Mind {
  return {
    schema_version: SCHEMA_VERSION,
    mind_id: row.mind_id,
    organization_id: row.organization_id,
    project_id: row.project_id,
    name: row.name,
    region: row.region,
    plan: row.plan,
    capacity: capacityOf(row),
    observed_capacity: row.observed_capacity,
    services: row.services,
    volume_id: row.volume_id,
    base_url: row.base_url,
    desired_state: row.desired_state,
    observed_state: row.observed_state,
    desired_generation: row.desired_generation,
    observed_generation: row.observed_generation,
    status: row.status,
    capacity_applied: row.capacity_applied,
    operation_id: row.operation_id,
    error_code: row.error_code,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * The Mind if it belongs to the tenant; another tenant's Mind is indistinguishable from a missing
 * one. With `columns`, only those (names from the code, never from a request).
 */
export async function findMind<Column extends keyof MindRow = keyof MindRow>(
  db: Queryable,
  tenant: Tenant,
  mindId: string,
  options: { forUpdate?: boolean; columns?: readonly Column[] } = {},
): Promise<Pick<MindRow, Column> | undefined> {
  const { rows } = await db.query<Pick<MindRow, Column>>(
    `SELECT ${options.columns?.join(', ') ?? '*'} FROM minds WHERE mind_id = $1 AND organization_id = $2 AND project_id = $3${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [mindId, tenant.org, tenant.project],
  );
  return rows[0];
}

/** At most this many reads go out in one statement; more in one turn make several. */
export const MIND_READS_PER_STATEMENT = 64;

/**
 * Several tenants' Mind views in one statement: each wanted key joins only the row with its own
 * mind_id, organization and project, so a key never meets another tenant's Mind.
 */
const MIND_VIEWS_SQL = `
  SELECT ${MIND_VIEW_COLUMNS.map((column) => `minds.${column}`).join(', ')}
    FROM unnest($1::uuid[], $2::text[], $3::text[]) AS wanted (mind_id, organization_id, project_id)
    JOIN minds USING (mind_id, organization_id, project_id)`;

export interface MindViewKey {
  tenant: Tenant;
  mindId: string;
}

/**
 * Reads of a Mind's view (getMind) gathered over one turn of the event loop and sent as one
 * statement: under load, each round trip to the database then serves several requests, which
 * halves what PostgreSQL spends per read (DECISIONS "Mind reads gathered per turn"). A lone read
 * goes out as findMind, the statement a quiet service always sent. If a gathered statement fails,
 * each read is tried alone, so no request is refused for another's read (an unreachable database
 * refuses them all at once, as it would alone). No result is kept: the next turn reads the
 * database again.
 */
export function mindViewReader(db: Queryable): (key: MindViewKey) => Promise<MindView | undefined> {
  const readAlone = (key: MindViewKey) => findMind(db, key.tenant, key.mindId, { columns: MIND_VIEW_COLUMNS });
  const loader = new DataLoader<MindViewKey, MindView | undefined>(
    async (keys) => {
      if (keys.length === 1) return [await readAlone(keys[0]!)];
      let rows: MindView[];
      try {
        ({ rows } = await db.query<MindView>(MIND_VIEWS_SQL, [keys.map((key) => key.mindId), keys.map((key) => key.tenant.org), keys.map((key) => key.tenant.project)]));
      } catch (error) {
        // An unreachable database refuses every read alike; a failed statement is retried read by read.
        if (error instanceof DatabaseUnavailableError) throw error;
        return Promise.all(keys.map((key) => readAlone(key).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))));
      }
      const byKey = new Map(rows.map((row) => [viewKey(row.mind_id, row.organization_id, row.project_id), row]));
      return keys.map((key) => byKey.get(viewKey(key.mindId, key.tenant.org, key.tenant.project)));
    },
    { cache: false, maxBatchSize: MIND_READS_PER_STATEMENT, batchScheduleFn: (send) => setImmediate(send) },
  );
  return (key) => loader.load(key);
}

/** Ids and tenant names hold no NUL. */
function viewKey(mindId: string, org: string, project: string): string {
  return `${mindId}\u0000${org}\u0000${project}`;
}

/**
 * How many Minds a Sandbox of the tenant holds. Inside a transaction it first takes a lock on the
 * Sandbox that lasts until the transaction ends, so two creations counted at once cannot both take
 * its last place (PostgreSQL's default isolation would let both see the same count).
 */
export async function lockAndCountSandboxMinds(tx: Queryable, tenant: Tenant, sandboxId: string): Promise<number> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`minds.sandbox:${tenant.org}:${tenant.project}:${sandboxId}`]);
  const { rows } = await tx.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM minds WHERE organization_id = $1 AND project_id = $2 AND sandbox_id = $3',
    [tenant.org, tenant.project, sandboxId],
  );
  return rows[0]!.count;
}

/** Whether the tenant has this Mind (the same refusal for another tenant's Mind as for a missing one). */
export async function mindExists(db: Queryable, tenant: Tenant, mindId: string): Promise<boolean> {
  return (await findMind(db, tenant, mindId, { columns: ['mind_id'] })) !== undefined;
}

/**
 * Records activity on a Mind (memory use, lifecycle), reported as usage's last_activity_at; with
 * `onlyIf`, only while the Mind has that status. Whether it was recorded (the tenant's Mind exists,
 * in that status).
 */
export async function touchActivity(db: Queryable, tenant: Tenant, mindId: string, options: { onlyIf?: MindStatus } = {}): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE minds SET last_activity_at = now() WHERE mind_id = $1 AND organization_id = $2 AND project_id = $3 AND ($4::text IS NULL OR status = $4)`,
    [mindId, tenant.org, tenant.project, options.onlyIf ?? null],
  );
  return rowCount > 0;
}
