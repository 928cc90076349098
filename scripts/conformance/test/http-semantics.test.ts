/**
 * HTTP behaviour a client relies on beyond the contract's operations, through the real gateway to
 * the real Minds service: paths the contract does not name, HEAD, reserved
 * characters in a query, request-line and header sizes, body limits and deadlines, the rate limit
 * of the unauthenticated verification, and how a client abort is logged.
 *
 * Requests are written with node:http or, where the test must control the bytes on the wire
 * (a declared length, a body that trickles or stops), on a raw socket.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayLimits } from '@gateway-minds/contract';
import { startStack, type Stack } from '@gateway-minds/testkit';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

/** The lines a logger wrote, parsed. */
function capturedLogger(lines: Record<string, unknown>[]) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level: 'debug' }, sink);
}

function parseBody(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One request on its own connection, the target sent exactly as written. */
function call(base: string, method: string, target: string, headers: Record<string, string> = {}, options: { body?: string; localAddress?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = request({ host: url.hostname, port: url.port, method, path: target, headers, agent: false, localAddress: options.localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, text, body: parseBody(text) });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Writes `head` (and `partialBody`) on a raw socket and reads the one answer the server gives, without sending the rest of the body. */
function rawRequest(base: string, head: string, partialBody = '', trickleEveryMs?: number): Promise<Answer & { closed: boolean }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      const raw = Buffer.concat(chunks).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      if (end === -1) {
        if (closed) reject(new Error(`connection closed without an answer: ${JSON.stringify(raw)}`));
        return;
      }
      const [statusLine, ...headerLines] = raw.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      const body = Buffer.from(raw.slice(end + 4), 'latin1');
      const length = Number(headers['content-length']);
      if (!closed && !(body.length >= length)) return;
      settled = true;
      socket.destroy();
      const text = body.toString('utf8');
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, text, body: parseBody(text), closed: headers.connection === 'close' || closed });
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(head + partialBody);
    // A slow sender: one more byte of the body now and then, until the server answers.
    if (trickleEveryMs) {
      const trickle = setInterval(() => (socket.writable ? socket.write(' ') : clearInterval(trickle)), trickleEveryMs);
      socket.on('close', () => clearInterval(trickle));
    }
  });
}

/**
 * Sends `head` (which declares `Transfer-Encoding: chunked`) and then `body` (ASCII) in `chunkBytes`
 * chunks, one every `everyMs`; with `terminate`, the terminating chunk after them.
 * Resolves with the first answer and how many body bytes had been written when it arrived.
 */
function streamChunked(base: string, head: string, options: { body: string; chunkBytes: number; everyMs: number; terminate: boolean }): Promise<{ answer: Answer; sentWhenAnswered: number }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let sent = 0;
    let settled = false;
    const timer = setInterval(() => {
      if (!socket.writable || settled) return clearInterval(timer);
      if (sent >= options.body.length) {
        if (options.terminate) socket.write('0\r\n\r\n');
        return clearInterval(timer);
      }
      const piece = options.body.slice(sent, sent + options.chunkBytes);
      socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
      sent += piece.length;
    }, options.everyMs);
    const finish = (closed: boolean) => {
      if (settled) return;
      const raw = Buffer.concat(chunks).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      if (end === -1) {
        if (closed) {
          settled = true;
          clearInterval(timer);
          reject(new Error(`connection closed without an answer after ${sent} body bytes`));
        }
        return;
      }
      const [statusLine, ...headerLines] = raw.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      const body = raw.slice(end + 4);
      if (!closed && body.length < Number(headers['content-length'])) return;
      settled = true;
      clearInterval(timer);
      const sentWhenAnswered = sent;
      socket.destroy();
      resolve({ answer: { status: Number(statusLine!.split(' ')[1]), headers, text: body, body: parseBody(body) }, sentWhenAnswered });
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(head);
  });
}

function expectEnvelope(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.error?.code }, answer.text.slice(0, 300)).toEqual({ status, code });
  expect(answer.body.error.request_id).toBe(answer.headers['x-request-id']);
}

let stack: Stack;
let session: string;
const gatewayLog: Record<string, unknown>[] = [];
const VERIFY_POINTS = 5;
const UNNAMED_PATH_POINTS = 8;

