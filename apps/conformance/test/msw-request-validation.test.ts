/**
 * The MSW handlers' opt-in request validation (`createHandlers({ validateRequests: true })`),
 * judged by the same generator that judges the real stack (hostile-input.test.ts): requests
 * valid except for ONE broken constraint, each expecting the code spec/DECISIONS.md names for
 * that place ("Which code for a validation failure"). The handlers must answer each with that
 * code, its catalog status and an envelope the operation declares, and must still answer every
 * valid request with its example. The handlers keep no state, so the fixture's ids are any
 * valid ids (the spec's example ids); what MSW can never receive is left out and counted: what
 * fetch cannot send (a body on a GET, a header value fetch refuses) and the gateway's transport
 * limits (path and query length).
 *
 * HOSTILE_SEED reproduces a run (the seed is printed).
 */
import { getResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { createHandlers } from '@gateway-minds/msw';
import type { RawAnswer, RawRequest } from '../src/hostile/client.js';
import { fixtureOf, type World } from '../src/hostile/fixture.js';
import { sampleHostile } from '../src/hostile/mutations.js';
import { render, validParts, type HostileCase } from '../src/hostile/requests.js';
import { describeFailure, judge } from '../src/hostile/run.js';
import { operations as allOperations } from '../src/hostile/spec.js';

const seed = Number(process.env.HOSTILE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const perOperation = 80;
const baseUrl = 'http://gateway.test';
const handlers = createHandlers({ baseUrl, validateRequests: true });

/** Valid values of the spec's own example ids: the handlers keep no state, so any valid id is an existing one. */
const world: World = {
  session: 'bs_msw_session',
  agentToken: 'at_msw_agent',
  contextSha256: '4f9c2b7e1a0d3c6b5e8f7a9d2c1b0e3f6a5d4c7b8e9f0a1b2c3d4e5f6a7b8c9d',
  mindId: '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b',
  scratchMindId: '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b',
  ownerEvent: { storageId: '7c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f', eventId: 'evt-1' },
  agentEvent: { storageId: '7c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f', eventId: 'evt-2' },
  groupId: 'agp_01JD3M8Q4Z9X7V6T5S4R3P2N1M',
  agentId: 'a_01JD3MA2B3C4D5E6F7G8H9J0KM',
  spareAgentId: 'a_01JD3MB7C8D9E0F1G2H3J4K5MN',
  attachmentId: 'mat_01JD3M9A7B6C5D4E3F2G1H0J9K',
};
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
