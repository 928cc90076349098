/**
 * CPU per request of two builds of the stack, interleaved, for judging one
 * change on this noisy machine: `BENCH_AB_BASE=<other checkout> npx tsx
 * scripts/bench/ab.ts <whoami|getMind> [rounds]`. The other checkout is a
 * built clone of the repository at the commit to compare with (for example
 * `git clone . /tmp/base && git -C /tmp/base checkout <commit> && (cd /tmp/base
 * && npm install && npx turbo run build)`). Both stacks run at once; each
 * round loads one and then the other for 3 s (alternating which goes first),
 * and the median of the rounds is printed, with head's CPU over base's taken round by round (the
 * two loaded back to back, so the host's drift falls on both). BENCH_AB_HEAD_ENV adds environment
 * to this checkout's services only (JSON), to compare a setting; BENCH_AB_ENV adds environment to
 * both (JSON), to compare two builds in another configuration (`{"NODE_ENV":"development"}`: as
 * `npm start` runs them).
 */
import autocannon from 'autocannon';
import { resolve } from 'node:path';
import { cpuMs, inRoundOrder, median, postgresCpuMs } from './figures.js';
import { envFromJson, repoRoot } from './processes.js';
import { operationPath } from '@gateway-minds/contract';

const path = process.argv[2] === 'whoami' ? 'whoami' : 'getMind';
const rounds = Number(process.argv[3] ?? 8);
if (!process.env.BENCH_AB_BASE) throw new Error('set BENCH_AB_BASE to a built checkout of the commit to compare with');
const checkouts = { base: resolve(process.env.BENCH_AB_BASE), head: repoRoot };
const onPostgres = Boolean(process.env.BENCH_DATABASE_URL);
const bothEnv = envFromJson(process.env.BENCH_AB_ENV);
const headEnv = { ...bothEnv, ...envFromJson(process.env.BENCH_AB_HEAD_ENV) };

type StackModule = typeof import('./stack.js');
interface Setup {
  name: string;
  stack: Awaited<ReturnType<StackModule['startStack']>>;
  url: string;
  headers: Record<string, string>;
  gateway: number[];
  minds: number[];
  postgres: number[];
  rps: number[];
}
const setups: Setup[] = [];
for (const [name, checkout] of Object.entries(checkouts)) {
  const { startStack, readyMind } = (await import(`${checkout}/scripts/bench/stack.ts`)) as StackModule;
  const stack = await startStack({ databaseUrl: process.env.BENCH_DATABASE_URL || undefined, env: name === 'head' ? headEnv : bothEnv });
  const token = (await stack.issue(path === 'whoami' ? 'api_key' : 'bridge_session')).token;
  const url = path === 'whoami' ? `${stack.gatewayUrl}${operationPath('gateway_getPrincipal')}` : `${stack.gatewayUrl}${operationPath('minds_getMind', { mind_id: await readyMind(stack, token) })}`;
  const headers = { authorization: `Bearer ${token}` };
  setups.push({ name, stack, url, headers, gateway: [], minds: [], postgres: [], rps: [] });
}
try {
  // Warmed up once both run, in turn: warmed as each started, the one started second came out a few
  // percent cheaper in A/A runs, whichever build it was.
  for (let round = 0; round < 2; round++) for (const setup of inRoundOrder(setups, round)) await autocannon({ url: setup.url, connections: 10, duration: 2, headers: setup.headers });
  for (let round = 0; round < rounds; round++) {
    for (const setup of inRoundOrder(setups, round)) {
      const before = { gateway: cpuMs(setup.stack.gateway.pid!), minds: cpuMs(setup.stack.minds.pid!), postgres: onPostgres ? postgresCpuMs() : 0 };
      const result = await autocannon({ url: setup.url, connections: 10, duration: 3, headers: setup.headers });
      setup.gateway.push(((cpuMs(setup.stack.gateway.pid!) - before.gateway) * 1000) / result.requests.total);
      setup.minds.push(((cpuMs(setup.stack.minds.pid!) - before.minds) * 1000) / result.requests.total);
      // Only one stack is under load at a time, so the server's CPU in the window is this stack's.
      if (onPostgres) setup.postgres.push(((postgresCpuMs() - before.postgres) * 1000) / result.requests.total);
      setup.rps.push(result.requests.average);
    }
  }
  // Each round loads the two back to back, so their ratio within a round cancels most of the
  // host's drift, which moves both alike (bench/README.md gives A/A runs: how small a change shows).
  const total = (s: Setup, round: number) => s.gateway[round]! + s.minds[round]! + (onPostgres ? s.postgres[round]! : 0);
  const [base, head] = [setups.find((s) => s.name === 'base')!, setups.find((s) => s.name === 'head')!];
  const ratios = Array.from({ length: rounds }, (_, round) => total(head, round) / total(base, round));
  const fixed = (n: number) => n.toFixed(3);
  console.log(`head / base, CPU per request${onPostgres ? ' (gateway + minds + postgres)' : ' (gateway + minds)'}, round by round: median ${fixed(median(ratios))} (rounds ${fixed(Math.min(...ratios))} to ${fixed(Math.max(...ratios))}; ${ratios.filter((r) => r < 1).length} of ${rounds} below 1)`);
  for (const s of setups) {
    console.log(`${s.name} (${checkouts[s.name as keyof typeof checkouts]}): ${path} ${Math.round(median(s.rps))} req/s; CPU per request: gateway ${Math.round(median(s.gateway))} µs, minds ${Math.round(median(s.minds))} µs${onPostgres ? `, postgres ${Math.round(median(s.postgres))} µs` : ''}`);
    // Round by round, in order: a figure that drifts as the rounds go shows a process still warming up.
    console.log(`  rounds, minds µs: ${s.minds.map(Math.round).join(' ')}; gateway µs: ${s.gateway.map(Math.round).join(' ')}`);
  }
} finally {
  for (const s of setups) await s.stack.close();
}
