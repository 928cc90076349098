/**
 * `npm run bench`: measures, prints tables, and writes them to bench/RESULTS.md
 * with a description of the machine. Sections: throughput, search, pipeline,
 * startup (BENCH_SECTIONS=throughput,search to choose; BENCH_QUICK=1 for a
 * short smoke run). No test asserts on these numbers: they are read, compared
 * with the targets in the table, and acted on.
 */
import { cpus, freemem, totalmem, release } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './processes.js';
import { runPipeline } from './pipeline.js';
import { runSearch } from './search.js';
import { runStartup } from './startup.js';
import { runThroughput, type ThroughputReport } from './throughput.js';

const quick = process.env.BENCH_QUICK === '1';
const sections = (process.env.BENCH_SECTIONS ?? 'throughput,search,pipeline,startup').split(',');
const out: string[] = [];
const say = (line = '') => {
  console.log(line);
  out.push(line);
};

function table(header: string[], rows: (string | number)[][]): void {
  say(`| ${header.join(' | ')} |`);
  say(`|${header.map(() => '---').join('|')}|`);
  for (const row of rows) say(`| ${row.join(' | ')} |`);
  say();
}

const pct = (value: number) => `${Math.round(value * 100)}%`;
const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');

say('# Benchmark results');
say();
say(`Measured ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM (${Math.round(freemem() / 2 ** 30)} GiB free), Linux ${release()}, Node ${process.version}.`);
say('The load generator (autocannon) shares the two cores with the servers: compare rows within a run, as ratios, not across machines.');
say();

if (sections.includes('throughput')) {
  const options = quick ? { connections: 10, durationSeconds: 2, rounds: 1 } : { connections: 10, durationSeconds: 5, rounds: 3 };
  console.log(`throughput: ${options.connections} connections, ${options.durationSeconds} s per row, ${options.rounds} interleaved rounds`);
  const report: ThroughputReport = await runThroughput(options);
  const byName = (prefix: string) => report.rows.find((r) => r.name.startsWith(prefix))!;
  const bare = byName('bare Express');
  say(`## Throughput and latency (${options.connections} connections, ${options.durationSeconds} s per row, median of ${options.rounds} interleaved rounds)`);
  say();
  table(
    ['row', 'req/s', 'vs bare Express', 'p50 ms', 'p99 ms', 'errors'],
    report.rows.map((r) => [r.name, Math.round(r.requestsPerSecond), pct(r.requestsPerSecond / bare.requestsPerSecond), r.p50, r.p99, r.errors]),
  );
  const rung = (name: string) => byName(name).requestsPerSecond;
  const layers: [string, number][] = [
    ['request validation (express-openapi-validator)', rung('contract pipeline getMind, request validation') / bare.requestsPerSecond],
    ['response validation', rung('contract pipeline getMind, request + response') / rung('contract pipeline getMind, request validation')],
    ['authentication (credential lookup, rules) on the gateway', rung('gateway whoami') / rung('contract pipeline getMind, request + response')],
    ['signed assertion + forwarding (stub upstream)', rung('gateway getMind forwarded to a stub') / rung('gateway whoami')],
    ['the Minds service (assertion check, validation, database)', rung('gateway getMind forwarded to Minds') / rung('gateway getMind forwarded to a stub')],
  ];
  say('### Cost of each layer (throughput kept when the layer is added; lower is costlier)');
  say();
  table(['layer', 'throughput kept'], layers.map(([name, ratio]) => [name, pct(ratio)]));
  const slowest = [...layers].sort((a, b) => a[1] - b[1])[0]!;
  say(`Slowest layer: **${slowest[0]}** (keeps ${pct(slowest[1])}).`);
  say();
  const whoami = rung('gateway whoami') / bare.requestsPerSecond;
  const forwarded = rung('gateway getMind forwarded to Minds') / bare.requestsPerSecond;
  const versusMock = rung('gateway getMind forwarded to Minds') / rung('Prism mock getMind');
  say('### Targets');
  say();
  table(
    ['target', 'measured', 'verdict'],
    [
      ['gateway whoami ≥ 50% of bare Express', pct(whoami), verdict(whoami >= 0.5)],
      ['forwarded, validated Minds read ≥ 25% of bare Express', pct(forwarded), verdict(forwarded >= 0.25)],
      ['forwarded Minds read ≥ 3× the Prism mock', `${versusMock.toFixed(1)}×`, verdict(versusMock >= 3)],
    ],
  );
  say('### Resident memory (MiB)');
  say();
  table(['process', 'idle', 'peak under load', '3 s after the load'], report.memory.map((m) => [m.process, m.idleMiB, m.loadedMiB, m.afterMiB]));
}

