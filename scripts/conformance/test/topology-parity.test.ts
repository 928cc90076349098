/**
 * Both topologies answer alike. npm start runs the gateway and the Minds service in one process
 * (the gateway forwards over an in-process transport) or in separate processes (over TCP);
 * DESIGN.md, "Topologies": "the gateway still forwards through the same path (signed assertion,
 * relay codes, response checks)". The same fixed requests — every operation with every kind of
 * credential and without one, refused bodies, queries and methods, a Mind's own lifecycle, and
 * relay faults — go to a stack of each topology, in the same order; each answer's status, error
 * code, the headers a client acts on and the shape of its body must be the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationIds, operationPath, operationTable, type OperationId } from '@gateway-minds/contract';
import { startStack, topologies, type Stack, type Topology } from '@gateway-minds/testkit';
import { caller, newKey, rawSend, readyMind, type Answer } from '../src/http.js';
import { requestFor } from '../src/requests.js';

/** What a client can act on in an answer; values that differ per request (ids, times) reduced to their type. */
interface Observed {
  status: number;
  code: string | undefined;
  headers: Record<string, string | undefined>;
  shape: unknown;
}

function shapeOf(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return [...new Set(value.map((item) => JSON.stringify(shapeOf(item))))].sort();
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as object).sort(([a], [b]) => a.localeCompare(b)).map(([key, item]) => [key, shapeOf(item)]));
  return typeof value;
}

function observe(answer: Answer): Observed {
  const header = (name: string) => answer.headers.get(name) ?? undefined;
  return {
    status: answer.status,
    code: answer.body?.error?.code,
    headers: {
      'content-type': header('content-type'),
      allow: header('allow'),
      // The challenge's scheme and error code; its other parameters are the same text in both.
      'www-authenticate': header('www-authenticate')?.replace(/error_description="[^"]*"/g, 'error_description'),
      'retry-after': header('retry-after') === undefined ? undefined : 'present',
      'dpop-nonce': header('dpop-nonce') === undefined ? undefined : 'present',
      'x-request-id': header('x-request-id') === undefined ? undefined : 'present',
    },
    shape: shapeOf(answer.body),
  };
}

type Credentials = Record<string, string | null>;

async function credentialsOf(stack: Stack): Promise<Credentials> {
  const agent = await stack.createAgent();
  return {
    none: null,
    'not a credential': 'gm_not_a_real_token',
    session: (await stack.issue('bridge_session')).token,
    'session without Sandbox': (await stack.issue('bridge_session', { sandbox: false })).token,
    'API key': (await stack.issue('api_key')).token,
    'm2m token': (await stack.issue('m2m_token')).token,
    'agent credential': (await stack.issue('agent_credential')).token,
    'agent token without its proof': (await stack.issue('agent_token', { agent_id: agent.id })).token,
  };
}

interface Exchange {
  name: string;
  send(stack: Stack, credentials: Credentials): Promise<Answer>;
}

const call = (stack: Stack, token: string | null) => caller(stack.url, token);

/** The same list for both stacks: built once, sent in order. */
function exchanges(): Exchange[] {
  const list: Exchange[] = [];
  for (const operationId of operationIds as readonly OperationId[]) {
    const facts = operationTable[operationId];
    const request = requestFor(operationId);
    for (const credential of ['none', 'not a credential', 'session', 'session without Sandbox', 'API key', 'm2m token', 'agent credential', 'agent token without its proof']) {
      list.push({
        name: `${operationId} with ${credential}`,
        send: (stack, credentials) => call(stack, credentials[credential]!)(request.method, request.path, { headers: request.headers, body: request.body }),
      });
    }
    if (facts.hasRequestBody) {
      list.push({
        name: `${operationId}: a body that is not JSON`,
        send: (stack, credentials) => rawSend(stack.url, request.method, request.path, { ...request.headers, authorization: `Bearer ${credentials.session}` }, '{"unterminated'),
      });
      list.push({
        name: `${operationId}: a body of the wrong type`,
        send: (stack, credentials) => call(stack, credentials.session!)(request.method, request.path, { headers: request.headers, body: [1, 2, 3] }),
      });
    }
    const separator = request.path.includes('?') ? '&' : '?';
    list.push({
      name: `${operationId}: an unknown query parameter`,
      send: (stack, credentials) => call(stack, credentials.session!)(request.method, `${request.path}${separator}not_a_parameter=1`, { headers: request.headers, body: request.body }),
    });
  }
  for (const [method, path] of [
    ['DELETE', operationPath('minds_listMinds')],
    ['PATCH', operationPath('gateway_getPrincipal')],
    ['GET', '/v1/minds/not-a-route'],
    ['GET', '/v1/not-a-service/anything'],
  ] as const) {
    list.push({ name: `${method} ${path}`, send: (stack, credentials) => call(stack, credentials.session!)(method, path) });
  }
  return list;
}

