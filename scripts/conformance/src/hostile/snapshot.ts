/**
 * "Changed nothing": snapshots of every table of a schema (`select * ... order
 * by 1` over information_schema.tables), and, where a database cannot be
 * reached, of everything the API shows.
 *
 * Left out, because something other than a request writes them on its own:
 * the gateway's `request_counts` (usage counting: every answered request is
 * counted, refused ones included; checked separately for server errors) and
 * the Minds controller's bookkeeping, which its loop rewrites every few
 * seconds for a running Mind (lease, heartbeat, CPU telemetry, when it is next
 * due and in which lane), and the
 * Mind's `updated_at`, which that loop also moves at every heartbeat although
 * nothing changed (the controller compares the host's capacity object with
 * the jsonb one by JSON text, and jsonb reorders keys: reported as a bug).
 * A request that changed a Mind shows in its other columns anyway.
 */
import type { Queryable } from '@gateway-minds/db';
import type { Api } from './fixture.js';
import { allMinds } from './fixture.js';

export type Snapshot = Record<string, string[]>;

export const IGNORED_TABLES = new Set(['request_counts', 'mind_telemetry']);
export const IGNORED_COLUMNS: Record<string, string[]> = {
  minds: ['lease_owner', 'lease_until', 'host_reported_at', 'telemetry_through', 'telemetry_cpu_total', 'updated_at', 'due_at', 'due_lane'],
};

export async function tablesOf(db: Queryable, schema: string): Promise<string[]> {
  const { rows } = await db.query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' order by table_name`,
    [schema],
  );
  return rows.map((r) => r.table_name);
}

export async function sqlSnapshot(db: Queryable, schema: string): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const table of await tablesOf(db, schema)) {
    if (IGNORED_TABLES.has(table)) continue;
    const { rows } = await db.query(`select * from "${schema}"."${table}" order by 1`);
    const ignored = IGNORED_COLUMNS[table] ?? [];
    out[`${schema}.${table}`] = rows.map((row) => {
      const kept = Object.fromEntries(Object.entries(row).filter(([column]) => !ignored.includes(column)));
      return JSON.stringify(kept, (_key, value: unknown) => (value instanceof Date ? value.toISOString() : typeof value === 'bigint' ? value.toString() : value));
    });
  }
  return out;
}

/** What the API shows of the Minds service's state: Minds, groups, members, attachments, memory, usage. */
export async function apiSnapshot(
  owner: Api,
  agent: Api,
  mindIds: string[],
  storageIds: { owner: string[]; agent: string[] },
  agentMindId: string,
  usageWindow: { from: string; to: string },
  role: 'before' | 'after',
): Promise<Snapshot> {
  const out: Snapshot = {};
  const minds = await allMinds(owner);
  out.minds = minds.map(({ updated_at: _moving, ...m }) => JSON.stringify(m));
  const groups = (await owner.ok('GET', '/v1/minds/agent-groups')).groups as { id: string }[];
  out.groups = groups.map((g) => JSON.stringify(g));
  for (const group of groups) out[`members ${group.id}`] = [JSON.stringify((await owner.ok('GET', `/v1/minds/agent-groups/${group.id}/members`)).members)];
  for (const mind of minds) {
    out[`attachments ${mind.mind_id}`] = [JSON.stringify((await owner.ok('GET', `/v1/minds/${mind.mind_id}/attachments`)).attachments)];
  }
  // The memory reads below touch each Mind's last activity, which the usage report shows: the report is read
  // after them in the snapshot taken before, and before them in the one taken after.
  const readUsage = async () => {
    const usage = await owner.ok('GET', `/v1/minds/usage?from=${encodeURIComponent(usageWindow.from)}&to=${encodeURIComponent(usageWindow.to)}`);
    out.usage = (usage.minds as Record<string, unknown>[]).map((m) =>
      JSON.stringify({ mind_id: m.mind_id, desired_state: m.desired_state, observed_state: m.observed_state, stop_reason: m.stop_reason, last_activity_at: m.last_activity_at }),
    );
  };
  if (role === 'after') await readUsage();
  for (const mindId of mindIds) {
    for (const text of ['hostile probe zebra', 'Monday weekly summaries', 'export job timeout', 'ticket retries']) {
      out[`search ${mindId} ${text}`] = [JSON.stringify((await owner.ok('POST', `/v1/minds/search?mind=${mindId}`, { text, limit: 100 })).items)];
    }
  }
  for (const id of storageIds.owner) out[`read ${id}`] = [JSON.stringify(await owner.ok('GET', `/v1/minds/memory/episodic/${id}?mind=${agentMindId}`))];
  for (const id of storageIds.agent) out[`agent read ${id}`] = [JSON.stringify(await agent.ok('GET', `/v1/minds/agent/memory/episodic/${id}?mind=${agentMindId}`))];
  out['agent search'] = [JSON.stringify((await agent.ok('POST', `/v1/minds/agent/search?mind=${agentMindId}`, { text: 'hostile probe zebra', limit: 100 })).items)];
  if (role === 'before') await readUsage();
  return out;
}

/** The differences between two snapshots, at most `limit` lines. */
export function snapshotDiff(before: Snapshot, after: Snapshot, limit = 20): string[] {
  const out: string[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = before[key] ?? [];
    const b = after[key] ?? [];
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const removed = a.filter((row) => !b.includes(row));
    const added = b.filter((row) => !a.includes(row));
    out.push(`${key}: ${a.length} -> ${b.length} rows`);
    for (const row of removed.slice(0, 3)) {
      const twin = added.find((other) => firstField(other) === firstField(row));
      if (twin) out.push(`  ~ ${changedFields(row, twin)}`);
      else out.push(`  - ${row.slice(0, 400)}`);
    }
    for (const row of added.filter((r) => !removed.some((o) => firstField(o) === firstField(r))).slice(0, 3)) out.push(`  + ${row.slice(0, 400)}`);
  }
  return out.slice(0, limit);
}

function parse(row: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(row);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { value: row };
  }
}

/** The row's identity: its id, or its first column (the `order by 1` key). */
function firstField(row: string): string {
  const value = parse(row);
  return JSON.stringify(value.mind_id ?? value.id ?? value.storage_id ?? Object.values(value)[0]);
}

function changedFields(before: string, after: string): string {
  const a = parse(before);
  const b = parse(after);
  const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  return `${firstField(before)}: ${fields.map((k) => `${k} ${JSON.stringify(a[k])?.slice(0, 80)} -> ${JSON.stringify(b[k])?.slice(0, 80)}`).join(', ')}`;
}
