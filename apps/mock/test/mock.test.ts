/**
 * Runs the real mock (`src/start-mock.ts`, Prism on the bundled contract) and
 * asks it, for every operation, for every response the spec declares and every
 * named example of it (`Prefer: code=<status>, example=<name>`), with a request
 * that satisfies the contract. Each answer must have the declared status, be
 * the named example, and validate against the response schema (including the
 * UTF-8 byte limits), with its declared headers valid too: no mocked answer
 * may violate the spec's own patterns. Requests that break the contract must
 * get a declared error response that validates as well. The README's client
 * example runs against it to its end, as it does against the real stack.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { errorCatalog, isErrorCode, operationIds, operationTable, type OpenApiResponse, type OperationId } from '@gateway-minds/contract';
import { createClient, factsOf } from '@gateway-minds/client';
import { withFreePorts } from '@gateway-minds/testkit';
import { contractRequest, locateOperation, responseProblems, type Answer, type LocatedOperation } from '@gateway-minds/contract-judge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const mockDir = join(import.meta.dirname, '..');

interface MockRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** A request that satisfies the contract (testkit's contractRequest: the spec's examples, a credential of an accepted kind), sent to the mock. */
function validRequest(base: string, { id }: LocatedOperation): MockRequest {
  const { path, ...request } = contractRequest(id);
  return { ...request, url: `${base}${path}` };
}

async function send(request: MockRequest, extraHeaders: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(request.url, {
    method: request.method,
    headers: { ...request.headers, ...extraHeaders },
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // left as text: the content-type check reports it
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), body };
}

/** Problems with an answer against the response the spec declares for its status, and any violation Prism itself reports. */
function checkAgainstSpec(answer: Answer, response: OpenApiResponse | undefined): string[] {
  const problems = responseProblems(answer, response);
  const violations = answer.headers['sl-violations'];
  if (violations && answer.status < 400) problems.push(`Prism reports violations: ${violations}`);
  return problems;
}

interface ExampleCase {
  id: OperationId;
  status: string;
  name: string;
  value: unknown;
}

const located = operationIds.map(locateOperation);
const exampleCases: ExampleCase[] = located.flatMap(({ id, operation }) =>
  Object.entries(operation.responses).flatMap(([status, response]) =>
    Object.entries(response.content?.['application/json']?.examples ?? {}).map(([name, example]) => ({ id, status, name, value: example.value })),
  ),
);

let mock: ChildProcess;
let base: string;
let startupMs: number;