beforeAll(async () => {
  stack = await startStack({
    gatewayEnv: {
      VERIFY_RATE_LIMIT_POINTS: String(VERIFY_POINTS),
      VERIFY_RATE_LIMIT_WINDOW_SECONDS: '600',
      UNNAMED_PATH_RATE_LIMIT_POINTS: String(UNNAMED_PATH_POINTS),
      UNNAMED_PATH_RATE_LIMIT_WINDOW_SECONDS: '600',
    },
    loggers: { gateway: capturedLogger(gatewayLog) },
  });
  session = (await stack.issue('bridge_session')).token;
});
afterAll(() => stack?.close());

const bearer = () => ({ authorization: `Bearer ${session}` });

describe('a path /v1/<service>/... the contract does not name (item 5)', () => {
  // Interface, "Gateway routes": "A path `/v1/<service>/...` not answered by the gateway is
  // forwarded to that service." DECISIONS.md "Paths the contract does not name".
  it('is forwarded to the named service, which answers it', async () => {
    const answer = await call(stack.url, 'GET', '/v1/minds/not-an-operation?x=1');
    expectEnvelope(answer, 404, 'ROUTE_NOT_FOUND');
    // The service refused it: the gateway forwarded it with its request id, and the service's
    // answer (not one the gateway made) came back.
    expect(answer.body.error.message).toBe('No service or operation at this path.');
  });

  it('reaches the service: with the service down the gateway reports the relay failure, not a 404', async () => {
    const alone = await startStack({ minds: false });
    try {
      const answer = await call(alone.url, 'POST', '/v1/minds/not-an-operation', { 'content-type': 'application/json' }, { body: '{}' });
      expectEnvelope(answer, 502, 'UPSTREAM_UNREACHABLE');
      expect(answer.body.error.layer).toBe('minds');
      // A service nobody registered is still the gateway's own ROUTE_NOT_FOUND.
      expectEnvelope(await call(alone.url, 'GET', '/v1/nosuchservice/x'), 404, 'ROUTE_NOT_FOUND');
    } finally {
      await alone.close();
    }
  });
});

describe('HEAD wherever GET is answered (item 9)', () => {
  // RFC 9110 §9.3.2: "The HEAD method is identical to GET except that the server MUST NOT send
  // content in the response"; the server SHOULD send the same header fields as for GET.
  const window = 'from=2026-11-23T00:00:00Z&to=2026-11-24T00:00:00Z';
  it.each([
    ['GET /v1/status (gateway, no credential)', '/v1/status', false],
    ['GET /v1/errors (gateway)', '/v1/errors', false],
    ['GET /v1/openapi.json (gateway)', '/v1/openapi.json', false],
    ['GET /v1/whoami (gateway, credential)', '/v1/whoami', true],
    ['GET /v1/usage (gateway, session)', '/v1/usage', true],
    ['GET /v1/minds/services (forwarded)', '/v1/minds/services', true],
    ['GET /v1/minds/usage (forwarded, with a query)', `/v1/minds/usage?${window}`, true],
    ['GET /v1/whoami without a credential (an error answer)', '/v1/whoami', false],
    ['GET /v1/minds/services without a credential (forwarded route, error)', '/v1/minds/services', false],
  ])('%s: HEAD has GET\'s status and headers and no body', async (_name, target, withCredential) => {
    const headers = withCredential ? bearer() : {};
    const get = await call(stack.url, 'GET', target, headers);
    const head = await call(stack.url, 'HEAD', target, headers);
    expect(head.status).toBe(get.status);
    expect(head.text).toBe('');
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(Number(get.headers['content-length'])).toBeGreaterThan(0);
  });

  it('a 405 lists HEAD beside GET in Allow', async () => {
    const answer = await call(stack.url, 'DELETE', '/v1/status');
    expectEnvelope(answer, 405, 'METHOD_NOT_ALLOWED');
    expect(answer.headers.allow).toBe('GET, HEAD');
  });
});

