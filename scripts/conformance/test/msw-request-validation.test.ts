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
 * HOSTILE_SEED reproduces a run (the seed is printed).
 */
import { getResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { createHandlers } from '@gateway-minds/msw';
import type { RawAnswer, RawRequest } from '../src/hostile/client.js';
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
});