beforeAll(async () => {
  // On another port if the one picked was taken before Prism bound it (Prism then exits, saying EADDRINUSE).
  await withFreePorts(1, async ([port]) => {
    base = `http://127.0.0.1:${port}`;
    const started = performance.now();
    mock = spawn(process.execPath, ['--import', 'tsx', 'src/start-mock.ts'], {
      cwd: mockDir,
      env: { ...process.env, MOCK_PORT: String(port), MOCK_HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
    };
    mock.stdout!.on('data', collect);
    mock.stderr!.on('data', collect);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the mock did not start within 45 s:\n${output}`)), 45_000);
      mock.once('exit', (code) => reject(new Error(`the mock exited (${code}):\n${output}`)));
      mock.stdout!.on('data', () => {
        if (output.includes('Prism is listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    startupMs = performance.now() - started;
  });
  console.log(`mock: Prism listening on ${base} after ${(startupMs / 1000).toFixed(1)} s`);
}, 60_000);

afterAll(async () => {
  if (mock && mock.exitCode === null) {
    const exited = once(mock, 'exit');
    mock.kill('SIGTERM');
    await exited;
  }
});

describe('the mock', () => {
  it('answers every operation of the contract', () => {
    expect(located.map((l) => l.id)).toEqual(operationIds);
    expect(exampleCases.length).toBeGreaterThan(operationIds.length * 5);
  });

  it.each(located.map((l) => [l.id, l] as const))('%s: a valid request gets the first success example by default', async (id, op) => {
    const facts = operationTable[id];
    const answer = await send(validRequest(base, op));
    expect(answer.headers['sl-violations'], 'Prism found the request invalid').toBeUndefined();
    expect(answer.status).toBe(facts.successStatus);
    const success = op.operation.responses[String(facts.successStatus)];
    const first = Object.values(success?.content?.['application/json']?.examples ?? {})[0];
    expect(answer.body).toEqual(first?.value);
    expect(checkAgainstSpec(answer, success)).toEqual([]);
  });

  it.each(exampleCases.map((c) => [`${c.id} ${c.status} ${c.name}`, c] as const))('%s: Prefer selects it, and it validates', async (_label, c) => {
    const op = located.find((l) => l.id === c.id)!;
    const answer = await send(validRequest(base, op), { Prefer: `code=${c.status}, example=${c.name}` });
    expect(answer.status).toBe(Number(c.status));
    expect(answer.body).toEqual(c.value);
    expect(checkAgainstSpec(answer, op.operation.responses[c.status])).toEqual([]);
    if (answer.status >= 400) {
      const code = (answer.body as { error: { code: unknown } }).error.code;
      expect(isErrorCode(code) && errorCatalog[code].status, `${String(code)} is a ${c.status} code of the catalog`).toBe(answer.status);
    }
  });

  it.each(located.filter((l) => operationTable[l.id].security.length > 0).map((l) => [l.id, l] as const))(
    '%s: without a credential, a declared 401 that validates',
    async (_id, op) => {
      const request = validRequest(base, op);
      delete request.headers.Authorization;
      const answer = await send(request);
      expect(answer.status).toBe(401);
      expect(checkAgainstSpec(answer, op.operation.responses['401'])).toEqual([]);
    },
  );

  it.each(located.filter((l) => l.operation.requestBody).map((l) => [l.id, l] as const))(
    '%s: a body outside the contract gets a declared 4xx that validates',
    async (_id, op) => {
      const request = validRequest(base, op);
      const answer = await send({ ...request, body: JSON.stringify({ not_in_the_contract: true }) });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(checkAgainstSpec(answer, op.operation.responses[String(answer.status)])).toEqual([]);
    },
  );
});

// README, "The mock, for front-end teams": "Switching between the mock and the real stack changes
// only the base URL". So the README's client example (section "Client, CLI and MCP server") ends
// here too; spec/README.md, "Examples": a paginated list's first example is a last page.
describe("the README's client example against the mock", () => {
  const paginated = located.filter((l) => factsOf(l.id).paginated);
  const firstSuccessExample = (l: LocatedOperation) => Object.values(l.operation.responses[String(operationTable[l.id].successStatus)]?.content?.['application/json']?.examples ?? {})[0]?.value as { items: { mind_id: string }[]; next_cursor: string | null };

  it.each(paginated.map((l) => [l.id, l] as const))('%s: the default answer is a last page, so a walk ends', (_id, l) => {
    expect(firstSuccessExample(l).next_cursor).toBeNull();
    expect(firstSuccessExample(l).items.length).toBeGreaterThan(0);
  });

  it('lists, creates, waits for ready and iterates to the end', async () => {
    expect(paginated.map((l) => l.id)).toContain('minds_listMinds');
    const client = createClient({ baseUrl: base, token: 'bs_any' });
    const { context_sha256 } = await client.minds_listMinds();
    const mind = await client.minds_createMind({
      params: { header: { 'x-platform-minds-creation-context': context_sha256 } },
      body: { name: 'Sandbox demo' },
    });
    const progress: string[] = [];
    await client.waitForMind(mind.mind_id, 'ready', { onProgress: (m) => progress.push(m.status) });
    expect(progress.at(-1)).toBe('ready');
    const listed: string[] = [];
    for await (const m of client.minds_listMinds.iterate()) listed.push(m.mind_id);
    expect(listed).toEqual(firstSuccessExample(located.find((l) => l.id === 'minds_listMinds')!).items.map((m) => m.mind_id));
  });
});