describe('reserved characters in a query (item 10)', () => {
  // RFC 3986 §3.4: a query may contain "/" / "?" / ":" / "@" and sub-delims unencoded.
  // DECISIONS.md "The raw query is checked, not only the parsed one".
  it('accepts GET /v1/minds/usage?from=...T00:00:00Z&to=... written as curl users write it', async () => {
    const raw = await call(stack.url, 'GET', '/v1/minds/usage?from=2026-11-23T00:00:00Z&to=2026-11-24T00:00:00Z', bearer());
    expect(raw.status, raw.text).toBe(200);
    expect([raw.body.from, raw.body.to]).toEqual(['2026-11-23T00:00:00Z', '2026-11-24T00:00:00Z']);
    const encoded = await call(stack.url, 'GET', '/v1/minds/usage?from=2026-11-23T00%3A00%3A00Z&to=2026-11-24T00%3A00%3A00Z', bearer());
    expect(encoded.status).toBe(200);
    expect([encoded.body.from, encoded.body.to]).toEqual([raw.body.from, raw.body.to]);
  });

  it('still refuses a value that is not a date-time', async () => {
    expectEnvelope(await call(stack.url, 'GET', '/v1/minds/usage?from=2026-11-23T25:00:00Z&to=2026-11-24T00:00:00Z', bearer()), 400, 'INVALID_QUERY');
  });
});

