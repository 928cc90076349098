/**
 * Soak: mixed traffic against a real stack for a while, watching throughput,
 * latency and the resident memory of each process.
 *
 *   npm run soak -w @gateway-minds/conformance          # 300 s
 *   SOAK_SECONDS=60 npm run soak -w @gateway-minds/conformance
 *
 * The gateway and the Minds service run as two child processes
 * (`node apps/<name>/dist/main.js`, NODE_ENV=production, on 127.0.0.1 and
 * free ports, each on its own PGlite directory, or SOAK_DRIVER=postgres with
 * TEST_DATABASE_URL for a throwaway PostgreSQL database). This process drives
 * SOAK_CONCURRENCY (default 8) workers of reads, searches, inserts, updates
 * and stop/resume calls through the gateway, prints a line every 10 s
 * (throughput, p50/p99 latency, errors, RSS of the gateway, the Minds service
 * and this driver), and stops by itself after SOAK_SECONDS (default 300).
 *
 * Memory judgement: for each service, the average RSS of the last third of the
 * run against the middle third (the first third is warm-up): "growing" when
 * the last is more than 10 % and more than 16 MiB above the middle, else
 * "stable". Exit code 1 on any 5xx or unanswered request, or a growing service.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpClient, type RawAnswer, type RawRequest } from './hostile/client.js';
import { freePort, mainOf, mindsProcess, prepareStorage, rssOf, ServiceProcess, sleep, type Driver } from './durability/processes.js';

const seconds = Number(process.env.SOAK_SECONDS ?? 300);
const concurrency = Number(process.env.SOAK_CONCURRENCY ?? 8);
const sampleEveryMs = Number(process.env.SOAK_SAMPLE_MS ?? 10_000);
const driver = (process.env.SOAK_DRIVER ?? 'pglite') as Driver;
const GROWTH_RATIO = 0.1;
const GROWTH_BYTES = 16 * 1024 * 1024;

type Kind = 'getMind' | 'listMinds' | 'readMemory' | 'search' | 'agentSearch' | 'insert' | 'agentInsert' | 'update' | 'lifecycle';
/** The mix, by weight: reads 40, searches 20, inserts 25, updates 5, lifecycle 10. */
const MIX: [Kind, number][] = [
  ['getMind', 20],
  ['listMinds', 10],
  ['readMemory', 10],
  ['search', 15],
  ['agentSearch', 5],
  ['insert', 20],
  ['agentInsert', 5],
  ['update', 5],
  ['lifecycle', 10],
];

interface Window {
  latencies: number[];
  serverErrors: number;
  unanswered: number;
  unexpected: number;
}
const newWindow = (): Window => ({ latencies: [], serverErrors: 0, unanswered: 0, unexpected: 0 });

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}
const mb = (bytes: number | undefined) => (bytes === undefined ? '   n/a' : (bytes / 1024 / 1024).toFixed(1).padStart(6));
const average = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