/** A Mind's lifecycle through the gateway: the state each step leaves is the same in both. */
async function lifecycle(stack: Stack, credentials: Credentials): Promise<Array<[string, Observed]>> {
  const session = call(stack, credentials.session!);
  const observed: Array<[string, Observed]> = [];
  const mind = await readyMind(session, 'Sandbox parity');
  const ofMind = { mind_id: mind.mind_id as string };
  const usage = requestFor('minds_getUsage', { mind: mind.mind_id as string });
  const steps: Array<[string, () => Promise<Answer>]> = [
    ['getMind, ready', () => session('GET', operationPath('minds_getMind', ofMind))],
    ['listMinds', () => session('GET', operationPath('minds_listMinds'))],
    ['stopMind', () => session('POST', operationPath('minds_stopMind', ofMind), { headers: { 'idempotency-key': newKey() } })],
    ['getMind with another credential', () => call(stack, credentials['API key']!)('GET', operationPath('minds_getMind', ofMind))],
    ['usage', () => session(usage.method, usage.path, { headers: usage.headers })],
  ];
  for (const [name, step] of steps) observed.push([name, observe(await step())]);
  return observed;
}

const stacks = {} as Record<Topology, Stack>;
const credentials = {} as Record<Topology, Credentials>;

beforeAll(async () => {
  await Promise.all(
    topologies.map(async (topology) => {
      stacks[topology] = await startStack({ topology });
      credentials[topology] = await credentialsOf(stacks[topology]);
    }),
  );
}, 180_000);
afterAll(async () => {
  await Promise.all(Object.values(stacks).map((stack) => stack.close()));
});

describe('all in one process and separate processes answer alike', () => {
  it('every operation, with every kind of credential and without one, and refused bodies, queries and methods', async () => {
    const list = exchanges();
    const answers = await Promise.all(
      topologies.map(async (topology) => {
        const observed: Array<[string, Observed]> = [];
        for (const exchange of list) observed.push([exchange.name, observe(await exchange.send(stacks[topology], credentials[topology]))]);
        return observed;
      }),
    );
    expect(list.length).toBeGreaterThan(150);
    // The list reached the service, not only the gateway's own refusals.
    expect(answers[0]!.filter(([, o]) => o.status < 400).length).toBeGreaterThan(10);
    expect(answers[1]).toEqual(answers[0]);
  }, 180_000);

  it("a Mind's lifecycle", async () => {
    const [allInOne, processes] = await Promise.all(topologies.map((topology) => lifecycle(stacks[topology], credentials[topology])));
    expect(processes).toEqual(allInOne);
  }, 60_000);

  it('relay faults: the service gone, before a request and with connections kept alive (UPSTREAM_UNREACHABLE)', async () => {
    const observed = await Promise.all(
      topologies.map(async (topology) => {
        const session = call(stacks[topology], credentials[topology].session!);
        const before = observe(await session('GET', operationPath('minds_listMinds')));
        await stacks[topology].stopMinds();
        const kept = observe(await session('GET', operationPath('minds_listMinds')));
        const again = observe(await session('GET', operationPath('minds_listAgentGroups')));
        return { before, kept, again };
      }),
    );
    expect(observed[0]!.before.status).toBe(200);
    // Interface, "Errors": UPSTREAM_UNREACHABLE, "upstream service unreachable".
    expect(observed[0]!.kept.code).toBe('UPSTREAM_UNREACHABLE');
    expect(observed[1]).toEqual(observed[0]);
  }, 60_000);
});
