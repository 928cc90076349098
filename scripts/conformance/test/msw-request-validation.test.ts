/**
 * The MSW handlers' opt-in request validation (`createHandlers({ validateRequests: true })`),
 * judged by the same generator that judges the real stack (hostile-input.test.ts): requests
 * valid except for ONE broken constraint, each expecting the code spec/DECISIONS.md names for
 * that place ("Which code for a validation failure"). The handlers must answer each with that
 * code, its catalog status and an envelope the operation declares, and must still answer every
 * valid request with its example. The handlers keep no state, so the fixture's ids are any
 * valid ids; what MSW can never receive is left out and counted: what
 * fetch cannot send (a body on a GET, a header value fetch refuses) and the gateway's transport
 * limits (path and query length).
 *
 * The last test sends each of those requests to the servers' own pipeline too (service-kit's app
 * with the gateway's rules, handlers that are never reached) and asks for the same code and
 * message from both: each answers through the contract's refusal rules, so a rule's code or message
 * changed on one side only shows here.
 *
 * HOSTILE_SEED reproduces a run (the seed is printed).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationTable, refusalRules, type OperationFacts } from '@gateway-minds/contract';
import { gatewayPreflight, usageReadGuard } from '@gateway-minds/gateway';
import { createHandlers } from '@gateway-minds/msw';
import { createLogger, createServiceApp, type OperationHandler } from '@gateway-minds/service-kit';
import { HttpClient, pool, type RawAnswer, type RawRequest } from '../src/hostile/client.js';
import { fixtureOf, statelessWorld } from '../src/hostile/fixture.js';
import { sampleHostile } from '../src/hostile/mutations.js';
import { render, validParts, type HostileCase } from '../src/hostile/requests.js';
import { describeFailure, judge } from '../src/hostile/run.js';
import { operations as allOperations } from '../src/hostile/spec.js';

const seed = Number(process.env.HOSTILE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const perOperation = 80;
const baseUrl = 'http://gateway.test';
const handlers = createHandlers({ baseUrl, validateRequests: true });

// The handlers keep no state: any identifier of the right shape is an existing one.
const world = statelessWorld('msw');
const fixture = fixtureOf(world);

/** The request as fetch builds it; undefined when fetch cannot send it at all. */
function fetchRequest(raw: RawRequest): Request | undefined {
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(raw.headers ?? {})) for (const one of [value].flat()) headers.append(name, one);
    return new Request(baseUrl + raw.path, { method: raw.method.toUpperCase(), headers, ...(raw.body === undefined ? {} : { body: raw.body }) });
  } catch {
    return undefined;
  }
}

/** The servers' pipeline for every operation: service-kit's app, with the gateway's preflight and usage-read rule. */
let servers: { server: Server; client: HttpClient };
beforeAll(async () => {
  const operations = Object.values(operationTable) as OperationFacts[];
  const unreached: OperationHandler = (_req, res) => res.status(299).json({});
  const app = createServiceApp({
    operations,
    handlers: Object.fromEntries(operations.map((o) => [o.operationId, unreached])),
    validateResponses: false,
    docsBaseUrl: 'http://docs.test',
    logger: createLogger('test'),
    preflight: gatewayPreflight,
    operationGuards: { [operationTable.gateway_getUsage.operationId]: usageReadGuard },
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  servers = { server, client: new HttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 8) };
});
afterAll(async () => {
  servers?.client.close();
  await new Promise((resolve) => servers?.server.close(resolve));
});

/** Each rule's message as a pattern, its `{placeholders}` matching any text. */
const ruleMessages = refusalRules.map((rule) => ({
  code: rule.code as string,
  ownCode: 'ownCode' in rule,
  message: new RegExp(`^${rule.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{\w+\\\}/g, '.*')}$`),
}));
/** Whether a refusal rule answers with this code and message (a header's own code stands for its rule's). */
const isRuleAnswer = (code: string, message: string): boolean => ruleMessages.some((rule) => (rule.code === code || rule.ownCode) && rule.message.test(message));

async function answerOf(request: Request): Promise<RawAnswer> {
  const response = await getResponse(handlers, request);
  if (!response) throw new Error(`no handler for ${request.method} ${request.url}`);
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), text, json, ms: 0 };
}

