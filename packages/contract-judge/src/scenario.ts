/**
 * The read scenario a front-end runs, through the typed client: the same
 * steps against the MSW handlers (Node and Chromium), the Prism mock and the
 * real stack. It runs in Node and in the page, so it imports only the client.
 * `recordingFetch` keeps every answer (operation, status, body) for the Node
 * side to validate against the spec; `shapeOf` is what the three must agree on.
 */
import { APIError, AuthenticationError, createClient, matchOperation, type GatewayMindsClient } from '@gateway-minds/client';

export interface Exchange {
  operationId: string | undefined;
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** A fetch for the client's `fetch` option that records every exchange into `log`. */
export function recordingFetch(log: Exchange[], send: (request: Request) => Promise<Response> = (r) => fetch(r)) {
  return async (request: Request): Promise<Response> => {
    const response = await send(request);
    const text = await response.clone().text();
    const { pathname } = new URL(request.url);
    log.push({
      operationId: matchOperation(request.method, pathname)?.operationId,
      method: request.method,
      path: pathname,
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: text ? (JSON.parse(text) as unknown) : undefined,
    });
    return response;
  };
}

/**
 * `expected` with each list that is empty in `actual` emptied too, so that comparing shapes
 * (shapeOf) takes an empty list as a list of any shape: a real stack may have nothing to list
 * where an example shows an item (the status's `stores` on a gateway that shares no store,
 * DECISIONS "The status probe"). Lists with items on both sides are compared item by item.
 */
export function emptiedWhereEmpty(expected: unknown, actual: unknown): unknown {
  if (Array.isArray(expected) && Array.isArray(actual)) return actual.length === 0 ? [] : expected.map((item, i) => emptiedWhereEmpty(item, actual[i]));
  if (expected && actual && typeof expected === 'object' && typeof actual === 'object') {
    return Object.fromEntries(Object.entries(expected).map(([key, value]) => [key, emptiedWhereEmpty(value, (actual as Record<string, unknown>)[key])]));
  }
  return expected;
}

/** The structure of a JSON value: keys and JSON types, arrays by their first item; values left out. */
export function shapeOf(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length > 0 ? [shapeOf(value[0])] : [];
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((key) => [key, shapeOf(record[key])]));
  }
  return typeof value;
}

/** The Mind the scenario asks for and must not find. */
export const absentMindId = '00000000-0000-4000-8000-000000000000';

export interface ScenarioOptions {
  /** Headers on the request that must fail: `Prefer: code=404` for a mock, nothing for the real stack. */
  notFoundHeaders?: Record<string, string>;
}

/** The operations the scenario calls, in order. */
export const scenarioOperations = ['gateway_getStatus', 'gateway_getPrincipal', 'minds_listMinds', 'minds_getMind', 'minds_getMind', 'gateway_getPrincipal'];

/**
 * The steps' results by name: status, whoami, every listed page, one Mind, a Mind that is not there
 * (a typed 404), and whoami without a credential (a typed 401, whose challenge and request id a
 * page on another origin can read only when the server exposes them).
 */
export async function readScenario(client: GatewayMindsClient, options: ScenarioOptions = {}): Promise<Record<string, unknown>> {
  const status = await client.gateway_getStatus();
  const principal = await client.gateway_getPrincipal();
  const pages: unknown[] = [];
  const mindIds: string[] = [];
  for await (const page of client.minds_listMinds.pages()) {
    pages.push(page);
    mindIds.push(...page.items.map((m) => m.mind_id));
  }
  const firstId = mindIds[0];
  if (!firstId) throw new Error('the list walk found no Mind');
  const mind = await client.minds_getMind({ params: { path: { mind_id: firstId } } });
  let notFound: unknown;
  try {
    await client.minds_getMind({ params: { path: { mind_id: absentMindId } } }, { headers: options.notFoundHeaders ?? {} });
    notFound = 'answered';
  } catch (error) {
    if (!(error instanceof APIError)) throw error;
    notFound = { status: error.status, code: error.code, body: error.body };
  }
  let unauthorized: unknown;
  try {
    await createClient({ ...client.options, token: undefined }).gateway_getPrincipal();
    unauthorized = 'answered';
  } catch (error) {
    if (!(error instanceof APIError)) throw error;
    unauthorized = {
      status: error.status,
      code: error.code,
      authenticationError: error instanceof AuthenticationError,
      requestIdRead: typeof error.requestId === 'string',
      challengeRead: error.headers.has('www-authenticate'),
      body: error.body,
    };
  }
  return { status, principal, pages, mind, notFound, unauthorized, mindIds };
}