if (sections.includes('search')) {
  const sizes = quick ? { pglite: [10_000], postgres: [10_000] } : { pglite: [10_000, 100_000], postgres: [10_000, 100_000, 1_000_000] };
  process.env.BENCH_DATABASE_URL ??= process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  console.log(`search: sizes ${JSON.stringify(sizes)}`);
  const report = await runSearch({ sizes, runs: quick ? 20 : 200 });
  say('## Memory search as memory grows (one Mind, LIMIT 20, ranked)');
  say();
  say('Insert rate through the service\'s insert (one statement per event, awaited one by one):');
  say();
  table(['driver', 'events/s'], report.insertRates.map((r) => [r.driver, r.perSecond]));
  table(
    ['driver', 'events', 'query', 'matches', 'p50 ms', 'p99 ms', 'GIN index used'],
    report.rows.map((r) => [r.driver, r.events, `"${r.term}"`, r.matches, r.p50.toFixed(2), r.p99.toFixed(2), r.index ? 'yes' : 'no']),
  );
  const at = (driver: string, events: number, term: string) => report.rows.find((r) => r.driver === driver && r.events === events && r.term === term);
  const pg100k = at('postgres', 100_000, 'orchid invoice');
  const pgl100k = at('pglite', 100_000, 'orchid invoice');
  const pg1m = at('postgres', 1_000_000, 'zephyrine');
  const pg10k = at('postgres', 10_000, 'zephyrine');
  say('### Targets');
  say();
  table(['target', 'measured', 'verdict'], [
    ['PostgreSQL p50 ≤ 5 ms at 100k ("orchid invoice")', pg100k ? `${pg100k.p50.toFixed(2)} ms` : 'not run', pg100k ? verdict(pg100k.p50 <= 5) : '-'],
    ['PostgreSQL p99 ≤ 20 ms at 100k ("orchid invoice")', pg100k ? `${pg100k.p99.toFixed(2)} ms` : 'not run', pg100k ? verdict(pg100k.p99 <= 20) : '-'],
    ['PGlite p50 ≤ 15 ms at 100k ("orchid invoice")', pgl100k ? `${pgl100k.p50.toFixed(2)} ms` : 'not run', pgl100k ? verdict(pgl100k.p50 <= 15) : '-'],
    ['growth well under linear to 1M (rare term, 100× the events)', pg1m && pg10k ? `${(pg1m.p50 / pg10k.p50).toFixed(1)}× the time` : 'not run', pg1m && pg10k ? verdict(pg1m.p50 / pg10k.p50 < 10) : '-'],
  ]);
  const lastPlan = report.plans.at(-1);
  if (lastPlan) {
    say(`Plan for "orchid" on ${lastPlan.driver} at ${lastPlan.events} events:`);
    say();
    say('```');
    say(lastPlan.plan);
    say('```');
    say();
  }
}

if (sections.includes('pipeline')) {
  console.log('pipeline: every task rebuilt, no-change rerun, one-line spec change');
  const steps = runPipeline();
  say('## The build pipeline (turbo, this working tree, 15 workspaces)');
  say();
  table(['step', 'seconds', 'turbo cache'], steps.map((s) => [s.step, s.seconds.toFixed(1), s.cached]));
  const replay = steps.find((s) => s.step.startsWith('no-change'))!;
  table(['target', 'measured', 'verdict'], [['no-change rerun ≤ 2 s', `${replay.seconds.toFixed(1)} s`, verdict(replay.seconds <= 2)]]);
}

if (sections.includes('startup')) {
  console.log('startup: npm start to the first 200 from /v1/status');
  const rows = await runStartup();
  say('## Start-up (to the first 200 from /v1/status)');
  say();
  table(['what', 'seconds'], rows.map((r) => [r.what, r.seconds.toFixed(2)]));
  const existing = rows.find((r) => r.what.includes('existing'))!;
  table(['target', 'measured', 'verdict'], [['existing data directory < 3 s', `${existing.seconds.toFixed(2)} s`, verdict(existing.seconds < 3)]]);
}

const resultsDir = join(repoRoot, 'bench');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'RESULTS.md'), `${out.join('\n')}\n`);
console.log(`\nwritten to ${join(resultsDir, 'RESULTS.md')}`);
process.exit(0);
