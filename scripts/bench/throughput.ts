/**
 * Throughput and latency, side by side: every row gets the same connections
 * and duration, rows are interleaved round by round so that noise on this
 * shared machine falls on all of them, and the median round is reported.
 * The ladder of getMind rungs names the cost of each layer.
 */
import autocannon from 'autocannon';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { cpuMs, inRoundOrder, median, postgresCpuMs, systemCpuMs } from './figures.js';
import { forkServer, freePort, repoRoot, rssMiB, stop } from './processes.js';
import { operationPath } from '@gateway-minds/contract';
import { assertionKeyFiles, ensureAssertionKeys } from '@gateway-minds/service-kit';
import { call, newStackDataDir, readyMind, sentence, startAllInOne, startStack, type Stack } from './stack.js';
import { openStatementAlone, type StatementAlone } from './statement-alone.js';

export interface ThroughputOptions {
  connections: number;
  durationSeconds: number;
  rounds: number;
}

/** What a process does in a row: its CPU is recorded apart, so that a row's CPU can be split by layer. */
export type ServingProcess = 'server' | 'pipeline' | 'gateway' | 'stub' | 'minds' | 'mock' | 'postgres' | 'allInOne';
export type CpuByProcess = Partial<Record<ServingProcess, number>>;

interface Target {
  name: string;
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** The processes that serve the row (load generator excluded), by what they do, and whether PostgreSQL's do too. */
  processes: Partial<Record<Exclude<ServingProcess, 'postgres'>, number>>;
  postgres?: boolean;
}

export interface RowResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU microseconds the serving processes spent per request: steadier than req/s on a shared host. */
  cpuPerRequest: number;
  /** The same for each serving process; they sum to cpuPerRequest. */
  cpuPerRequestByProcess: CpuByProcess;
  /** The part of the serving processes' CPU (PostgreSQL's excluded) spent in the kernel, per request. */
  systemCpuPerRequest: number;
}

/** CPU milliseconds used so far by each serving process (PostgreSQL's server processes as one). */
function serverCpuMs(target: Target): [ServingProcess, number][] {
  const used = Object.entries(target.processes).map(([servingProcess, pid]): [ServingProcess, number] => [servingProcess as ServingProcess, cpuMs(pid)]);
  return target.postgres ? [...used, ['postgres', postgresCpuMs()]] : used;
}

const systemMs = (target: Target) => Object.values(target.processes).reduce((sum, pid) => sum + systemCpuMs(pid), 0);

async function measure(target: Target, options: ThroughputOptions): Promise<RowResult> {
  const cpuBefore = new Map(serverCpuMs(target));
  const systemBefore = systemMs(target);
  const result = await autocannon({
    url: target.url,
    method: target.method,
    headers: target.headers,
    body: target.body,
    connections: options.connections,
    duration: options.durationSeconds,
  });
  const requests = Math.max(1, result.requests.total);
  const cpuPerRequestByProcess: CpuByProcess = Object.fromEntries(serverCpuMs(target).map(([servingProcess, ms]) => [servingProcess, ((ms - cpuBefore.get(servingProcess)!) * 1000) / requests]));
  return {
    name: target.name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    cpuPerRequest: Object.values(cpuPerRequestByProcess).reduce((sum, us) => sum + us, 0),
    cpuPerRequestByProcess,
    systemCpuPerRequest: ((systemMs(target) - systemBefore) * 1000) / requests,
  };
}

/** Long enough for a stack that sat idle to be back at its steady rate (measured: 3 s). */
const warmUpSeconds = (options: ThroughputOptions) => Math.min(3, options.durationSeconds);

async function fillMemory(stack: Stack, session: string, mindId: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    await call(stack.gatewayUrl, session, 'POST', operationPath('minds_insertEpisodicMemory', { mind: mindId }), {
      event: { id: crypto.randomUUID(), content: sentence(i), timestamp: new Date().toISOString() },
    });
  }
}

/** A session on `stack` and a ready Mind of it with 2000 events in its memory; nothing without a stack. */
async function filledMind(stack: Stack | undefined): Promise<{ session: string; mindId: string }> {
  if (!stack) return { session: '', mindId: '' };
  const session = (await stack.issue('bridge_session')).token;
  const mindId = await readyMind(stack, session);
  await fillMemory(stack, session, mindId);
  return { session, mindId };
}

function searchTarget(name: string, stack: Stack, mindId: string, session: string): Target {
  return {
    name,
    method: 'POST',
    url: stack.gatewayUrl + operationPath('minds_searchMemory', { mind: mindId }),
    processes: { gateway: stack.gateway.pid!, minds: stack.minds.pid! },
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'garden river', limit: 20 }),
  };
}

