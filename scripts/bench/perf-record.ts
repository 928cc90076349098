/**
 * CPU samples of the gateway and the Minds service under load, kernel and V8 runtime included:
 * `BENCH_PERF_MAP=1 npx tsx scripts/bench/perf-record.ts <whoami|getMind>` (on PostgreSQL with BENCH_DATABASE_URL;
 * BENCH_PERF_ENV='{"NODE_ENV":"development"}' profiles the services as `npm start` runs them), then
 * `perf report -i /tmp/perf-<path>.data --no-children --sort sym`. Unlike a V8 CPU profile, which
 * charges wall time to whatever JavaScript is on the stack, `perf` with the cpu-clock event counts
 * only time on a CPU, and shows what V8 itself does (inline-cache misses, map changes, GC) and what
 * the kernel does for a socket write. That is how the per-request prototype change of Express was
 * found (packages/service-kit/src/express-prototypes.ts). BENCH_PERF_MAP starts the services with
 * --perf-basic-prof so that JIT frames have names; they can be wrong where V8 reused code memory.
 * BENCH_PERF_MAP=jitdump names them right: the services dump each code object as V8 makes it, and
 * this script writes `/tmp/perf-<path>.jit.data` with them injected (read it with `perf report -i`
 * or `perf script -i`). That is how the PGlite locks and row descriptions were found
 * (packages/db/src/pglite-statements.ts). Needs Debian's linux-perf (`perf`).
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { operationPath } from '@gateway-minds/contract';
import { envFromJson, perfJitDumpDir } from './processes.js';
import { readyMind, startStack } from './stack.js';
const path = process.argv[2] === 'whoami' ? 'whoami' : 'getMind';
rmSync(perfJitDumpDir, { recursive: true, force: true }); // the last run's dumps
const stack = await startStack({ databaseUrl: process.env.BENCH_DATABASE_URL || undefined, env: envFromJson(process.env.BENCH_PERF_ENV) });
const token = (await stack.issue(path === 'whoami' ? 'api_key' : 'bridge_session')).token;
const url = path === 'whoami' ? `${stack.gatewayUrl}${operationPath('gateway_getPrincipal')}` : `${stack.gatewayUrl}${operationPath('minds_getMind', { mind_id: await readyMind(stack, token) })}`;
const headers = { authorization: `Bearer ${token}` };
await autocannon({ url, connections: 10, duration: 3, headers });
const jitdump = process.env.BENCH_PERF_MAP === 'jitdump';
const perf = spawn('perf', ['record', '-e', 'cpu-clock', '-F', '2000', '-g', ...(jitdump ? ['-k', 'mono'] : []), '-o', `/tmp/perf-${path}.data`, '-p', `${stack.gateway.pid},${stack.minds.pid}`, '--', 'sleep', '8'], { stdio: 'inherit' });
const r = await autocannon({ url, connections: 10, duration: 9, headers });
await new Promise((res) => perf.once('exit', res));
console.log(`${Math.round(r.requests.average)} req/s, gateway ${stack.gateway.pid}, minds ${stack.minds.pid}`);
await stack.close();
if (jitdump) {
  // The injected code objects are written beside the dumps, in the temporary directory.
  const inject = spawn('perf', ['inject', '--jit', '-i', `/tmp/perf-${path}.data`, '-o', `/tmp/perf-${path}.jit.data`], { stdio: 'inherit', cwd: perfJitDumpDir });
  await new Promise((res) => inject.once('exit', res));
  console.log(`/tmp/perf-${path}.jit.data (code objects in ${perfJitDumpDir})`);
}
