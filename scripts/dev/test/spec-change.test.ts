/**
 * A compatible spec change reaches everything derived from the contract, and `npm run dev` brings
 * a saved edit to the running stack, the mock and the docs (DESIGN.md: "Every arrow is a turbo
 * task ... a change to spec/ rebuilds exactly what depends on it"; "The author's loop").
 *
 * On a scratch copy of the repository, as an author would: an optional response field and a new
 * operation (lint-clean, with its example) are added to spec/, the repository is built with turbo,
 * and each derived artifact is asked for them the way its user would ask: the client's types by
 * the compiler, the CLI by its help, the MCP server by `tools/list`, the MSW handlers by a request,
 * the Prism mock by a request, the docs reference by its page, the stack by GET /v1/openapi.json
 * and by calling the operation through the gateway once its handler is scaffolded. Then the loop
 * itself runs on the copy and three saves are made: one that breaks the lint, one that fixes it
 * and changes an example, and one that adds an operation without a handler.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePorts } from '@gateway-minds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addNewOperation, editFile, scratchRepository, type ScratchRepository } from '../src/scratch.js';

const run = promisify(execFile);
const newField = 'owner_note';
const newFieldDescription = 'A note the owner keeps with the Mind (a field the propagation test adds).';

let scratch: ScratchRepository;
const children: ChildProcess[] = [];

async function inScratch(command: string, args: string[], env: Record<string, string> = {}) {
  try {
    return await run(command, args, { cwd: scratch.root, env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0', NO_COLOR: '1', ...env }, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    // A compiler prints its errors on stdout, which a failed command's message leaves out.
    const failed = error as Error & { stdout?: string };
    if (failed.stdout) failed.message += `\n--- stdout\n${failed.stdout.slice(-4000)}`;
    throw failed;
  }
}

/** One task of a turbo run, as its run summary (`--summarize`) records it. */
interface RunTask {
  taskId: string;
  cache: { status: 'HIT' | 'MISS' };
  dependencies: string[];
}

async function turboBuild(): Promise<{ ok: boolean; output: string; tasks: RunTask[] }> {
  let ok = true;
  let output: string;
  try {
    const { stdout, stderr } = await inScratch(join(scratch.root, 'node_modules/.bin/turbo'), ['run', 'build', '--continue', '--output-logs=errors-only', '--summarize']);
    output = stdout + stderr;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    ok = false;
    output = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
  }
  const summary = /Summary:\s+(\S+\.json)/.exec(output)?.[1];
  const tasks = summary ? (JSON.parse(readFileSync(summary, 'utf8')) as { tasks: RunTask[] }).tasks : [];
  return { ok, output, tasks };
}

/** Starts a long-running program of the copy and resolves once `ready` matches what it printed. */
function startInScratch(args: string[], env: Record<string, string>, ready: RegExp, output: { text: string } = { text: '' }): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: scratch.root, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output.text += chunk.toString();
      if (ready.test(output.text)) resolve(child);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before it was ready:\n${output.text.slice(-3000)}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