describe('MSW request validation, judged by the hostile-input generator', () => {
  it.each(allOperations.map((operation) => [operation.id, operation] as const))('%s: a valid request still gets its success example', async (_id, operation) => {
    const request = fetchRequest(render(operation, validParts(operation, fixture, crypto.randomUUID())))!;
    const answer = await answerOf(request);
    expect(answer.status, answer.text.slice(0, 300)).toBe(operation.facts.successStatus);
  });

  it('answers every broken request MSW can receive with the documented code, its status and a declared envelope', async () => {
    console.log(`msw request validation: seed ${seed} (HOSTILE_SEED=${seed} reproduces this run)`);
    const cases: HostileCase[] = allOperations.flatMap((operation, index) => sampleHostile(operation, fixture, perOperation, seed + index));
    const notReceivable: Record<string, number> = {};
    const failures: string[] = [];
    let judged = 0;
    for (const hostile of cases) {
      // The gateway's transport limits: a request line MSW never sees (DECISIONS, "Limits not shown").
      const request = hostile.expected.some((code) => code === 'PATH_INVALID' || code === 'QUERY_TOO_LONG') ? undefined : fetchRequest(hostile.request);
      if (!request) {
        notReceivable[hostile.category] = (notReceivable[hostile.category] ?? 0) + 1;
        continue;
      }
      judged++;
      const verdict = judge(hostile, await answerOf(request));
      if (verdict.problems.length) failures.push(describeFailure(verdict));
    }
    console.log(`msw request validation: ${judged} judged, not receivable by MSW: ${JSON.stringify(notReceivable)}`);
    expect(failures.slice(0, 20)).toEqual([]);
    expect(judged).toBeGreaterThan(cases.length / 2);
  });

  it('answers each of those requests with the code and message the servers answer, both a rule of the contract', async () => {
    const cases: HostileCase[] = allOperations.flatMap((operation, index) => sampleHostile(operation, fixture, perOperation, seed + index));
    const receivable = cases.flatMap((hostile) => {
      const request = hostile.expected.some((code) => code === 'PATH_INVALID' || code === 'QUERY_TOO_LONG') ? undefined : fetchRequest(hostile.request);
      return request ? [{ hostile, request }] : [];
    });
    // Requests the servers' validation passes on to the handler (a 299 from the stand-in handlers):
    // none may be, or the servers and the mocks judge a request differently.
    const handedOn: Record<string, number> = {};
    const differences = await pool(receivable, 8, async ({ hostile, request }) => {
      const [server, mock] = await Promise.all([servers.client.send(hostile.request), answerOf(request)]);
      const label = `${hostile.operation} ${hostile.category} ${hostile.location}`;
      if (server.status === 299) {
        handedOn[label] = (handedOn[label] ?? 0) + 1;
        return undefined;
      }
      const said = (answer: RawAnswer) => ({ status: answer.status, code: answer.json?.error?.code as string, message: answer.json?.error?.message as string });
      const [s, m] = [said(server), said(mock)];
      const shown = `${label}: ${hostile.request.method} ${hostile.request.path.slice(0, 100)}`;
      if (s.code !== m.code || s.message !== m.message) return `${shown}\n  servers: ${JSON.stringify(s)}\n  msw:     ${JSON.stringify(m)}`;
      if (!isRuleAnswer(s.code, s.message)) return `${shown}\n  not a refusal rule's answer: ${JSON.stringify(s)}`;
      return undefined;
    });
    const compared = receivable.length - Object.values(handedOn).reduce((sum, n) => sum + n, 0);
    console.log(`msw request validation: ${compared} refusals compared with the servers'; passed on to the handler by the servers' validation: ${JSON.stringify(handedOn)}`);
    expect(differences.filter(Boolean).slice(0, 20)).toEqual([]);
    expect(handedOn).toEqual({});
    expect(compared).toBeGreaterThan(cases.length / 2);
  }, 120_000);
});
