/**
 * Durability: the Minds service runs as a real child
 * process (`node apps/minds/dist/main.js`) behind the gateway; it is killed
 * with SIGKILL in the middle of a stream of memory inserts and stop/resume
 * calls with Idempotency-Keys, started again, and then every acknowledged
 * write must be there, every acknowledged lifecycle call must replay its
 * answer, unacknowledged ones must resolve exactly once, and nothing may be
 * half-applied (src/durability/verify.ts). On PGlite, and on PostgreSQL when
 * TEST_DATABASE_URL is set.
 *
 * A killed PGlite holder leaves its directory lock behind; the next process
 * may take it over once it is 10 s old (packages/db, lockStaleMs, which the
 * Minds service leaves at its default): the restart waits for that, and the
 * time it took is printed. DURABILITY_KILLS (default 2) sets the kills per
 * driver.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Gateway } from '@gateway-minds/gateway';
import { HttpClient } from '../src/hostile/client.js';
import { freePort, mindsProcess, prepareStorage, sleep, startGatewayFor, waitForStaleLock, type Driver, type RunStorage, type ServiceProcess } from '../src/durability/processes.js';
import { verifyInserts, verifyLifecycle, verifyStorage, type RecoveryCounts } from '../src/durability/verify.js';
import { countOutcomes, runStream, type Ledger, type LifecycleMind } from '../src/durability/workload.js';

const drivers: Driver[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
const kills = Number(process.env.DURABILITY_KILLS ?? 2);
/** Acknowledged writes each cycle reaches before the kill. */
const MIN_INSERTS = 60;
const MIN_LIFECYCLE = 4;