/**
 * A row's medians over the rounds (each process's CPU too), and its req/s and CPU by process in each
 * round (round order), for ratios and differences taken round by round.
 */
export interface RowSummary extends RowResult {
  rounds: number[];
  roundCpuByProcess: CpuByProcess[];
}

export interface ThroughputReport {
  rows: RowSummary[];
  /** Resident memory; `afterRoundMiB` is read at the end of each round, so a leak shows as a rise from round to round. */
  memory: { process: string; idleMiB: number; loadedMiB: number; afterRoundMiB: number[]; afterMiB: number }[];
  /** CPU µs per read of getMind's statement alone (statement-alone.ts), per driver, in each round. */
  statementAlone: { driver: StatementAlone['driver']; rounds: number[] }[];
}

/** Reads per round of the statement alone: enough that /proc's 10 ms ticks of the postgres processes stay within a few percent. */
const statementReadsPerRound = 8_000;

export async function runThroughput(options: ThroughputOptions): Promise<ThroughputReport> {
  const children: ChildProcess[] = [];
  const stacks: Stack[] = [];
  const statements: StatementAlone[] = [];
  try {
    /** Forks a bench server on a free port and keeps it for the cleanup. */
    const port = async (script: string, env: Record<string, string> = {}) => {
      const p = await freePort();
      children.push(await forkServer(script, { PORT: String(p), ...env }));
      return { url: `http://127.0.0.1:${p}`, pid: children.at(-1)!.pid! };
    };
    const mindPath = (id: string) => operationPath('minds_getMind', { mind_id: id });
    const raw = await port('servers/raw-http.ts');
    const bare = await port('servers/bare-express.ts');
    const bareWithPrototypes = await port('servers/bare-express.ts', { PROTOTYPES_SET_ONCE: 'true' });
    const requestOnly = await port('servers/contract-pipeline.ts', { VALIDATE_RESPONSES: 'false' });
    const both = await port('servers/contract-pipeline.ts', { VALIDATE_RESPONSES: 'true' });
    const stub = await port('servers/stub-upstream.ts');

    // The real stack in its production configuration (NODE_ENV=production: requests are
    // validated, responses are not), on the embedded default and, when a server is
    // given, on PostgreSQL, each with 2000 events in one Mind's memory.
    const stack = await startStack();
    stacks.push(stack);
    const apiKey = (await stack.issue('api_key')).token;
    const { session, mindId } = await filledMind(stack);
    const databaseUrl = process.env.BENCH_DATABASE_URL;
    const pgStack = databaseUrl ? await startStack({ databaseUrl }) : undefined;
    if (pgStack) stacks.push(pgStack);
    const { session: pgSession, mindId: pgMindId } = await filledMind(pgStack);
    // The same stack as `npm start` runs it (no NODE_ENV=production): both services validate their
    // responses and the database checks its transaction scopes. The issue's own measurement ran it so.
    const asNpmStartRuns = await startStack({ env: { NODE_ENV: 'development' } });
    stacks.push(asNpmStartRuns);
    const npmStartSession = (await asNpmStartRuns.issue('bridge_session')).token;
    const npmStartMindId = await readyMind(asNpmStartRuns, npmStartSession);
    // npm start's default topology: the gateway and the Minds service in one process, in the same
    // production configuration, on PGlite and on PostgreSQL.
    const allInOne = await startAllInOne();
    stacks.push(allInOne);
    const allInOneApiKey = (await allInOne.issue('api_key')).token;
    const { session: allInOneSession, mindId: allInOneMindId } = await filledMind(allInOne);
    const pgAllInOne = databaseUrl ? await startAllInOne({ databaseUrl }) : undefined;
    if (pgAllInOne) stacks.push(pgAllInOne);
    const { session: pgAllInOneSession, mindId: pgAllInOneMindId } = await filledMind(pgAllInOne);
    // A second gateway in front of the stub upstream: forwarding without the service behind it.
    const forwardingOnly = await startStack({ mindsUrl: stub.url });
    stacks.push(forwardingOnly);
    const stubSession = (await forwardingOnly.issue('bridge_session')).token;
    // A third in front of the contract pipeline (request validation, no database): the most a
    // validated Minds read can reach through this gateway on this machine, whatever its storage.
    const pipelineBehindGateway = await startStack({ mindsUrl: requestOnly.url });
    stacks.push(pipelineBehindGateway);
    const pipelineSession = (await pipelineBehindGateway.issue('bridge_session')).token;
    // A fourth in front of the same pipeline checking the gateway's assertion, as every service
    // does: the assertion's own cost. The pipeline needs that gateway's key, so the stack's keys are
    // made first; the pipeline then listens before the stack picks its ports, which cannot take its.
    const assertionDataDir = newStackDataDir();
    await ensureAssertionKeys(assertionKeyFiles(assertionDataDir));
    const checking = await port('servers/contract-pipeline.ts', { VALIDATE_RESPONSES: 'false', ASSERTION_PUBLIC_KEY_FILE: assertionKeyFiles(assertionDataDir).publicKeyFile });
    const assertionBehindGateway = await startStack({ mindsUrl: checking.url, dataDir: assertionDataDir });
    stacks.push(assertionBehindGateway);
    const assertionSession = (await assertionBehindGateway.issue('bridge_session')).token;

    const mockPort = await freePort();
    const prism = await import('node:child_process').then(({ spawn }) =>
      spawn(process.execPath, [join(repoRoot, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', join(repoRoot, 'packages/contract/dist/openapi.json'), '--port', String(mockPort), '--host', '127.0.0.1'], { stdio: 'ignore' }),
    );
    children.push(prism);
    for (let i = 0; i < 200; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${mockPort}/v1/status`)).ok) break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const gatewayAndMinds = (s: Stack) => ({ gateway: s.gateway.pid!, minds: s.minds.pid! });
    const targets: Target[] = [
      { name: 'raw node http, fixed JSON', method: 'GET', url: `${raw.url}${operationPath('gateway_getPrincipal')}`, processes: { server: raw.pid } },
      { name: 'bare Express 5, fixed JSON', method: 'GET', url: `${bare.url}${operationPath('gateway_getPrincipal')}`, processes: { server: bare.pid } },
      {
        name: 'Express 5 with its prototypes set once (as the services run it), fixed JSON',
        method: 'GET',
        url: `${bareWithPrototypes.url}${operationPath('gateway_getPrincipal')}`,
        processes: { server: bareWithPrototypes.pid },
      },
      { name: 'contract pipeline getMind, request validation', method: 'GET', url: requestOnly.url + mindPath(mindId), processes: { pipeline: requestOnly.pid } },
      { name: 'contract pipeline getMind, request + response validation', method: 'GET', url: both.url + mindPath(mindId), processes: { pipeline: both.pid } },
      { name: 'gateway whoami (auth, validation)', method: 'GET', url: `${stack.gatewayUrl}${operationPath('gateway_getPrincipal')}`, headers: bearer(apiKey), processes: { gateway: stack.gateway.pid! } },
      { name: 'gateway getMind forwarded to a stub upstream', method: 'GET', url: forwardingOnly.gatewayUrl + mindPath(mindId), headers: bearer(stubSession), processes: { gateway: forwardingOnly.gateway.pid!, stub: stub.pid } },
      { name: 'gateway getMind forwarded to the contract pipeline (no database)', method: 'GET', url: pipelineBehindGateway.gatewayUrl + mindPath(mindId), headers: bearer(pipelineSession), processes: { gateway: pipelineBehindGateway.gateway.pid!, pipeline: requestOnly.pid } },
      {
        name: 'gateway getMind forwarded to the contract pipeline + assertion check (no database)',
        method: 'GET',
        url: assertionBehindGateway.gatewayUrl + mindPath(mindId),
        headers: bearer(assertionSession),
        processes: { gateway: assertionBehindGateway.gateway.pid!, pipeline: checking.pid },
      },
      { name: 'gateway getMind forwarded to Minds (PGlite)', method: 'GET', url: stack.gatewayUrl + mindPath(mindId), headers: bearer(session), processes: gatewayAndMinds(stack) },
      {
        name: 'gateway getMind forwarded to Minds as npm start runs it (PGlite, responses validated)',
        method: 'GET',
        url: asNpmStartRuns.gatewayUrl + mindPath(npmStartMindId),
        headers: bearer(npmStartSession),
        processes: gatewayAndMinds(asNpmStartRuns),
      },
      { name: 'all in one: gateway whoami (auth, validation)', method: 'GET', url: `${allInOne.gatewayUrl}${operationPath('gateway_getPrincipal')}`, headers: bearer(allInOneApiKey), processes: { allInOne: allInOne.gateway.pid! } },
      { name: 'all in one: gateway getMind forwarded to Minds (PGlite)', method: 'GET', url: allInOne.gatewayUrl + mindPath(allInOneMindId), headers: bearer(allInOneSession), processes: { allInOne: allInOne.gateway.pid! } },
      ...(pgAllInOne
        ? [{ name: 'all in one: gateway getMind forwarded to Minds (PostgreSQL)', method: 'GET' as const, url: pgAllInOne.gatewayUrl + mindPath(pgAllInOneMindId), headers: bearer(pgAllInOneSession), processes: { allInOne: pgAllInOne.gateway.pid! }, postgres: true }]
        : []),
      ...(pgStack ? [{ name: 'gateway getMind forwarded to Minds (PostgreSQL)', method: 'GET' as const, url: pgStack.gatewayUrl + mindPath(pgMindId), headers: bearer(pgSession), processes: gatewayAndMinds(pgStack), postgres: true }] : []),
      searchTarget('gateway searchMemory (2k events, PGlite)', stack, mindId, session),
      ...(pgStack ? [{ ...searchTarget('gateway searchMemory (2k events, PostgreSQL)', pgStack, pgMindId, pgSession), postgres: true }] : []),
      { name: 'Prism mock getMind', method: 'GET', url: `http://127.0.0.1:${mockPort}${mindPath(mindId)}`, headers: bearer('bs_mock'), processes: { mock: prism.pid! } },
    ];

    statements.push(await openStatementAlone());
    if (databaseUrl) statements.push(await openStatementAlone(databaseUrl));
    const statementRounds = new Map(statements.map((statement) => [statement, [] as number[]]));

    const memory: ThroughputReport['memory'] = [];
    // The stack's resident memory in each topology: separate processes, and all in one.
    const tracked: Array<[string, number]> = [
      ['gateway (separate processes)', stack.gateway.pid!],
      ['minds (separate processes)', stack.minds.pid!],
      ['gateway and Minds all in one process', allInOne.gateway.pid!],
    ];
    const idle = new Map<string, number>();
    for (const [name, pid] of tracked) idle.set(name, await rssMiB(pid));
    const perRow = new Map<string, RowResult[]>();
    const peak = new Map(tracked.map(([name]) => [name, 0]));
    const afterRound = new Map(tracked.map(([name]) => [name, [] as number[]]));
    for (let round = 0; round < options.rounds; round++) {
      for (const target of inRoundOrder(targets, round)) {
        // Warm up right before each measured window, not once: express-openapi-validator compiles an
        // operation's validators on first use and V8 optimises hot paths, and a stack left idle while
        // the other rows run (about 40 s) comes back cold: measured, its first 5 s after 35 s idle
        // ran at 1,557 req/s against 2,000 steady, its first second at 726. Without this the
        // interleaving itself penalised the heaviest stacks.
        await measure(target, { ...options, durationSeconds: warmUpSeconds(options) });
        const result = await measure(target, options);
        perRow.set(target.name, [...(perRow.get(target.name) ?? []), result]);
        for (const [name, pid] of tracked) peak.set(name, Math.max(peak.get(name)!, await rssMiB(pid)));
        process.stdout.write(`  round ${round + 1}/${options.rounds} ${target.name}: ${Math.round(result.requestsPerSecond)} req/s\n`);
      }
      // With no load running, as each row's window has none but its own.
      for (const statement of statements) statementRounds.get(statement)!.push(await statement.measure(statementReadsPerRound));
      for (const [name, pid] of tracked) afterRound.get(name)!.push(await rssMiB(pid));
    }
    await new Promise((r) => setTimeout(r, 3000));
    for (const [name, pid] of tracked) memory.push({ process: name, idleMiB: idle.get(name)!, loadedMiB: peak.get(name)!, afterRoundMiB: afterRound.get(name)!, afterMiB: await rssMiB(pid) });

    const rows = targets.map((t) => {
      const results = perRow.get(t.name)!;
      return {
        name: t.name,
        requestsPerSecond: median(results.map((r) => r.requestsPerSecond)),
        p50: median(results.map((r) => r.p50)),
        p99: median(results.map((r) => r.p99)),
        errors: results.reduce((sum, r) => sum + r.errors, 0),
        cpuPerRequest: median(results.map((r) => r.cpuPerRequest)),
        systemCpuPerRequest: median(results.map((r) => r.systemCpuPerRequest)),
        cpuPerRequestByProcess: Object.fromEntries(
          Object.keys(results[0]!.cpuPerRequestByProcess).map((servingProcess) => [servingProcess, median(results.map((r) => r.cpuPerRequestByProcess[servingProcess as ServingProcess]!))]),
        ),
        rounds: results.map((r) => r.requestsPerSecond),
        roundCpuByProcess: results.map((r) => r.cpuPerRequestByProcess),
      };
    });
    return { rows, memory, statementAlone: statements.map((statement) => ({ driver: statement.driver, rounds: statementRounds.get(statement)! })) };
  } finally {
    for (const statement of statements) await statement.close();
    for (const child of children) await stop(child);
    for (const stack of stacks) await stack.close();
  }
}