describe('path, query and header sizes (item 11)', () => {
  // Interface, "Limits": path and query at most 8192 characters each. DECISIONS.md
  // "What Node itself refuses".
  const { maxPathLength, maxQueryLength, maxHeaderBlockBytes } = gatewayLimits;
  const pathOf = (length: number) => `/v1/minds/${'p'.repeat(length - '/v1/minds/'.length)}`;
  const queryOf = (length: number) => `x=${'q'.repeat(length - 2)}`;
  const ordinaryHeaders = { 'user-agent': 'curl/8.11.1', accept: '*/*', 'accept-language': 'en-GB,en;q=0.9', 'x-trace': 't'.repeat(2000) };

  it('a path of 8192 and a query of 8192 characters together, with ordinary headers, reach the Minds service', async () => {
    const answer = await call(stack.url, 'GET', `${pathOf(maxPathLength)}?${queryOf(maxQueryLength)}`, ordinaryHeaders);
    // Forwarded with the same path and query, so the Minds listener accepted them too: its 404.
    expectEnvelope(answer, 404, 'ROUTE_NOT_FOUND');
  });

  it('one character over: PATH_INVALID or QUERY_TOO_LONG, from the gateway', async () => {
    expectEnvelope(await call(stack.url, 'GET', `${pathOf(maxPathLength + 1)}?${queryOf(maxQueryLength)}`, ordinaryHeaders), 400, 'PATH_INVALID');
    expectEnvelope(await call(stack.url, 'GET', `${pathOf(maxPathLength)}?${queryOf(maxQueryLength + 1)}`, ordinaryHeaders), 400, 'QUERY_TOO_LONG');
  });

  it('beyond the header block Node accepts: still the envelope, never a bare 431', async () => {
    const longPath = await rawRequest(stack.url, `GET ${pathOf(maxHeaderBlockBytes + 1000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectEnvelope(longPath, 400, 'PATH_INVALID');
    const longQuery = await rawRequest(stack.url, `GET /v1/status?${queryOf(maxHeaderBlockBytes + 1000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectEnvelope(longQuery, 400, 'QUERY_TOO_LONG');
    const bigHeaders = await rawRequest(stack.url, `GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(maxHeaderBlockBytes)}\r\n\r\n`);
    expectEnvelope(bigHeaders, 400, 'BAD_REQUEST');
    expect(bigHeaders.body.error.reason).toBe('header_block_too_large');
    expect(bigHeaders.closed).toBe(true);
  });
});

describe('bodies: declared length, slow senders, and the verification rate limit (item 13)', () => {
  const { maxBodyBytes } = gatewayLimits;
  const head = (target: string, headers: Record<string, string>) =>
    `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${Object.entries(headers).map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;

  // DECISIONS.md "Limits not shown": 64 KiB (info.x-gateway-limits.maxBodyBytes) for every body.
  it.each([
    ['a forwarded operation', () => `/v1/minds/search?mind=${randomUUID()}`, true],
    ['the gateway\'s own credential verification', () => '/v1/iam/credentials/verify', false],
  ])('%s: a Content-Length over the limit is 413 PAYLOAD_TOO_LARGE before any of the body is sent', async (_name, target, withCredential) => {
    const answer = await rawRequest(stack.url, head(target(), { 'Content-Length': String(maxBodyBytes * 160), ...(withCredential ? { Authorization: `Bearer ${session}` } : {}) }), '{"te');
    expectEnvelope(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(answer.closed).toBe(true); // the unread body is not drained
  });

  // DECISIONS.md "Limits not shown": "A body sent without a length (chunked) is refused when it
  // passes the limit": while it streams, not once the upload has ended.
  it.each([
    ['a forwarded operation', () => `/v1/minds/search?mind=${randomUUID()}`, true],
    ['the gateway\'s own credential verification', () => '/v1/iam/credentials/verify', false],
  ])('%s: a chunked body streamed past the limit is 413 PAYLOAD_TOO_LARGE before the upload ends', async (_name, target, withCredential) => {
    const body = `{"text":"${'a'.repeat(maxBodyBytes * 5)}"}`; // 320 KiB, 16 KiB every 50 ms
    const { answer, sentWhenAnswered } = await streamChunked(stack.url, head(target(), { 'Transfer-Encoding': 'chunked', ...(withCredential ? { Authorization: `Bearer ${session}` } : {}) }), {
      body,
      chunkBytes: 16_384,
      everyMs: 50,
      terminate: true,
    });
    expectEnvelope(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(answer.headers.connection).toBe('close'); // the rest is not drained
    expect(sentWhenAnswered).toBeGreaterThan(maxBodyBytes);
    expect(sentWhenAnswered).toBeLessThan(body.length);
  });

  it('a chunked body past the limit that is never terminated is answered 413 at the limit, not cut at the read deadline', async () => {
    const { answer, sentWhenAnswered } = await streamChunked(stack.url, head(`/v1/minds/search?mind=${randomUUID()}`, { 'Transfer-Encoding': 'chunked', Authorization: `Bearer ${session}` }), {
      body: `{"text":"${'a'.repeat(160 * 1024)}`,
      chunkBytes: 16_384,
      everyMs: 10,
      terminate: false,
    });
    // The read deadline would have answered 400 BAD_REQUEST (request_read_timeout).
    expectEnvelope(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(sentWhenAnswered).toBeGreaterThan(maxBodyBytes);
  });

  it('a chunked body within the limit is read whole: the gateway\'s verification and a forwarded search answer it', async () => {
    const verify = await streamChunked(stack.url, head('/v1/iam/credentials/verify', { 'Transfer-Encoding': 'chunked' }), { body: JSON.stringify({ credential: session }), chunkBytes: 7, everyMs: 5, terminate: true });
    expect(verify.answer.status).toBe(200);
    expect(verify.answer.body).toMatchObject({ active: true, kind: 'bridge_session' });
    const search = await streamChunked(stack.url, head(`/v1/minds/search?mind=${randomUUID()}`, { 'Transfer-Encoding': 'chunked', Authorization: `Bearer ${session}` }), { body: JSON.stringify({ text: 'x'.repeat(900) }), chunkBytes: 100, everyMs: 5, terminate: true });
    // The service read the body and reached its own rules: no such Mind.
    expectEnvelope(search.answer, 404, 'NOT_FOUND');
  });

  it('with Expect: 100-continue, the over-limit body is refused without a 100 Continue', async () => {
    const answer = await rawRequest(stack.url, head(`/v1/minds/search?mind=${randomUUID()}`, { 'Content-Length': String(maxBodyBytes + 1), Expect: '100-continue', Authorization: `Bearer ${session}` }));
    expectEnvelope(answer, 413, 'PAYLOAD_TOO_LARGE');
  });

  // DECISIONS.md "What Node itself refuses": a request must arrive whole within
  // info.x-gateway-limits.requestReadTimeoutMs; then it is cut with the envelope.
  it('a body that trickles (a byte every 500 ms) is cut after the read deadline with BAD_REQUEST (request_read_timeout)', async () => {
    const answer = await rawRequest(stack.url, head(`/v1/minds/search?mind=${randomUUID()}`, { 'Content-Length': '1000', Authorization: `Bearer ${session}` }), '{"text":', 500);
    expectEnvelope(answer, 400, 'BAD_REQUEST');
    expect(answer.body.error.reason).toBe('request_read_timeout');
    expect(answer.closed).toBe(true);
  }, gatewayLimits.requestReadTimeoutMs + 20_000);

  // DECISIONS.md "Rate limits": POST /v1/iam/credentials/verify, which needs no credential, is
  // limited per client address; 429 RATE_LIMITED with Retry-After (interface, "Errors").
  it('POST /v1/iam/credentials/verify is rate limited per client address', async () => {
    const verify = (localAddress: string) =>
      call(stack.url, 'POST', '/v1/iam/credentials/verify', { 'content-type': 'application/json' }, { body: JSON.stringify({ credential: 'bs_nonsense' }), localAddress });
    const statuses: number[] = [];
    let refused: Answer | undefined;
    for (let i = 0; i < VERIFY_POINTS + 2 && !refused; i++) {
      const answer = await verify('127.0.0.3');
      statuses.push(answer.status);
      if (answer.status === 429) refused = answer;
    }
    expect(statuses).toEqual([...Array(VERIFY_POINTS).fill(200), 429]);
    expectEnvelope(refused!, 429, 'RATE_LIMITED');
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another address has its own allowance.
    expect((await verify('127.0.0.4')).status).toBe(200);
  });

  // DECISIONS.md "Rate limits": a path the contract does not name is forwarded without a
  // credential ("Paths the contract does not name"), so it is limited per client address too.
  it('a path the contract does not name is rate limited per client address; past the limit nothing is forwarded', async () => {
    const unnamed = (localAddress: string, path = '/v1/minds/not-an-operation') => call(stack.url, 'GET', path, {}, { localAddress });
    const codes: string[] = [];
    for (let i = 0; i < UNNAMED_PATH_POINTS + 1; i++) codes.push((await unnamed('127.0.0.5')).body.error.code);
    // The service answered each of the allowance (its own 404), then the gateway refused.
    expect(codes).toEqual([...Array(UNNAMED_PATH_POINTS).fill('ROUTE_NOT_FOUND'), 'RATE_LIMITED']);
    const refused = await unnamed('127.0.0.5', '/v1/minds/another-unnamed-path');
    expectEnvelope(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The allowance is its own: credential verification from that address is still answered, and
    // the named operations, limited per credential, are untouched.
    expect((await call(stack.url, 'POST', '/v1/iam/credentials/verify', { 'content-type': 'application/json' }, { body: JSON.stringify({ credential: 'bs_nonsense' }), localAddress: '127.0.0.5' })).status).toBe(200);
    expect((await call(stack.url, 'GET', '/v1/minds/services', bearer(), { localAddress: '127.0.0.5' })).status).toBe(200);
    // Another address has its own allowance.
    expectEnvelope(await unnamed('127.0.0.6'), 404, 'ROUTE_NOT_FOUND');
  });
});

describe('a client that aborts its body (item 14)', () => {
  // DECISIONS.md "Client aborts": one info line, no stack, nothing at error level.
  it.each([
    ['a forwarded operation', () => `/v1/minds/search?mind=${randomUUID()}`, true],
    ['the gateway\'s own verification', () => '/v1/iam/credentials/verify', false],
  ])('%s: logged as a client abort, not as an unexpected error', async (_name, target, withCredential) => {
    const before = gatewayLog.length;
    const url = new URL(stack.url);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    const auth = withCredential ? `Authorization: Bearer ${session}\r\n` : '';
    socket.write(`POST ${target()} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n${auth}\r\n{"text":"half`);
    // Give the request time to reach the body reader; an abort before it must be logged the same way.
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();
    let abortLine: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && !abortLine; i++) {
      abortLine = gatewayLog.slice(before).find((line) => line.msg === 'client aborted the request');
      if (!abortLine) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(abortLine, JSON.stringify(gatewayLog.slice(before))).toBeDefined();
    expect(abortLine!.level).toBe(30); // info
    expect(abortLine).not.toHaveProperty('err');
    expect(gatewayLog.slice(before).filter((line) => (line.level as number) >= 50)).toEqual([]);
  });
});
