/**
 * CPU time per request, per process, for one request path through the real
 * stack: `npx tsx scripts/bench/cpu-per-request.ts <whoami|getMind> [connections]`.
 * Reads utime+stime of the gateway, the Minds service and this load generator
 * (and, on PostgreSQL, of the server's processes) from /proc around a 10 s autocannon run, so a change's effect shows as
 * microseconds of CPU per request instead of a noisy req/s. BENCH_DATABASE_URL
 * puts the stack on PostgreSQL; BENCH_CPU_PROFILE_DIR adds V8 profiles.
 */
import autocannon from 'autocannon';
import { cpuMs, postgresCpuMs } from './figures.js';
import { operationPath } from '@gateway-minds/contract';
import { readyMind, startStack } from './stack.js';

const path = process.argv[2] === 'whoami' ? 'whoami' : 'getMind';
const connections = Number(process.argv[3] ?? 10);
const onPostgres = Boolean(process.env.BENCH_DATABASE_URL);
const stack = await startStack({ databaseUrl: process.env.BENCH_DATABASE_URL || undefined });
try {
  const token = (await stack.issue(path === 'whoami' ? 'api_key' : 'bridge_session')).token;
  const url = path === 'whoami' ? `${stack.gatewayUrl}${operationPath('gateway_getPrincipal')}` : `${stack.gatewayUrl}${operationPath('minds_getMind', { mind_id: await readyMind(stack, token) })}`;
  const headers = { authorization: `Bearer ${token}` };
  const sample = () => ({ gateway: cpuMs(stack.gateway.pid!), minds: cpuMs(stack.minds.pid!), autocannon: cpuMs('self'), postgres: onPostgres ? postgresCpuMs() : 0 });
  await autocannon({ url, connections, duration: 2, headers }); // warm-up
  const before = sample();
  const result = await autocannon({ url, connections, duration: 10, headers });
  const after = sample();
  console.log(`${path}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, ${result.non2xx} non-2xx`);
  for (const name of ['gateway', 'minds', 'autocannon', ...(onPostgres ? (['postgres'] as const) : [])] as const) {
    const used = after[name] - before[name];
    console.log(`  ${name}: ${Math.round((used * 1000) / result.requests.total)} µs CPU per request (${Math.round(used / 100)}% of a core)`);
  }
} finally {
  await stack.close();
}
