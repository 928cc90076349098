/**
 * The compiled request validation (packages/service-kit/src/compiled-request-validation.ts) judged
 * by express-openapi-validator itself: it is a faster path to the same answers, so behaviour, error
 * codes and the hostile-input suite's results are exactly the validator's.
 *
 * Two apps serve every operation of the contract with handlers that echo what they were given
 * (path values, query, headers, body, after validation): one with the compiled validation in
 * front of express-openapi-validator, as the services run, one with express-openapi-validator
 * alone, as before. The same requests go to both over real HTTP: the spec's valid samples, the
 * generated hostile requests of every operation (the hostile-input suite's generator, with a fixed
 * seed so that a failure reproduces) and the edges between valid and broken. Every answer must be
 * the same, status and body (request ids aside), so a request the compiled validators let through
 * reaches its handler exactly as express-openapi-validator would have handed it over; and the
 * compiled validators must take every request express-openapi-validator accepts, or they would not
 * be what the services spend their time in.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationTable, type OperationFacts } from '@gateway-minds/contract';
import { createLogger, createServiceApp, requestContext, type OperationHandler } from '@gateway-minds/service-kit';
import { HttpClient, pool, type RawAnswer, type RawRequest } from '../src/hostile/client.js';
import { textEdges, urlEdges } from '../src/hostile/edges.js';
import { fixtureOf, statelessWorld } from '../src/hostile/fixture.js';
import { sampleHostile } from '../src/hostile/mutations.js';
import { operations as allOperations } from '../src/hostile/spec.js';
import { validSamples, type SampleState } from '../src/hostile/valid.js';

const seed = 22;
const perOperation = 120;

// Nothing behind the identifiers: the handlers only echo.
const world = statelessWorld('compiled_validation');
const fixture = fixtureOf(world);

const operations = Object.values(operationTable) as OperationFacts[];
const echo: OperationHandler = (req, res) => {
  const { operation, pathParams } = requestContext(res);
  const headers = Object.fromEntries(operation.parameters.filter((p) => p.in === 'header').map((p) => [p.name, req.headers[p.name.toLowerCase()] ?? null]));
  res.json({ operation: operation.operationId, path: pathParams, query: req.query, headers, body: req.body ?? null });
};
const handlers = Object.fromEntries(operations.map((o) => [o.operationId, echo]));

interface Served {
  server: Server;
  client: HttpClient;
  counts: { accepted: number; handedOn: number } | undefined;
}
let compiled: Served;
let validatorAlone: Served;

async function serve(compiledRequestValidation: boolean): Promise<Served> {
  const app = createServiceApp({ operations, handlers, validateResponses: false, docsBaseUrl: 'http://docs.test', logger: createLogger('test'), compiledRequestValidation });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, client: new HttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 8), counts: app.locals.compiledRequestValidation };
}

beforeAll(async () => {
  compiled = await serve(true);
  validatorAlone = await serve(false);
});
afterAll(async () => {
  for (const served of [compiled, validatorAlone]) {
    served?.client.close();
    await new Promise((resolve) => served?.server.close(resolve));
  }
});

/** What must be equal: status, the Allow header, and the body without its per-request ids. */
function comparable(answer: RawAnswer | Error): unknown {
  if (answer instanceof Error) return `no answer: ${answer.message}`;
  const body = answer.json === undefined ? answer.text : JSON.parse(JSON.stringify(answer.json, (key, value) => (key === 'request_id' ? undefined : value)));
  return { status: answer.status, allow: answer.headers.allow ?? null, body };
}

async function differences(requests: { label: string; request: RawRequest }[]): Promise<{ problems: string[]; acceptedByValidator: number }> {
  let acceptedByValidator = 0;
  const problems = await pool(requests, 8, async ({ label, request }) => {
    const [withCompiled, alone] = await Promise.all([compiled.client.send(request).catch((e: Error) => e), validatorAlone.client.send(request).catch((e: Error) => e)]);
    if (!(alone instanceof Error) && alone.status === 200) acceptedByValidator++;
    const a = comparable(withCompiled);
    const b = comparable(alone);
    return JSON.stringify(a) === JSON.stringify(b) ? undefined : `${label}: ${request.method} ${request.path.slice(0, 120)}\n  compiled:  ${JSON.stringify(a).slice(0, 400)}\n  validator: ${JSON.stringify(b).slice(0, 400)}`;
  });
  return { problems: problems.filter((p): p is string => p !== undefined), acceptedByValidator };
}

describe('compiled request validation answers as express-openapi-validator does (same behaviour, same error codes)', () => {
  it('the valid samples of every operation: the same answers, and every one taken by the compiled validators', async () => {
    const state: SampleState = { world, saved: {} };
    const requests = validSamples(fixture, world, seed).flatMap((sample) => {
      try {
        return [{ label: `${sample.operation} (${sample.note})`, request: sample.build(state) }];
      } catch {
        return []; // a sample built from an earlier answer (there are none here)
      }
    });
    const before = { ...compiled.counts! };
    const { problems, acceptedByValidator } = await differences(requests);
    expect(problems).toEqual([]);
    expect(new Set(requests.map((r) => r.label.split(' ')[0])).size).toBe(allOperations.length);
    expect(acceptedByValidator).toBeGreaterThan(requests.length / 2);
    expect(compiled.counts!.accepted - before.accepted, 'requests the validator accepts that the compiled validators handed on').toBe(acceptedByValidator);
  }, 60_000);

  it(`${perOperation} generated hostile requests per operation: the same refusals, code and details`, async () => {
    const cases = allOperations.flatMap((operation, index) => sampleHostile(operation, fixture, perOperation, seed + index));
    const before = { ...compiled.counts! };
    const { problems, acceptedByValidator } = await differences(cases.map((c) => ({ label: `${c.operation} ${c.category} ${c.location}`, request: c.request })));
    console.log(`compiled validation: ${cases.length} hostile requests; the compiled validators took ${compiled.counts!.accepted - before.accepted} and handed on ${compiled.counts!.handedOn - before.handedOn}`);
    expect(problems.slice(0, 10)).toEqual([]);
    // Every request the validator hands to the handler, the compiled validators took (a few more are
    // refused after validation, by the UTF-8 byte limits, alike in both apps: the answers above are equal).
    expect(compiled.counts!.accepted - before.accepted).toBeGreaterThanOrEqual(acceptedByValidator);
  }, 180_000);

  it('the edges (U+0000, lone surrogates, bytes that are not UTF-8, malformed percent-encodings, __proto__, impossible dates): the same answers', async () => {
    const edges = [...textEdges(fixture, world), ...urlEdges(fixture, world)];
    const { problems } = await differences(edges.map((e) => ({ label: `${e.operation} ${e.name}`, request: e.request })));
    expect(problems).toEqual([]);
  }, 60_000);
});
