/**
 * The three ways a front-end mocks, side by side: the client's read scenario
 * (@gateway-minds/contract-judge/scenario) against the MSW handlers (msw/node), the Prism mock
 * (`npm run mock`) and the real stack (`npm start`'s wiring, in-process through
 * apps/testkit). Every answer of each validates against the contract, and
 * the three agree on the shape of every result, so code written against one
 * runs against the others. README, "The mock, for front-end teams":
 * "Switching between the mock and the real stack changes only the base URL".
 */
import { createClient } from '@gateway-minds/client';
import { operationIds, operationTable, type OperationId } from '@gateway-minds/contract';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { contractRequest } from '@gateway-minds/contract-judge';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, exampleTable } from '@gateway-minds/msw';
import { startPrismMock, type PrismMock } from '../src/msw/prism.js';
import { emptiedWhereEmpty, readScenario, recordingFetch, scenarioOperations, shapeOf, type Exchange } from '@gateway-minds/contract-judge/scenario';
import { specProblems } from '@gateway-minds/contract-judge/spec-check';

const mswBaseUrl = 'http://msw.test';
/** The docs site a team uses: both mocks are told it (DOCS_BASE_URL for Prism, docsBaseUrl for the handlers), and every docs_url compared below points into it. */
const teamDocs = 'https://docs.example.test/gateway-minds';
// Only the handlers' own origin is mocked: the requests to Prism and the real stack pass through.
const msw = setupServer(...createHandlers({ baseUrl: mswBaseUrl, docsBaseUrl: teamDocs }));
let prism: PrismMock;
let stack: Stack;

beforeAll(async () => {
  msw.listen({ onUnhandledRequest: 'bypass' });
  [prism, stack] = await Promise.all([startPrismMock({ DOCS_BASE_URL: teamDocs }), startStack()]);
}, 180_000);

afterAll(async () => {
  msw.close();
  await Promise.all([prism?.close(), stack?.close()]);
});

const mockNotFound = { Prefer: 'code=404' };
const results: Record<string, Record<string, unknown>> = {};

async function run(name: string, baseUrl: string, token: string, notFoundHeaders: Record<string, string> = {}) {
  const log: Exchange[] = [];
  const client = createClient({ baseUrl, token, fetch: recordingFetch(log) });
  const result = await readScenario(client, { notFoundHeaders });
  results[name] = result;
  expect(log.map((e) => e.operationId)).toEqual(scenarioOperations);
  expect(log.flatMap(specProblems)).toEqual([]);
  return result;
}

/** The shape each way must share: everything but the identifiers list the walk collected. */
const comparable = ({ mindIds: _ids, ...rest }: Record<string, unknown>) => shapeOf(rest);

describe('the read scenario, three ways', () => {
  it('against the MSW handlers (msw/node): every answer validates', async () => {
    await run('msw', mswBaseUrl, 'bs_any', mockNotFound);
  });

  it('against the Prism mock: every answer validates', async () => {
    await run('prism', prism.url, 'bs_any', mockNotFound);
  });

  it('against the real stack (a Mind created first, so the list has one): every answer validates', async () => {
    const token = (await stack.issue('bridge_session')).token;
    const client = createClient({ baseUrl: stack.url, token });
    const { context_sha256 } = await client.minds_listMinds();
    const mind = await client.minds_createMind({ params: { header: { 'x-platform-minds-creation-context': context_sha256 } }, body: { name: 'Sandbox three ways' } });
    await client.waitForMind(mind.mind_id, 'ready', { intervalMs: 100, timeoutMs: 45_000 });
    const result = await run('real', stack.url, token);
    expect(result.mindIds).toEqual([mind.mind_id]);
  }, 60_000);

  it('the MSW handlers and Prism answer the same examples', () => {
    expect(results.msw).toEqual(results.prism);
  });

  it('the three agree on the shape of every result', () => {
    expect(comparable(results.msw!)).toEqual(comparable(results.prism!));
    const real = comparable(results.real!);
    expect(real).toEqual(emptiedWhereEmpty(comparable(results.msw!), real));
  });
});

