/**
 * `npm run bench:controller -w @gateway-minds/bench`: does the Minds controller keep up? On PostgreSQL,
 * two controller replicas (two processes, each on its own pool, servers/controller-replica.ts) share
 * one schema seeded with 10,000 running Minds (bulk insert, heartbeats spread over one heartbeat).
 * New Minds are then created at a steady rate, and the bench measures:
 *   - each new Mind's time from creation to ready, minus the simulated host's provisioning time;
 *   - reconciles per second, both replicas together;
 *   - heartbeat lag of the running Minds (now − the host's last report), sampled every second.
 * The same run is made with the controller before the due-time queue (its source from git, the
 * parent of the commit that added migration 0004), unless BENCH_CTL_BEFORE=0.
 *
 * Prints the figures with the CPU model and load, and writes them to bench/RESULTS.md as its own
 * section, keeping every other section (and "## History") as it is.
 *
 * Settings: BENCH_DATABASE_URL (default TEST_DATABASE_URL or the local server), BENCH_CTL_RUNNING
 * (10000), BENCH_CTL_RATE (new Minds a second, 5), BENCH_CTL_SECONDS (60), BENCH_CTL_PROVISION_MS
 * (200), and the controller's own: BENCH_CTL_BATCH, _TICK_MS, _HEARTBEAT_MS, _LEASE_MS, _CONCURRENCY.
 */
import { execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '@gateway-minds/db';
import { CONTROLLER_DEFAULTS, WORK_CHANNEL } from '@gateway-minds/minds';
import { MINDS_PAGE_COST, migrationsDir } from '@gateway-minds/minds/internals';
import { median, percentile } from './figures.js';
import { forkServer, repoRoot } from './processes.js';

const databaseUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const numberEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const runningCount = numberEnv('BENCH_CTL_RUNNING', 10_000);
const ratePerSecond = numberEnv('BENCH_CTL_RATE', 5);
const windowSeconds = numberEnv('BENCH_CTL_SECONDS', 60);
const provisionMs = numberEnv('BENCH_CTL_PROVISION_MS', 200);
const settings = {
  batchSize: numberEnv('BENCH_CTL_BATCH', CONTROLLER_DEFAULTS.batchSize),
  tickMs: numberEnv('BENCH_CTL_TICK_MS', CONTROLLER_DEFAULTS.tickMs),
  leaseMs: numberEnv('BENCH_CTL_LEASE_MS', CONTROLLER_DEFAULTS.leaseMs),
  concurrency: numberEnv('BENCH_CTL_CONCURRENCY', CONTROLLER_DEFAULTS.concurrency),
};
/**
 * Heartbeats to run at (comma-separated ms): the default, which 10,000 Minds on this machine cannot keep
 * (2,000 observations a second), shows whether new work waits behind a heartbeat backlog; a longer one,
 * which they can keep, shows the lag a keeping-up controller leaves.
 */
const heartbeats = (process.env.BENCH_CTL_HEARTBEAT_MS ?? `${CONTROLLER_DEFAULTS.heartbeatMs},60000`).split(',').map(Number);
/** After the creation window, how long the bench waits for the last new Minds to become ready. */
const drainSeconds = numberEnv('BENCH_CTL_DRAIN_SECONDS', 30);
const replicas = 2;
const seedOrg = 'org_bench_running';
const newOrg = 'org_bench_new';

interface RunFigures {
  controller: 'before' | 'after';
  heartbeatMs: number;
  created: number;
  ready: number;
  /** Seconds from creation to ready, minus provisioning, of the Minds that became ready. */
  readyOverProvision: number[];
  reconcilesPerSecond: number;
  /** Per one-second sample over the running Minds: p50, p99 and max of now − host_reported_at, seconds. */
  lagSamples: { p50: number; p99: number; max: number }[];
  loadBefore: number;
  loadAfter: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The running Minds, as a controller that has been at work for a while leaves them: heartbeats spread evenly over one heartbeat. */
async function seed(db: Database, heartbeatMs: number): Promise<void> {
  const heartbeatSeconds = heartbeatMs / 1000;
  await db.query(
    `INSERT INTO minds (mind_id, organization_id, project_id, created_by, name, region, plan, profile_id, cpus, memory_mb, volume_size_gb,
       services, volume_id, base_url, desired_state, desired_generation, observed_state, observed_generation, host_requested_generation,
       observed_capacity, status, capacity_applied, host_reported_at, volume_provisioned_at, telemetry_through, created_at, updated_at, due_lane, due_at)
     SELECT id, $1, 'prj_bench', 'usr_bench', 'Sandbox ' || i, 'local', 'pro', 'D1', 2, 4096, 20,
       '["memory"]', gen_random_uuid(), 'https://' || id || '.minds.localhost', 'running', 1, 'running', 1, 1,
       '{"profile_id":"D1","cpus":2,"memory_mb":4096,"volume_size_gb":20}', 'ready', true, reported, created, reported, created, created,
       1, reported + make_interval(secs => $3)
     FROM (SELECT gen_random_uuid() AS id, i, now() - interval '1 day' AS created,
                  now() - make_interval(secs => $3 * i / $2::double precision) AS reported
             FROM generate_series(1, $2::int) AS i) AS s`,
    [seedOrg, runningCount, heartbeatSeconds],
  );
  await db.query(
    `INSERT INTO simulated_host_instances (mind_id, generation, target_state, from_state, from_generation, requested_at, due_at,
       cpus, memory_mb, volume_size_gb, profile_id, volume_created_at)
     SELECT mind_id, 1, 'running', 'absent', 0, created_at, created_at, cpus, memory_mb, volume_size_gb, profile_id, created_at
       FROM minds WHERE organization_id = $1`,
    [seedOrg],
  );
  await db.query(
    `INSERT INTO mind_running_intervals (mind_id, organization_id, project_id, generation, cpus, memory_mb, started_at)
     SELECT mind_id, organization_id, project_id, 1, cpus, memory_mb, created_at FROM minds WHERE organization_id = $1`,
    [seedOrg],
  );
  await db.exec('ANALYZE minds; ANALYZE simulated_host_instances; ANALYZE mind_running_intervals');
}

/**
 * A new Mind as createMind writes it (lifecycle.ts): desired running at generation 1, observed pending,
 * due now in the changed lane, and the replicas notified.
 */
async function createMind(db: Database, i: number): Promise<void> {
  await db.query(
    `WITH created AS (INSERT INTO minds (mind_id, organization_id, project_id, created_by, name, region, plan, profile_id, cpus, memory_mb, volume_size_gb,
       services, volume_id, base_url, desired_state, desired_generation, observed_state, observed_generation, status,
       last_activity_at, created_at, updated_at, due_lane, due_at)
     VALUES (gen_random_uuid(), $1, 'prj_bench', 'usr_bench', $2, 'local', 'pro', 'D1', 2, 4096, 20,
       '["memory"]', gen_random_uuid(), 'https://new.minds.localhost', 'running', 1, 'pending', 0, 'provisioning',
       now(), now(), now(), 0, now()) RETURNING mind_id)
     SELECT pg_notify('${WORK_CHANNEL}', current_schema()) FROM created`,
    [newOrg, `Sandbox new ${i}`],
  );
}

/** The controller before the due-time queue, from git, next to the built modules it imports. */
function legacyControllerModule(): string {
  const added = execFileSync('git', ['log', '--format=%H', '--diff-filter=A', '-1', '--', 'apps/minds/migrations/0004_controller_due_queue.sql'], { cwd: repoRoot, encoding: 'utf8' }).trim();
  if (!added) throw new Error('cannot find the commit that added the due-time queue');
  const source = execFileSync('git', ['show', `${added}^:apps/minds/src/controller/controller.ts`], { cwd: repoRoot, encoding: 'utf8' });
  const file = join(repoRoot, 'apps/minds/dist/controller/bench-controller-before.ts');
  writeFileSync(file, source);
  return file;
}

async function run(controller: 'before' | 'after', heartbeatMs: number): Promise<RunFigures> {
  const schema = `bench_controller_${randomBytes(5).toString('hex')}`;
  const db = await openDatabase({ url: databaseUrl, schema, migrationsDir, pageCost: MINDS_PAGE_COST, poolSize: 4 });
  const legacyModule = controller === 'before' ? legacyControllerModule() : undefined;
  const children: ChildProcess[] = [];
  const reconciles = new Map<ChildProcess, number>();
  try {
    console.log(`controller (${controller}, heartbeat ${heartbeatMs} ms): seeding ${runningCount} running Minds in ${schema}`);
    await seed(db, heartbeatMs);
    for (let i = 0; i < replicas; i++) {
      const child = await forkServer('servers/controller-replica.ts', {
        BENCH_CTL_DATABASE_URL: databaseUrl,
        BENCH_CTL_SCHEMA: schema,
        BENCH_CTL_PROVISION_MS: String(provisionMs),
        BENCH_CTL_SETTINGS: JSON.stringify({ ...settings, heartbeatMs }),
        ...(legacyModule ? { BENCH_CTL_LEGACY_MODULE: legacyModule } : {}),
      });
      child.on('message', (message: { reconciles?: number }) => {
        if (typeof message.reconciles === 'number') reconciles.set(child, message.reconciles);
      });
      children.push(child);
    }
    const totalReconciles = () => [...reconciles.values()].reduce((a, b) => a + b, 0);
    // One heartbeat (at most 15 s) for the replicas to settle into their pace.
    await sleep(Math.min(heartbeatMs, 15_000));

    console.log(`controller (${controller}): creating ${ratePerSecond} new Minds a second for ${windowSeconds} s`);
    const loadBefore = loadavg()[0]!;
    const reconcilesAtStart = totalReconciles();
    const started = Date.now();
    const lagSamples: RunFigures['lagSamples'] = [];
    let created = 0;
    const creating = (async () => {
      const total = Math.round(ratePerSecond * windowSeconds);
      for (let i = 0; i < total; i++) {
        const due = started + (i * 1000) / ratePerSecond;
        if (due > Date.now()) await sleep(due - Date.now());
        await createMind(db, i);
        created++;
      }
    })();
    const sampling = (async () => {
      while (Date.now() - started < windowSeconds * 1000) {
        const { rows } = await db.query<{ p50: number; p99: number; max: number }>(
          `SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY lag) AS p50, percentile_disc(0.99) WITHIN GROUP (ORDER BY lag) AS p99, max(lag) AS max
             FROM (SELECT extract(epoch FROM now() - host_reported_at)::double precision AS lag FROM minds WHERE organization_id = $1 AND observed_state = 'running') AS l`,
          [seedOrg],
        );
        lagSamples.push(rows[0]!);
        await sleep(1000);
      }
    })();
    await Promise.all([creating, sampling]);
    const elapsedSeconds = (Date.now() - started) / 1000;
    const reconcilesPerSecond = (totalReconciles() - reconcilesAtStart) / elapsedSeconds;
    const loadAfter = loadavg()[0]!;

    const notReady = async () =>
      (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM minds WHERE organization_id = $1 AND status <> 'ready'`, [newOrg])).rows[0]!.n;
    const drainUntil = Date.now() + drainSeconds * 1000;
    while ((await notReady()) > 0 && Date.now() < drainUntil) await sleep(250);
    // The write that made a Mind ready set updated_at (a heartbeat that changes nothing leaves it).
    const { rows } = await db.query<{ seconds: number }>(
      `SELECT extract(epoch FROM updated_at - created_at)::double precision - $2::double precision / 1000 AS seconds
         FROM minds WHERE organization_id = $1 AND status = 'ready'`,
      [newOrg, provisionMs],
    );
    return {
      controller,
      heartbeatMs,
      created,
      ready: rows.length,
      readyOverProvision: rows.map((r) => r.seconds).sort((a, b) => a - b),
      reconcilesPerSecond,
      lagSamples,
      loadBefore,
      loadAfter,
    };
  } finally {
    for (const child of children) {
      child.send('stop');
      await new Promise((resolve) => {
        child.once('exit', resolve);
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      });
    }
    if (legacyModule) rmSync(legacyModule, { force: true });
    await db.exec(`DROP SCHEMA "${schema}" CASCADE`);
    await db.close();
  }
}

const runs: RunFigures[] = [];
for (const heartbeatMs of heartbeats) {
  runs.push(await run('after', heartbeatMs));
  if (process.env.BENCH_CTL_BEFORE !== '0') runs.push(await run('before', heartbeatMs));
}

const out: string[] = [];
const say = (line = '') => {
  console.log(line);
  out.push(line);
};
const seconds = (value: number) => `${value.toFixed(2)} s`;
/** A percentile of the new Minds' waits; a Mind not ready when the bench stopped waiting counts as longer than any. */
function waitPercentile(r: RunFigures, p: number): string {
  const index = Math.min(r.created - 1, Math.floor(r.created * p));
  return index < r.ready ? seconds(r.readyOverProvision[index]!) : `> ${windowSeconds + drainSeconds} s (not ready)`;
}
const lag = (r: RunFigures) => ({
  p50: median(r.lagSamples.map((s) => s.p50)),
  p99: median(r.lagSamples.map((s) => s.p99)),
  max: Math.max(...r.lagSamples.map((s) => s.max)),
});

say(`## Controller under load (PostgreSQL, ${replicas} replicas in their own processes, ${runningCount.toLocaleString('en')} running Minds)`);
say();
say(
  `Measured ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, load average ${runs.map((r) => `${r.loadBefore.toFixed(1)}→${r.loadAfter.toFixed(1)}`).join(' and ')} ` +
    `during the ${runs.length > 1 ? 'runs' : 'run'} (the replicas, PostgreSQL and the bench share the machine). ` +
    `${ratePerSecond} new Minds a second for ${windowSeconds} s; simulated provisioning ${provisionMs} ms; controller settings: batch ${settings.batchSize}, ` +
    `tick ${settings.tickMs} ms, lease ${settings.leaseMs} ms, concurrency ${settings.concurrency} ("before" reconciles one at a time). ` +
    `"before" is the controller that claimed the oldest \`updated_at\` first; "after" the due-time queue, woken by the notification each creation sends.`,
);
say();
say('| heartbeat | controller | new Minds ready | creation → ready − provisioning, p50 | p99 | reconciles/s (both replicas) | heartbeat lag p50 | p99 | max |');
say('|---|---|---|---|---|---|---|---|---|');
for (const r of runs) {
  const l = lag(r);
  say(`| ${seconds(r.heartbeatMs / 1000)} | ${r.controller} | ${r.ready} of ${r.created} | ${waitPercentile(r, 0.5)} | ${waitPercentile(r, 0.99)} | ${Math.round(r.reconcilesPerSecond)} | ${seconds(l.p50)} | ${seconds(l.p99)} | ${seconds(l.max)} |`);
}
say();
say('| target | heartbeat | measured | verdict |');
say('|---|---|---|---|');
for (const after of runs.filter((r) => r.controller === 'after')) {
  const p99 = after.ready === after.created ? percentile(after.readyOverProvision, 0.99) : Infinity;
  say(`| new Mind ready within provisioning + 2 s (p99) | ${seconds(after.heartbeatMs / 1000)} | ${waitPercentile(after, 0.99)} over provisioning | ${p99 <= 2 ? 'met' : '**missed**'} |`);
}
for (const after of runs.filter((r) => r.controller === 'after')) {
  const afterLag = lag(after);
  const needed = runningCount / (after.heartbeatMs / 1000);
  const verdictText = afterLag.p99 <= (after.heartbeatMs / 1000) * 1.5 ? 'met' : `**missed** (keeping it needs ${Math.round(needed)} reconciles/s)`;
  say(`| heartbeat lag p99 within 1.5 × the heartbeat | ${seconds(after.heartbeatMs / 1000)} | ${seconds(afterLag.p99)} | ${verdictText} |`);
}
say();
say('Heartbeat lag: each second, p50, p99 and max of now − the host\'s last report over the running Minds; the table gives the median second\'s p50 and p99 and the largest max.');

const resultsFile = join(repoRoot, 'bench/RESULTS.md');
const previous = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
const section = out.join('\n').trimEnd();
const blocks = previous.trimEnd().split(/\n(?=## )/);
const at = blocks.findIndex((block) => block.startsWith('## Controller under load'));
if (at >= 0) blocks[at] = section;
else {
  const history = blocks.findIndex((block) => block.startsWith('## History'));
  blocks.splice(history >= 0 ? history : blocks.length, 0, section);
}
writeFileSync(resultsFile, `${blocks.map((block) => block.trimEnd()).join('\n\n')}\n`);
console.log(`\nwritten to ${resultsFile}`);
process.exit(0);
