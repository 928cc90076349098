/**
 * The handlers under msw/node, as a vitest suite of a front-end would use
 * them: every named example of every operation is selectable with the Prism
 * mock's `Prefer: code=..., example=...` and answers exactly that example,
 * valid against the contract; the defaults are Prism's (first success example;
 * the first 401 without a credential); a list walk through the typed client
 * follows a cursor once and ends; the client's read scenario passes with every
 * answer valid.
 */
import { createClient } from '@gateway-minds/client';
import { operationIds, operationPath, operationTable, type OperationId } from '@gateway-minds/contract';
import { dereferenced } from '@gateway-minds/contract-judge';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, defaultDocsBaseUrl, exampleDocsBaseUrl, exampleTable } from '../src/index.js';
import { readScenario, recordingFetch, scenarioOperations, type Exchange } from '@gateway-minds/contract-judge/scenario';
import { specProblems } from '@gateway-minds/contract-judge/spec-check';

const baseUrl = 'http://gateway.test';
const server = setupServer(...createHandlers({ baseUrl }));
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function exampleValue(id: OperationId, status: number, name: string): unknown {
  const facts = operationTable[id];
  return dereferenced.paths[facts.path]?.[facts.method]?.responses[String(status)]?.content?.['application/json']?.examples?.[name]?.value;
}

/** A request the handler matches: every path parameter filled, a bearer credential when the operation needs one. */
async function send(id: OperationId, headers: Record<string, string> = {}, query = ''): Promise<Exchange> {
  const facts = operationTable[id];
  const params = Object.fromEntries(facts.parameters.filter((p) => p.in === 'path').map((p) => [p.name, `${p.name}-1`]));
  const url = `${baseUrl}${operationPath(id, params)}${query}`;
  const log: Exchange[] = [];
  await recordingFetch(log)(new Request(url, { method: facts.method.toUpperCase(), headers: { ...(facts.security.length ? { Authorization: 'Bearer bs_any' } : {}), ...headers } }));
  return log[0]!;
}

const cases = operationIds.flatMap((id) => exampleTable[id].examples.map(([status, name]) => [`${id} ${status} ${name}`, id, status, name] as const));