async function issueSession(gateway: Gateway): Promise<string> {
  const response = await fetch(`${gateway.adminUrl}/admin/credentials`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'bridge_session' }),
  });
  if (!response.ok) throw new Error(`issue: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

async function createReadyMinds(client: HttpClient, token: string, names: string[]): Promise<string[]> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const list = await client.send({ method: 'GET', path: '/v1/minds/services', headers });
  const ids: string[] = [];
  for (const name of names) {
    const created = await client.send({
      method: 'POST',
      path: '/v1/minds/services',
      headers: { ...headers, 'idempotency-key': randomUUID(), 'x-platform-minds-creation-context': list.json.context_sha256 },
      body: JSON.stringify({ name }),
    });
    if (created.status !== 202) throw new Error(`create: ${created.status} ${created.text}`);
    ids.push(created.json.mind_id);
  }
  for (const id of ids) {
    for (let i = 0; ; i++) {
      const mind = await client.send({ method: 'GET', path: `/v1/minds/services/${id}`, headers });
      if (mind.json?.status === 'ready') break;
      if (i > 300) throw new Error(`Mind ${id} not ready: ${mind.text}`);
      await sleep(50);
    }
  }
  return ids;
}

describe.each(drivers)('durability on %s', (driver) => {
  it(`acknowledged writes survive ${kills} kill -9 of the Minds process mid-stream; nothing is half-applied`, async () => {
    let storage: RunStorage | undefined;
    let gateway: Gateway | undefined;
    let minds: ServiceProcess | undefined;
    let client: HttpClient | undefined;
    try {
      storage = await prepareStorage(driver, 'durability');
      const port = await freePort();
      gateway = await startGatewayFor(storage, port);
      minds = mindsProcess(storage, port, gateway.adminUrl);
      const first = await minds.start();
      gateway.probe.invalidate();
      client = new HttpClient(gateway.url, 16);
      const token = await issueSession(gateway);
      const memoryMinds = await createReadyMinds(client, token, ['Sandbox memory one', 'Sandbox memory two']);
      const lifecycleMinds: LifecycleMind[] = (await createReadyMinds(client, token, ['Sandbox lifecycle one', 'Sandbox lifecycle two', 'Sandbox lifecycle three'])).map((mindId) => ({
        mindId,
        generation: 1,
        state: 'running',
        busy: false,
        uncertain: false,
      }));
      console.log(`[${driver}] Minds process ${minds.pid} started in ${first.ms} ms`);

      const ledger: Ledger = { inserts: [], lifecycle: [] };
      const problems: string[] = [];
      let inserts: RecoveryCounts = { acknowledged: 0, recovered: 0, lost: 0, unknown: 0, unknownCommitted: 0 };
      let lifecycle: RecoveryCounts = { ...inserts };
      for (let cycle = 1; cycle <= kills; cycle++) {
        let stopStream!: () => void;
        const until = new Promise<void>((resolve) => (stopStream = resolve));
        const before = { inserts: ledger.inserts.length, lifecycle: ledger.lifecycle.length };
        const stream = runStream(client, token, ledger, { cycle, memoryMinds, lifecycleMinds, concurrency: 8, lifecycleShare: 0.25, until });
        // Kill once this cycle has acknowledged a fair number of writes, at a random moment after that.
        const acknowledgedSince = (list: { outcome: string }[], from: number) => list.slice(from).filter((a) => a.outcome === 'acknowledged').length;
        for (let waited = 0; waited < 15_000; waited += 20) {
          if (acknowledgedSince(ledger.inserts, before.inserts) >= MIN_INSERTS && acknowledgedSince(ledger.lifecycle, before.lifecycle) >= MIN_LIFECYCLE) break;
          await sleep(20);
        }
        await sleep(Math.floor(Math.random() * 250));
        stopStream(); // no new requests; those in flight stay in flight through the kill
        const inFlight = ledger.inserts.slice(before.inserts).filter((a) => a.status === 0).length + ledger.lifecycle.slice(before.lifecycle).filter((a) => a.status === 0).length;
        const killedAt = Date.now();
        const pid = minds.pid;
        await minds.kill();
        await stream;

        const statuses = new Map<number, number>();
        for (const a of [...ledger.inserts.slice(before.inserts), ...ledger.lifecycle.slice(before.lifecycle)]) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        const thisCycle = {
          inserts: countOutcomes(ledger.inserts.slice(before.inserts)),
          lifecycle: countOutcomes(ledger.lifecycle.slice(before.lifecycle)),
        };
        const lockWait = driver === 'pglite' ? await waitForStaleLock(storage.mindsPgliteDir) : 0;
        const restart = await minds.start();
        const restartMs = Date.now() - killedAt;
        gateway.probe.invalidate();

        const insertCheck = await verifyInserts(client, token, ledger);
        const lifecycleCheck = await verifyLifecycle(client, token, ledger, lifecycleMinds);
        problems.push(...insertCheck.problems.map((p) => `cycle ${cycle}: ${p}`), ...lifecycleCheck.problems.map((p) => `cycle ${cycle}: ${p}`));
        console.log(
          `[${driver}] cycle ${cycle}: SIGKILL pid ${pid} with ${inFlight} requests in flight; this cycle inserts ${JSON.stringify(thisCycle.inserts)}, lifecycle ${JSON.stringify(thisCycle.lifecycle)}, statuses ${JSON.stringify(Object.fromEntries(statuses))}; ` +
            `restarted in ${(restartMs / 1000).toFixed(1)} s (lock wait ${(lockWait / 1000).toFixed(1)} s, ${restart.attempts} start${restart.attempts > 1 ? 's' : ''}); ` +
            `so far: inserts acknowledged ${insertCheck.counts.acknowledged}, recovered ${insertCheck.counts.recovered}, lost ${insertCheck.counts.lost}; ` +
            `lifecycle acknowledged ${lifecycleCheck.counts.acknowledged}, recovered ${lifecycleCheck.counts.recovered}, lost ${lifecycleCheck.counts.lost}, ` +
            `unacknowledged resolved ${lifecycleCheck.counts.unknown} (${lifecycleCheck.counts.unknownCommitted} had committed)`,
        );
        inserts = insertCheck.counts;
        // Acknowledged and recovered are cumulative (every earlier write is checked again); unknowns are per cycle.
        lifecycle = {
          ...lifecycleCheck.counts,
          unknown: lifecycle.unknown + lifecycleCheck.counts.unknown,
          unknownCommitted: lifecycle.unknownCommitted + lifecycleCheck.counts.unknownCommitted,
        };
      }

      // The database itself, once no process holds it.
      await minds.stop();
      const db = await storage.openMindsDb();
      let storageCheck;
      try {
        storageCheck = await verifyStorage(db, ledger, lifecycleMinds);
      } finally {
        await db.close();
      }
      problems.push(...storageCheck.problems);
      const acknowledged = inserts.acknowledged + lifecycle.acknowledged;
      const recovered = inserts.recovered + lifecycle.recovered;
      console.log(
        `[${driver}] DURABILITY: acknowledged ${acknowledged} (inserts ${inserts.acknowledged}, lifecycle ${lifecycle.acknowledged}), recovered ${recovered}, lost ${acknowledged - recovered}; ` +
          `unacknowledged inserts ${storageCheck.counts.unknownInserts} (${storageCheck.counts.unknownPresent} committed whole, ${storageCheck.counts.unknownInserts - storageCheck.counts.unknownPresent} absent), ` +
          `unacknowledged lifecycle ${lifecycle.unknown} (${lifecycle.unknownCommitted} committed), memory rows ${storageCheck.counts.rows}, half-applied or phantom rows ${storageCheck.counts.halfApplied}, ` +
          `idempotency records without a response ${storageCheck.counts.incompleteReservations}`,
      );
      for (const problem of problems.slice(0, 20)) console.log(`[${driver}] PROBLEM ${problem}`);
      expect(inserts.acknowledged).toBeGreaterThan(0);
      expect(lifecycle.acknowledged).toBeGreaterThan(0);
      expect(acknowledged - recovered).toBe(0);
      expect(problems.slice(0, 20)).toEqual([]);
    } finally {
      client?.close();
      await minds?.stop().catch(() => {});
      await gateway?.close().catch(() => {});
      await storage?.dispose().catch(() => {});
    }
  }, 120_000);
});