async function main(): Promise<number> {
  const storage = await prepareStorage(driver, 'soak');
  const [gatewayPort, adminPort, mindsPort] = [await freePort(), await freePort(), await freePort()];
  const minds = mindsProcess(storage, mindsPort, `http://127.0.0.1:${adminPort}`, { NODE_ENV: 'production', MINDS_HOST_PROVISION_MS: '300', MINDS_HOST_STOP_MS: '200' });
  const gateway = new ServiceProcess('gateway', mainOf('@gateway-minds/gateway'), gatewayPort, {
    DATA_DIR: storage.dataDir,
    ADMIN_PORT: String(adminPort),
    MINDS_URL: minds.url,
    NODE_ENV: 'production',
    RATE_LIMIT_POINTS: '100000000',
    ...storage.gatewayEnv,
  });
  let stopping = false;
  const cleanup = async () => {
    await gateway.stop().catch(() => {});
    await minds.stop().catch(() => {});
    await storage.dispose().catch(() => {});
  };
  process.once('SIGINT', () => (stopping = true));
  process.once('SIGTERM', () => (stopping = true));
  try {
    await minds.start();
    await gateway.start('/v1/status');
    const client = new HttpClient(gateway.url, concurrency);
    const adminToken = readFileSync(join(storage.dataDir, 'admin-token'), 'utf8').trim();
    const admin = async (path: string, body: unknown) => {
      const response = await fetch(`http://127.0.0.1:${adminPort}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`admin ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as any;
    };
    const defaults = (await (await fetch(`http://127.0.0.1:${adminPort}/admin/defaults`, { headers: { authorization: `Bearer ${adminToken}` } })).json()) as { organization_id: string };

    // The world: a session, Minds for memory and for lifecycle, an agent attached to one Mind.
    const session = (await admin('/admin/credentials', { kind: 'bridge_session' })).token as string;
    const agent = await admin('/admin/agents', { organization_id: defaults.organization_id });
    const agentToken = (await admin('/admin/credentials', { kind: 'agent_token', agent_id: agent.id })).token as string;
    const human = { authorization: `Bearer ${session}`, 'content-type': 'application/json' };
    const agentHeaders = { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' };
    const must = async (request: RawRequest) => {
      const answer = await client.send(request);
      if (answer.status >= 300) throw new Error(`${request.method} ${request.path}: ${answer.status} ${answer.text}`);
      return answer.json;
    };
    const list = await must({ method: 'GET', path: '/v1/minds/services', headers: human });
    const create = async (name: string) =>
      (await must({ method: 'POST', path: '/v1/minds/services', headers: { ...human, 'idempotency-key': randomUUID(), 'x-platform-minds-creation-context': list.context_sha256 }, body: JSON.stringify({ name }) })).mind_id as string;
    const memoryMinds = [await create('Sandbox soak memory one'), await create('Sandbox soak memory two')];
    const lifecycleMinds = await Promise.all(['one', 'two', 'three'].map((n) => create(`Sandbox soak lifecycle ${n}`)));
    for (const id of [...memoryMinds, ...lifecycleMinds]) {
      for (let i = 0; (await must({ method: 'GET', path: `/v1/minds/services/${id}`, headers: human })).status !== 'ready'; i++) {
        if (i > 400) throw new Error(`Mind ${id} never became ready`);
        await sleep(50);
      }
    }
    await must({
      method: 'POST',
      path: `/v1/minds/${memoryMinds[0]}/attachments`,
      headers: human,
      body: JSON.stringify({ operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId: agent.id }, permissions: ['minds.agent_data.read', 'minds.agent_data.write'], expiresAt: Date.now() + 7 * 86_400_000 }),
    });
    const stored: { mindId: string; storageId: string; eventId: string }[] = [];
    const lifecycle = lifecycleMinds.map((mindId) => ({ mindId, generation: 1, state: 'running' as 'running' | 'stopped', busy: false }));

    const words = ['soak', 'memory', 'gateway', 'latency', 'heap', '\u00e9t\u00e9', '\u{1F331}', 'throughput', 'resident', 'steady'];
    const text = (n: number) => Array.from({ length: 8 + (n % 40) }, (_, i) => words[(n * 7 + i) % words.length]).join(' ');
    let n = 0;
    const pick = (): Kind => {
      const total = MIX.reduce((a, [, w]) => a + w, 0);
      let r = Math.random() * total;
      for (const [kind, weight] of MIX) if ((r -= weight) < 0) return kind;
      return 'getMind';
    };

    /** One request of the mix; returns its answer, or null when the mix had nothing to do. */
    async function one(kind: Kind): Promise<{ answer: RawAnswer | Error; expected: number } | null> {
      const mindId = memoryMinds[n % memoryMinds.length]!;
      const i = n++;
      const send = async (request: RawRequest, expected: number) => ({ answer: await client.send(request).catch((e: Error) => e), expected });
      switch (kind) {
        case 'getMind':
          return send({ method: 'GET', path: `/v1/minds/services/${mindId}`, headers: human }, 200);
        case 'listMinds':
          return send({ method: 'GET', path: '/v1/minds/services?limit=20', headers: human }, 200);
        case 'readMemory': {
          const event = stored[i % Math.max(1, stored.length)];
          if (!event) return null;
          return send({ method: 'GET', path: `/v1/minds/memory/episodic/${event.storageId}?mind=${event.mindId}`, headers: human }, 200);
        }
        case 'search':
          return send({ method: 'POST', path: `/v1/minds/search?mind=${mindId}`, headers: human, body: JSON.stringify({ text: words[i % words.length], limit: 10 }) }, 200);
        case 'agentSearch':
          return send({ method: 'POST', path: `/v1/minds/agent/search?mind=${memoryMinds[0]}`, headers: agentHeaders, body: JSON.stringify({ text: words[i % words.length] }) }, 200);
        case 'insert':
        case 'agentInsert': {
          const agentCall = kind === 'agentInsert';
          const target = agentCall ? memoryMinds[0]! : mindId;
          const event = { id: randomUUID(), content: `soak ${i} ${text(i)}`, timestamp: new Date().toISOString(), tags: ['soak'] };
          const path = agentCall ? `/v1/minds/agent/memory/episodic?mind=${target}` : `/v1/minds/memory/episodic?mind=${target}`;
          const result = await send({ method: 'POST', path, headers: agentCall ? agentHeaders : human, body: JSON.stringify({ event }) }, 200);
          if (!agentCall && !(result.answer instanceof Error) && result.answer.status === 200) {
            stored.push({ mindId: target, storageId: result.answer.json.id, eventId: event.id });
            if (stored.length > 5_000) stored.splice(0, stored.length - 5_000);
          }
          return result;
        }
        case 'update': {
          const event = stored[(i * 13) % Math.max(1, stored.length)];
          if (!event) return null;
          return send({ method: 'PUT', path: `/v1/minds/memory/episodic/${event.storageId}?mind=${event.mindId}`, headers: human, body: JSON.stringify({ event_id: event.eventId, content: `updated ${i} ${text(i)}` }) }, 200);
        }
        case 'lifecycle': {
          const mind = lifecycle.find((m) => !m.busy);
          if (!mind) return null;
          mind.busy = true;
          const action = mind.state === 'running' ? 'stop' : 'resume';
          const result = await send(
            { method: 'POST', path: `/v1/minds/services/${mind.mindId}/${action}`, headers: { ...human, 'idempotency-key': randomUUID() }, body: JSON.stringify({ expected_generation: mind.generation }) },
            202,
          );
          if (!(result.answer instanceof Error) && result.answer.status === 202) {
            mind.generation = result.answer.json.desired_generation;
            mind.state = result.answer.json.desired_state;
          }
          mind.busy = false;
          return result;
        }
      }
    }

    const total = newWindow();
    const byKind = new Map<Kind, number[]>();
    let window = newWindow();
    const samples: { t: number; gateway?: number; minds?: number; driver?: number }[] = [];
    const sample = (t: number) => samples.push({ t, gateway: gateway.rss(), minds: minds.rss(), driver: rssOf(process.pid) });
    const started = Date.now();
    const deadline = started + seconds * 1000;
    console.log(
      `soak: ${seconds} s of mixed traffic against ${gateway.url} (127.0.0.1 only), ${concurrency} workers, ${driver}; ` +
        `gateway pid ${gateway.pid}, minds pid ${minds.pid}, driver pid ${process.pid}; a line every ${sampleEveryMs / 1000} s`,
    );
    console.log(`${'t'.padStart(6)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'5xx'.padStart(4)} ${'other'.padStart(5)}   rss MB: gateway  minds  driver`);
    sample(0);
    let windowStart = started;
    const reporter = setInterval(() => {
      const now = Date.now();
      const sorted = [...window.latencies].sort((a, b) => a - b);
      const t = Math.round((now - started) / 1000);
      sample(t);
      const last = samples.at(-1)!;
      console.log(
        `${`${t}s`.padStart(6)} ${(window.latencies.length / ((now - windowStart) / 1000)).toFixed(0).padStart(7)} ${percentile(sorted, 0.5).toFixed(1).padStart(7)} ${percentile(sorted, 0.99).toFixed(1).padStart(7)} ` +
          `${String(window.serverErrors + window.unanswered).padStart(4)} ${String(window.unexpected).padStart(5)}           ${mb(last.gateway)} ${mb(last.minds)} ${mb(last.driver)}`,
      );
      window = newWindow();
      windowStart = now;
    }, sampleEveryMs);

    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (!stopping && Date.now() < deadline) {
          const kind = pick();
          const result = await one(kind);
          if (!result) continue;
          const { answer, expected } = result;
          for (const w of [window, total]) {
            if (answer instanceof Error) {
              w.unanswered++;
              continue;
            }
            w.latencies.push(answer.ms);
            if (answer.status >= 500) w.serverErrors++;
            else if (answer.status !== expected) w.unexpected++;
          }
          if (!(answer instanceof Error)) {
            const list = byKind.get(kind) ?? [];
            list.push(answer.ms);
            byKind.set(kind, list);
          }
          if (!(answer instanceof Error) && answer.status !== expected && total.unexpected + total.serverErrors <= 5) {
            console.log(`  unexpected ${kind}: ${answer.status} ${answer.text.slice(0, 200)}`);
          }
        }
      }),
    );
    clearInterval(reporter);
    const elapsed = (Date.now() - started) / 1000;
    client.close();

    const sorted = [...total.latencies].sort((a, b) => a - b);
    console.log(
      `totals: ${total.latencies.length} requests in ${elapsed.toFixed(0)} s = ${(total.latencies.length / elapsed).toFixed(0)} req/s; ` +
        `p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms; ` +
        `5xx ${total.serverErrors}, unanswered ${total.unanswered}, other unexpected ${total.unexpected}`,
    );
    console.log(
      'by operation: ' +
        MIX.map(([kind]) => {
          const values = [...(byKind.get(kind) ?? [])].sort((a, b) => a - b);
          return `${kind} ${values.length} (p50 ${percentile(values, 0.5).toFixed(1)}, p99 ${percentile(values, 0.99).toFixed(1)})`;
        }).join('; '),
    );

    // Memory: the middle third against the last third (the first third is warm-up).
    let growing = false;
    const measured = samples.filter((s) => s.t > 0);
    const third = Math.floor(measured.length / 3);
    for (const name of ['gateway', 'minds', 'driver'] as const) {
      const values = measured.map((s) => s[name]).filter((v): v is number => v !== undefined);
      if (values.length < 3) {
        console.log(`memory ${name}: ${values.length} samples, too few to judge (run longer than ${(3 * sampleEveryMs) / 1000} s)`);
        continue;
      }
      const middle = average(values.slice(third, values.length - third));
      const last = average(values.slice(values.length - third));
      const delta = last - middle;
      const verdict = delta > GROWTH_BYTES && delta / middle > GROWTH_RATIO ? 'growing' : 'stable';
      if (verdict === 'growing' && name !== 'driver') growing = true;
      console.log(
        `memory ${name}: middle third avg ${mb(middle).trim()} MB, last third avg ${mb(last).trim()} MB (${delta >= 0 ? '+' : ''}${(delta / 1024 / 1024).toFixed(1)} MB, ${((delta / middle) * 100).toFixed(1)} %), ` +
          `at start ${mb(samples[0]![name]).trim()} MB, peak ${mb(Math.max(...values)).trim()} MB -> ${verdict}${values.length < 9 ? ` (only ${values.length} samples: indicative)` : ''}`,
      );
    }
    const failed = total.serverErrors > 0 || total.unanswered > 0 || growing;
    console.log(`soak ${failed ? 'FAILED' : 'passed'}: ${total.serverErrors + total.unanswered} server errors or unanswered requests, memory ${growing ? 'growing' : 'stable'}`);
    return failed ? 1 : 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