describe('the MSW handlers', () => {
  it('cover every operation of the contract, with its examples', () => {
    expect(Object.keys(exampleTable)).toEqual(operationIds);
    expect(createHandlers()).toHaveLength(operationIds.length);
    expect(cases.length).toBeGreaterThan(operationIds.length * 5);
  });

  it.each(operationIds.map((id) => [id] as const))('%s: the first success example by default, as Prism answers', async (id) => {
    const table = exampleTable[id];
    const first = table.examples.find(([status]) => status === table.successStatus)!;
    const answer = await send(id);
    expect(answer.status).toBe(table.successStatus);
    expect(answer.body).toEqual(exampleValue(id, first[0], first[1]));
    expect(specProblems(answer)).toEqual([]);
  });

  it.each(cases)('%s: Prefer selects it, and it validates', async (_label, id, status, name) => {
    const answer = await send(id, { Prefer: `code=${status}, example=${name}` });
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual(exampleValue(id, status, name));
    expect(specProblems(answer)).toEqual([]);
  });

  it.each(operationIds.filter((id) => operationTable[id].security.length > 0).map((id) => [id] as const))(
    '%s: without a credential, the first 401 example (Prism checks security first)',
    async (id) => {
      const facts = operationTable[id];
      const params = Object.fromEntries(facts.parameters.filter((p) => p.in === 'path').map((p) => [p.name, 'x']));
      const log: Exchange[] = [];
      await recordingFetch(log)(new Request(`${baseUrl}${operationPath(id, params)}`, { method: facts.method.toUpperCase() }));
      expect(log[0]!.status).toBe(401);
      expect(specProblems(log[0]!)).toEqual([]);
    },
  );

  it('README: `Prefer: code=401, example=CREDENTIAL_INVALID` on whoami', async () => {
    const answer = await send('gateway_getPrincipal', { Prefer: 'code=401, example=CREDENTIAL_INVALID' });
    expect(answer.status).toBe(401);
    expect((answer.body as { error: { code: string } }).error.code).toBe('CREDENTIAL_INVALID');
  });

  it('the prefer option selects an example for requests that carry no Prefer header', async () => {
    server.use(...createHandlers({ baseUrl, prefer: { gateway_getPrincipal: { code: 401, example: 'CREDENTIAL_INVALID' } } }));
    expect((await send('gateway_getPrincipal')).status).toBe(401);
    expect((await send('gateway_getStatus')).status).toBe(operationTable.gateway_getStatus.successStatus);
  });

  // DECISIONS, "Which example an MSW handler answers": a selection that names no example is 400 BAD_REQUEST at
  // header.prefer, listing every selection (scripts/conformance/test/msw-three-ways.test.ts holds Prism's answer equal to it).
  it.each([['an unknown name', 'example=NO_SUCH_EXAMPLE'], ['an undeclared status', 'code=418'], ['a name the status lacks', 'code=404, example=PrincipalSession']])(
    'a selection that names no example (%s) is the envelope listing every example',
    async (_label, prefer) => {
      const answer = await send('gateway_getPrincipal', { Prefer: prefer });
      expect(answer.status).toBe(400);
      expect(specProblems(answer)).toEqual([]);
      const error = (answer.body as { error: { code: string; message: string; request_id: string; errors: { location: string; message: string }[] } }).error;
      expect(error.code).toBe('BAD_REQUEST');
      expect(answer.headers['x-request-id']).toBe(error.request_id);
      const selections = exampleTable.gateway_getPrincipal.examples.map(([status, name]) => `code=${status}, example=${name}`);
      expect(error.errors.map((e) => e.location)).toEqual(Array(selections.length + 1).fill('header.prefer'));
      expect(error.errors.slice(1).map((e) => e.message)).toEqual(selections.map((s) => `valid: ${s}`));
      for (const selection of selections) expect(error.message).toContain(selection);
    },
  );

  it('a prefer option that names no example throws when the handlers are made, naming what there is', () => {
    expect(() => createHandlers({ prefer: { gateway_getStatus: { example: 'NO_SUCH_EXAMPLE' } } })).toThrow(/gateway_getStatus: no example for example=NO_SUCH_EXAMPLE; it has code=200, example=/);
  });

  it('docsBaseUrl moves every docs_url, the examples\' and the refusals\', into that site', async () => {
    server.use(...createHandlers({ baseUrl, docsBaseUrl: 'https://docs.example.test/team/', validateRequests: true }));
    const example = await send('gateway_getPrincipal', { Prefer: 'code=401, example=CREDENTIAL_INVALID' });
    expect((example.body as { error: { docs_url: string } }).error.docs_url).toBe('https://docs.example.test/team/errors.html#CREDENTIAL_INVALID');
    const refusal = await send('minds_getMind');
    expect((refusal.body as { error: { code: string; docs_url: string } }).error).toMatchObject({ code: 'INVALID_IDENTIFIER', docs_url: 'https://docs.example.test/team/errors.html#INVALID_IDENTIFIER' });
    const misused = await send('gateway_getStatus', { Prefer: 'code=418' });
    expect((misused.body as { error: { docs_url: string } }).error.docs_url).toBe('https://docs.example.test/team/errors.html#BAD_REQUEST');
  });

  it('by default, docs_url points at DOCS_BASE_URL of the build (the published docs site, for the published package), else at the spec examples\' site', async () => {
    expect(defaultDocsBaseUrl).toBe(process.env.DOCS_BASE_URL?.replace(/\/+$/, '') || exampleDocsBaseUrl);
    const example = await send('gateway_getPrincipal', { Prefer: 'code=401, example=CREDENTIAL_INVALID' });
    expect((example.body as { error: { docs_url: string } }).error.docs_url).toBe(`${defaultDocsBaseUrl}/errors.html#CREDENTIAL_INVALID`);
  });

  // spec/README.md, "Examples": a paginated list's first example is a last page; DECISIONS, "MSW handlers: a cursor leads to the last page".
  it.each(operationIds.filter((id) => exampleTable[id].lastPage !== null).map((id) => [id] as const))(
    '%s: a walk from every success example follows a cursor at most once and ends on next_cursor: null',
    async (id) => {
      const table = exampleTable[id];
      const successes = table.examples.filter(([status]) => status === table.successStatus);
      const withCursor = successes.filter(([status, name]) => (exampleValue(id, status, name) as { next_cursor: unknown }).next_cursor !== null);
      for (const [status, name] of successes) {
        const log: Exchange[] = [];
        const client = createClient({ baseUrl, token: 'bs_any', fetch: recordingFetch(log), headers: { Prefer: `example=${name}` } });
        const method = client[id as 'minds_listMinds'];
        const pages = [];
        for await (const page of method.pages()) pages.push(page);
        expect(pages.length, `${id} from ${name}`).toBeLessThanOrEqual(2);
        expect(pages.at(-1)!.next_cursor).toBeNull();
        // The operation's description: "ordered by `created_at`, then `mind_id`", and a page's `next_cursor` is
        // passed as `after` to read what follows: so a walk meets every Mind once, in that order.
        const walked = pages.flatMap((page) => page.items);
        expect(new Set(walked.map((m) => m.mind_id)).size, `${id} from ${name}: a Mind met twice`).toBe(walked.length);
        const order = (m: { created_at: string; mind_id: string }) => `${m.created_at} ${m.mind_id}`;
        expect(walked.map(order), `${id} from ${name}`).toEqual(walked.map(order).sort());
        for (const page of pages.slice(0, -1)) expect(page.next_cursor).toBe(page.items.at(-1)!.mind_id);
        expect(log.flatMap(specProblems)).toEqual([]);
        expect(log.map((e) => e.status)).toEqual(pages.map(() => status));
      }
      // Only meaningful when the spec shows a page that has a next one.
      if (id === 'minds_listMinds') expect(withCursor.length).toBeGreaterThan(0);
    },
  );

  it('the typed client runs the read scenario, and every answer validates against the spec', async () => {
    const log: Exchange[] = [];
    const client = createClient({ baseUrl, token: 'bs_any', fetch: recordingFetch(log) });
    const result = await readScenario(client, { notFoundHeaders: { Prefer: 'code=404' } });
    expect((result.notFound as { status: number }).status).toBe(404);
    expect(log.map((e) => e.operationId)).toEqual(scenarioOperations);
    expect(log.flatMap(specProblems)).toEqual([]);
  });
});