// DECISIONS, "Which example an MSW handler answers": the Prism mock's selection. apps/mock's test and
// ./handlers.test.ts prove `code=..., example=...` picks that very example in each; these are the cases
// where a rule decides (no Prefer, a code alone, a name alone, no credential).
describe('the MSW handlers select as Prism does', () => {
  async function both(id: OperationId, change: (headers: Record<string, string>) => void) {
    const request = contractRequest(id);
    const headers = { ...request.headers };
    change(headers);
    const answers = await Promise.all(
      [mswBaseUrl, prism.url].map(async (base) => {
        const response = await fetch(`${base}${request.path}`, { method: request.method, headers, ...(request.body === undefined ? {} : { body: request.body }) });
        const text = await response.text();
        const body = text ? (JSON.parse(text) as { error?: { request_id?: string; docs_url?: string } }) : undefined;
        // X-Request-Id.yaml: "the same as `request_id` in an error body" (DECISIONS "Example request ids").
        if (body?.error) expect(response.headers.get('x-request-id'), `${base}${request.path}`).toBe(body.error.request_id);
        return { status: response.status, body };
      }),
    );
    return { msw: answers[0]!, prism: answers[1]! };
  }

  it.each(operationIds.map((id) => [id] as const))('%s: no Prefer, each code alone, a success example by name alone', async (id) => {
    const table = exampleTable[id];
    const defaults = await both(id, () => {});
    expect(defaults.msw).toEqual(defaults.prism);
    for (const code of new Set(table.examples.map(([status]) => status))) {
      const answer = await both(id, (h) => (h.Prefer = `code=${code}`));
      expect(answer.msw, `code=${code}`).toEqual(answer.prism);
    }
    const [, lastSuccess] = table.examples.filter(([status]) => status === table.successStatus).at(-1)!;
    const byName = await both(id, (h) => (h.Prefer = `example=${lastSuccess}`));
    expect(byName.msw, `example=${lastSuccess}`).toEqual(byName.prism);
    // Every docs_url either mock sent points into the team's docs site.
    for (const answer of [defaults, byName]) for (const body of [answer.msw.body, answer.prism.body]) if (body?.error) expect(body.error.docs_url).toMatch(new RegExp(`^${teamDocs}/errors\\.html#`));
  });

  // DECISIONS, "Which example an MSW handler answers": "A selection that names no example" gets the same
  // envelope from both, listing every selection the operation has. A name alone is looked for among the
  // success examples only, so an error example's name alone names none either.
  it.each(operationIds.map((id) => [id] as const))('%s: a selection that names no example gets the same answer from both, listing the examples', async (id) => {
    const table = exampleTable[id];
    const [, errorName] = table.examples.find(([status]) => status >= 400)!;
    const selections = table.examples.map(([status, name]) => `code=${status}, example=${name}`);
    for (const prefer of ['example=Nope', 'code=418', `code=${table.successStatus}, example=Nope`, `example=${errorName}`]) {
      const answer = await both(id, (h) => (h.Prefer = prefer));
      const withoutRequestId = ({ status, body }: { status: number; body: { error?: { request_id?: string } } | undefined }) => ({ status, body: { ...body, error: { ...body?.error, request_id: 'fresh' } } });
      expect(withoutRequestId(answer.msw), prefer).toEqual(withoutRequestId(answer.prism));
      expect(answer.prism.status, prefer).toBe(400);
      const error = answer.prism.body as unknown as { error: { code: string; docs_url: string; errors: { message: string }[] } };
      expect(error.error.code, prefer).toBe('BAD_REQUEST');
      expect(error.error.docs_url).toBe(`${teamDocs}/errors.html#BAD_REQUEST`);
      expect(error.error.errors.slice(1).map((e) => e.message), prefer).toEqual(selections.slice(0, 49).map((s) => `valid: ${s}`));
    }
  });

  it.each(operationIds.filter((id) => operationTable[id].security.length > 0).map((id) => [id] as const))('%s: no credential', async (id) => {
    const answer = await both(id, (h) => delete h.Authorization);
    expect(answer.msw).toEqual(answer.prism);
  });
});
