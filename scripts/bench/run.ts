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

const resultsDir = join(repoRoot, 'bench');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'RESULTS.md'), `${out.join('\n')}\n`);
console.log(`\nwritten to ${join(resultsDir, 'RESULTS.md')}`);
process.exit(0);