/** What the loop printed last, for a failure's message. */
let loopOutput = (): string => '';

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the loop printed last:\n${loopOutput().slice(-4000)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';

beforeAll(() => {
  scratch = scratchRepository('spec-change-');
}, 120_000);

afterAll(async () => {
  await Promise.all(children.map(stop));
  scratch?.remove();
}, 60_000);

describe('a compatible spec change, built with turbo', () => {
  let newOperation: string;
  let firstBuild: Awaited<ReturnType<typeof turboBuild>>;

  beforeAll(async () => {
    editFile(join(scratch.root, 'spec/components/schemas/Mind.yaml'), (text) =>
      text.replace('properties:\n', `properties:\n  ${newField}:\n    description: ${newFieldDescription}\n    type: [string, 'null']\n    maxLength: 200\n`),
    );
    editFile(join(scratch.root, 'spec/components/examples/minds/MindReady.yaml'), (text) => `${text}  ${newField}: Keep the research notes for the quarterly review.\n`);
    newOperation = addNewOperation(scratch.root);
    firstBuild = await turboBuild();
  }, 900_000);

  it('passes the lint', async () => {
    const { stdout, stderr } = await inScratch(join(scratch.root, 'node_modules/.bin/redocly'), ['lint', 'spec/openapi.yaml', '--format=stylish'], { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' });
    expect(`${stdout}${stderr}`).toMatch(/valid/i);
  }, 120_000);

  it('rebuilds every package the contract reaches and takes the others from the repository\'s turbo cache (DESIGN.md: "a change to spec/ rebuilds exactly what depends on it")', () => {
    const byId = new Map(firstBuild.tasks.map((task) => [task.taskId, task]));
    const reachesContract = (id: string): boolean => id === '@gateway-minds/contract#build' || (byId.get(id)?.dependencies ?? []).some(reachesContract);
    const built = (ids: string[]) => ids.filter((id) => byId.get(id)!.cache.status === 'MISS');
    const fromContract = [...byId.keys()].filter(reachesContract);
    const rest = [...byId.keys()].filter((id) => !reachesContract(id));
    expect(fromContract).toContain('@gateway-minds/client#build');
    expect(built(fromContract)).toEqual(fromContract);
    expect(rest).toContain('@gateway-minds/db#build');
    expect(built(rest)).toEqual([]);
  });

  it('fails the build at the Minds handler table, naming the operation that has no handler', () => {
    expect(firstBuild.ok).toBe(false);
    expect(firstBuild.output).toMatch(new RegExp(`src/service\\.ts\\(\\d+,\\d+\\): error TS\\d+[\\s\\S]*Property '${newOperation}' is missing`));
  });

  it('builds everything once `npm run scaffold:handler` has written and bound the handler', async () => {
    const { stdout } = await inScratch('npm', ['run', '-s', 'scaffold:handler', '--', newOperation]);
    expect(stdout).toContain(`wrote apps/minds/src/minds/get-mind-capacity.ts`);
    const rebuilt = await turboBuild();
    expect(rebuilt.output).not.toMatch(/error TS/);
    expect(rebuilt.ok).toBe(true);
  }, 900_000);

  it("reaches the client's methods and types: a consumer using both compiles", async () => {
    const consumer = join(scratch.root, 'packages/client/propagation-consumer.ts');
    writeFileSync(
      consumer,
      `import { createClient } from '@gateway-minds/client';
const client = createClient({ baseUrl: 'http://127.0.0.1:1', token: 'bs_x' });
export async function probe(): Promise<string> {
  const capacity = await client.${newOperation}({ params: { path: { mind_id: '${mindId}' } } });
  const mind = await client.minds_getMind({ params: { path: { mind_id: capacity.mind_id } } });
  const note: string | null | undefined = mind.${newField};
  return \`\${capacity.profile_id} \${note}\`;
}
`,
    );
    // --ignoreConfig: the consumer is this one file, not the client package whose tsconfig.json sits beside it.
    await inScratch(join(scratch.root, 'node_modules/.bin/tsgo'), ['--ignoreConfig', '--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', consumer]);
    const { stdout } = await inScratch(process.execPath, ['--input-type=module', '-e', `import { createClient } from '@gateway-minds/client'; console.log(typeof createClient({ baseUrl: 'http://127.0.0.1:1' }).${newOperation});`], {});
    expect(stdout.trim()).toBe('function');
  }, 120_000);

  it("reaches the CLI's commands and help", async () => {
    const bin = join(scratch.root, 'packages/cli/dist/bin.js');
    expect((await inScratch(process.execPath, [bin, '--help'])).stdout).toContain(newOperation);
    expect((await inScratch(process.execPath, [bin, newOperation, '--help'])).stdout).toContain('Read the capacity a Mind runs with');
  }, 60_000);

  it("reaches the MCP server's tool list", async () => {
    const server = spawn(process.execPath, [join(scratch.root, 'packages/mcp/dist/bin.js')], { cwd: scratch.root, stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, GATEWAY_MINDS_TOKEN: 'bs_x' } });
    children.push(server);
    const answers: { id?: number; result?: { tools?: { name: string }[] } }[] = [];
    let buffered = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        answers.push(JSON.parse(buffered.slice(0, nl)));
        buffered = buffered.slice(nl + 1);
      }
    });
    const send = (message: object) => server.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'propagation-test', version: '1' } } });
    await until('the initialize answer', async () => answers.find((a) => a.id === 1));
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list', params: {} });
    const list = await until('the tool list', async () => answers.find((a) => a.id === 2));
    expect(list.result?.tools?.map((t) => t.name)).toContain(newOperation);
    await stop(server);
  }, 60_000);

  it('reaches the MSW handlers: the new operation answers its example, the changed one the new field', async () => {
    const script = `import { setupServer } from 'msw/node';
import { createHandlers } from '@gateway-minds/msw';
const server = setupServer(...createHandlers({ baseUrl: 'http://127.0.0.1:8080' }));
server.listen({ onUnhandledRequest: 'error' });
const headers = { Authorization: 'Bearer bs_x' };
const capacity = await (await fetch('http://127.0.0.1:8080/v1/minds/services/${mindId}/capacity', { headers })).json();
const mind = await (await fetch('http://127.0.0.1:8080/v1/minds/services/${mindId}', { headers })).json();
console.log(JSON.stringify({ capacity, note: mind.${newField} }));
server.close();`;
    writeFileSync(join(scratch.root, 'packages/msw/propagation-check.mjs'), script);
    const { stdout } = await inScratch(process.execPath, ['packages/msw/propagation-check.mjs']);
    const answer = JSON.parse(stdout) as { capacity: { profile_id: string }; note: string };
    expect(answer.capacity.profile_id).toBe('D1');
    expect(answer.note).toBe('Keep the research notes for the quarterly review.');
  }, 60_000);

  it('reaches the Prism mock', async () => {
    const [port] = await freePorts(1);
    const mock = await startInScratch(['--import', 'tsx', 'apps/mock/src/start-mock.ts'], { MOCK_PORT: String(port) }, /Prism is listening/);
    const headers = { Authorization: 'Bearer bs_x' };
    const capacity = (await (await fetch(`http://127.0.0.1:${port}/v1/minds/services/${mindId}/capacity`, { headers })).json()) as { cpus: number };
    const mind = (await (await fetch(`http://127.0.0.1:${port}/v1/minds/services/${mindId}`, { headers })).json()) as Record<string, unknown>;
    expect(capacity.cpus).toBe(2);
    expect(mind[newField]).toBe('Keep the research notes for the quarterly review.');
    await stop(mock);
  }, 120_000);

  it('reaches the docs reference', () => {
    const page = readFileSync(join(scratch.root, 'apps/docs/dist/site/reference.html'), 'utf8');
    expect(page).toContain(newOperation);
    expect(page).toContain('Read the capacity a Mind runs with');
    expect(page).toContain(newFieldDescription.slice(0, 40));
  });

  it('reaches the stack: GET /v1/openapi.json lists it (admissions on), and the gateway serves it once its handler is bound', async () => {
    const [port, adminPort, mindsPort] = await freePorts(3);
    const env = { PORT: String(port), ADMIN_PORT: String(adminPort), MINDS_PORT: String(mindsPort), DATA_DIR: join(scratch.root, 'data'), MINDS_OWNER_MANAGEMENT_ENABLED: 'true', MINDS_AGENT_MEMORY_ENABLED: 'true', LOG_LEVEL: 'warn' };
    const stack = await startInScratch(['apps/stack/dist/start.js'], env, /The stack is up/);
    const served = (await (await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ids = Object.values(served.paths).flatMap((item) => Object.values(item).map((o) => o.operationId));
    expect(ids).toContain(newOperation);
    expect(ids).toContain('minds_attachMind');
    const { stdout } = await inScratch('npm', ['run', '-s', 'admin', '--', 'issue', '--kind', 'bridge_session'], env);
    const { token } = JSON.parse(stdout) as { token: string };
    const answer = await fetch(`http://127.0.0.1:${port}/v1/minds/services/${mindId}/capacity`, { headers: { Authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { mind_id: string }).mind_id).toBe(mindId);
    await stop(stack);
  }, 180_000);
});

describe('npm run dev on the same copy', () => {
  const output = { text: '' };
  let ports: { port: number; mock: number; docs: number };
  let dev: ChildProcess;
  /** What the loop printed since `from` (output.text.length before a save). */
  const since = (from: number) => output.text.slice(from);

  beforeAll(async () => {
    loopOutput = () => output.text;
    const [port, adminPort, mindsPort, mock, docs] = await freePorts(5);
    ports = { port: port!, mock: mock!, docs: docs! };
    dev = await startInScratch(
      ['--import', 'tsx', 'scripts/dev/src/main.ts'],
      { PORT: String(port), ADMIN_PORT: String(adminPort), MINDS_PORT: String(mindsPort), MOCK_PORT: String(mock), DOCS_PORT: String(docs), DATA_DIR: join(scratch.root, 'data') },
      /Watching spec\//,
      output,
    );
  }, 600_000);

  afterAll(() => stop(dev), 60_000);

  it('prints a spec that breaks the lint with its file and line, and keeps serving the last good contract', async () => {
    const from = output.text.length;
    editFile(join(scratch.root, 'spec/components/schemas/MindCapacityReport.yaml'), (text) => text.replace('type: integer\n    minimum: 1\n  memory_mb', 'type: integr\n    minimum: 1\n  memory_mb'));
    const cycle = await until('the lint failure', async () => (/keep the last good contract/.test(since(from)) ? since(from) : undefined));
    expect(cycle).toMatch(/spec\/components\/schemas\/MindCapacityReport\.yaml:\d+:\d+\s+error/);
    const capacity = await fetch(`http://127.0.0.1:${ports.mock}/v1/minds/services/${mindId}/capacity`, { headers: { Authorization: 'Bearer bs_x' } });
    expect(capacity.status).toBe(200);
  }, 180_000);

  it('brings a good save to the mock, the served contract, the docs and the types, and prints what changed', async () => {
    // The lint fixed, an example value and an operation's summary changed, in one save of three files.
    const from = output.text.length;
    editFile(join(scratch.root, 'spec/components/schemas/MindCapacityReport.yaml'), (text) => text.replace('type: integr', 'type: integer'));
    editFile(join(scratch.root, 'spec/components/examples/minds/CapacityApplied.yaml'), (text) => text.replace('memory_mb: 4096', 'memory_mb: 6144'));
    editFile(join(scratch.root, 'spec/paths/v1_minds_services_{mind_id}_capacity.yaml'), (text) => text.replace('summary: Read the capacity a Mind runs with', 'summary: Read the capacity a Mind is given'));
    const headers = { Authorization: 'Bearer bs_x' };
    await until('the mock to answer the new example', async () => {
      const body = (await (await fetch(`http://127.0.0.1:${ports.mock}/v1/minds/services/${mindId}/capacity`, { headers })).json()) as { memory_mb: number };
      return body.memory_mb === 6144 ? true : undefined;
    });
    await until('the docs to show both', async () => {
      const page = await (await fetch(`http://127.0.0.1:${ports.docs}/reference.html`)).text();
      return page.includes('6144') && page.includes('Read the capacity a Mind is given') ? true : undefined;
    });
    // GET /v1/openapi.json carries summaries and descriptions, not examples (DECISIONS.md, "The openapi.json body").
    await until('the stack to serve the new summary', async () => ((await (await fetch(`http://127.0.0.1:${ports.port}/v1/openapi.json`)).text()).includes('Read the capacity a Mind is given') ? true : undefined));
    expect(readFileSync(join(scratch.root, 'packages/contract/dist/generated/schema.d.ts'), 'utf8')).toContain('Read the capacity a Mind is given');
    const cycle = await until('the cycle summary', async () => (/· stack /.test(since(from)) ? since(from) : undefined));
    expect(cycle).toMatch(/contract \d+\.\d s \(lint/);
    expect(cycle).toMatch(/minds_getMindCapacity/);
  }, 240_000);

  it('keeps the stack on the last good contract when a new operation has no handler, and says which', async () => {
    const from = output.text.length;
    const fixture = readFileSync(join(scratch.root, 'spec/paths/v1_minds_services_{mind_id}_capacity.yaml'), 'utf8');
    writeFileSync(join(scratch.root, 'spec/paths/v1_minds_services_{mind_id}_capacity-history.yaml'), fixture.replace('minds_getMindCapacity', 'minds_getMindCapacityHistory').replace('Read the capacity a Mind is given', 'Read the capacities a Mind ran with'));
    editFile(join(scratch.root, 'spec/openapi.yaml'), (text) =>
      text.replace('  /v1/minds/services/{mind_id}/capacity:\n', '  /v1/minds/services/{mind_id}/capacity-history:\n    $ref: paths/v1_minds_services_{mind_id}_capacity-history.yaml\n  /v1/minds/services/{mind_id}/capacity:\n'),
    );
    const cycle = await until('the stack to be kept', async () => (/keeps running the last good contract/.test(since(from)) ? since(from) : undefined), 240_000);
    expect(cycle).toMatch(/info {5}minds_getMindCapacityHistory {2}`GET \/v1\/minds\/services\/\{mind_id\}\/capacity-history`: operation added: Read the capacities a Mind ran with {2}\(endpoint-added\)/);
    expect(cycle).toContain('the stack has no handler for minds_getMindCapacityHistory: `npm run scaffold:handler -- minds_getMindCapacityHistory`');
    expect((await fetch(`http://127.0.0.1:${ports.port}/v1/status`)).status).toBe(200);
    expect(existsSync(join(scratch.root, 'packages/contract/dist/openapi.json'))).toBe(true);
    expect(readFileSync(join(scratch.root, 'packages/contract/dist/openapi.json'), 'utf8')).toContain('minds_getMindCapacityHistory');
  }, 300_000);
});
