/**
 * Forwards an authenticated request to its service with the gateway's signed
 * assertion, and maps every relay failure to the catalog:
 * unreachable before the request was sent (on every replica) -> UPSTREAM_UNREACHABLE,
 * deadline or connection lost after sending -> UPSTREAM_TIMEOUT, an answer
 * outside the contract (status not declared, not JSON, not an envelope on an
 * error, a redirect, too large) -> BAD_GATEWAY. Only the operation's own
 * header parameters travel upstream: never the caller's Authorization,
 * cookies, or anything claiming tenancy.
 */
import type { Response } from 'express';
import { errors as undiciErrors, util as undiciUtil, type Dispatcher } from 'undici';
import type { ErrorReason, OperationFacts } from '@gateway-minds/contract';
import { ServiceError, ASSERTION_HEADER, type VerifiedPrincipal } from '@gateway-minds/service-kit';
import { MAX_UPSTREAM_BODY_BYTES, type Replica, type Upstream } from './upstreams.js';

const PASSED_BACK_HEADERS = ['content-type', 'retry-after', 'allow', 'dpop-nonce', 'www-authenticate'];

export interface ForwardRequest {
  upstream: Upstream;
  /** The contract operation; undefined for a path the contract does not name (only an error envelope is relayed then). */
  operation: OperationFacts | undefined;
  principal: VerifiedPrincipal | null;
  requestId: string;
  method: string;
  /** Path and query as the caller sent them. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer | undefined;
}

type RelayCode = 'UPSTREAM_UNREACHABLE' | 'UPSTREAM_TIMEOUT' | 'BAD_GATEWAY';

function relayError<C extends RelayCode>(code: C, upstream: Upstream, reason: ErrorReason<C>, message: string): ServiceError<C> {
  return new ServiceError(code, message, { reason, layer: upstream.name });
}

/** Signs (or reuses) the assertion for a principal and an audience. */
export type AssertionFor = (principal: VerifiedPrincipal, audience: string, requestId: string) => Promise<string>;

export async function forward(request: ForwardRequest, assertionFor: AssertionFor, res: Response): Promise<void> {
  const { upstream, operation } = request;
  const headers: Record<string, string> = { 'x-request-id': request.requestId, accept: 'application/json' };
  if (request.body) headers['content-type'] = 'application/json';
  for (const parameter of operation?.parameters ?? []) {
    if (parameter.in !== 'header') continue;
    const value = request.headers[parameter.name.toLowerCase()];
    if (typeof value === 'string') headers[parameter.name.toLowerCase()] = value;
  }
  if (request.principal) {
    headers[ASSERTION_HEADER] = await assertionFor(request.principal, upstream.name, request.requestId);
  }

  let response: UpstreamAnswer;
  try {
    response = await exchange(upstream, { path: request.url, method: request.method, headers, body: request.body });
  } catch (error) {
    throw classify(error, upstream);
  }
  const { statusCode, body } = response;

  const declared = operation ? statusCode === operation.successStatus || operation.errorStatuses.includes(statusCode) : statusCode >= 400;
  if (!declared) {
    throw relayError('BAD_GATEWAY', upstream, statusCode >= 300 && statusCode < 400 ? 'redirect_refused' : 'undeclared_status', `The ${upstream.name} service answered ${statusCode}, which the contract does not declare for ${operation ? 'this operation' : 'a path it does not name'}.`);
  }
  const contentType = String(response.headers['content-type'] ?? '');
  let parsed: unknown;
  try {
    if (!contentType.startsWith('application/json')) throw new Error('not JSON');
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw relayError('BAD_GATEWAY', upstream, 'invalid_response', `The ${upstream.name} service returned a response that is not JSON.`);
  }
  if (statusCode >= 400) {
    const error = (parsed as { error?: { code?: unknown } } | null)?.error;
    if (typeof error?.code !== 'string') {
      throw relayError('BAD_GATEWAY', upstream, 'invalid_response', `The ${upstream.name} service returned an error outside the envelope.`);
    }
  }

  res.status(statusCode);
  for (const name of PASSED_BACK_HEADERS) {
    const value = response.headers[name];
    if (typeof value === 'string') res.setHeader(name, value);
  }
  // Set here so that an answer to HEAD carries GET's Content-Length (RFC 9110 §9.3.2); Node leaves out the body.
  res.setHeader('content-length', body.length);
  res.end(body);
}

interface UpstreamAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Why an exchange failed, and whether the request had been sent by then. */
class ExchangeFailure extends Error {
  constructor(
    readonly error: unknown,
    /** The request had reached a connected socket: the service may have read and applied it. */
    readonly sent: boolean,
  ) {
    super(error instanceof Error ? error.message : String(error));
  }
}

/**
 * One request to the service and its whole answer, through a replica pool's dispatch with a
 * handler that keeps the body's chunks. `pool.request()` wraps each answer in a Readable stream
 * and an async resource and takes the deadline as an AbortSignal.timeout (a timer held through a
 * FinalizationRegistry); none of that is needed for a body read whole. The deadline is one timer
 * over the whole exchange, connections and other replicas included, and aborts it as the signal
 * did: a TimeoutError. The pool still refuses a body over MAX_UPSTREAM_BODY_BYTES as it arrives
 * (maxResponseSize), and its headers and body timeouts stay as they were.
 *
 * A request counts as sent from undici's onConnect on: it fires on a connected socket just before
 * the request is written, and no later hook tells of the first byte written (onRequestSent comes
 * after the last), so an error from then on is taken, conservatively, as after sending. An error
 * before it (the connection refused or not opened) left nothing with the service: the request is
 * tried on another replica not yet tried. A request sent is never sent again (interface, Minds
 * lifecycle rule 2: "The service never retries automatically.").
 */
function exchange(upstream: Upstream, request: { path: string; method: string; headers: Record<string, string>; body: Buffer | undefined }): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let sent = false;
    let abort: ((reason: Error) => void) | undefined;
    const tried = new Set<Replica>();
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      reject(new ExchangeFailure(error, sent));
    };
    const deadline = setTimeout(() => {
      const timedOut = new DOMException(`The ${upstream.name} service did not answer within ${upstream.timeoutMs} ms.`, 'TimeoutError');
      abort?.(timedOut);
      fail(timedOut);
    }, upstream.timeoutMs).unref();

    const attempt = (replica: Replica) => {
      tried.add(replica);
      replica.inFlight++;
      let answer: Omit<UpstreamAnswer, 'body'> | undefined;
      const chunks: Buffer[] = [];
      const handler: Dispatcher.DispatchHandler = {
        onConnect(abortRequest) {
          sent = true;
          abort = abortRequest;
          // Still queued when the deadline passed: it must not go out now.
          if (settled) abortRequest(new DOMException('The deadline passed before the request was sent.', 'TimeoutError'));
        },
        onHeaders(statusCode, rawHeaders) {
          // 1xx answers are interim: the final status follows.
          if (statusCode >= 200) answer = { statusCode, headers: undiciUtil.parseHeaders(rawHeaders as Buffer[]) };
          return true;
        },
        onData(chunk) {
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          replica.inFlight--;
          upstream.replicas.answered(replica);
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          resolve({ ...answer!, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
        },
        onError(error) {
          replica.inFlight--;
          if (!sent && !settled) {
            upstream.replicas.unreachable(replica);
            const next = upstream.replicas.choose(tried);
            if (next) return attempt(next);
          }
          fail(error);
        },
      };
      replica.pool.dispatch(
        { path: request.path, method: request.method as Dispatcher.HttpMethod, headers: request.headers, body: request.body, headersTimeout: upstream.timeoutMs, bodyTimeout: upstream.timeoutMs },
        handler,
      );
    };
    attempt(upstream.replicas.choose()!);
  });
}

function classify(failure: unknown, upstream: Upstream): ServiceError {
  const { error, sent } = failure instanceof ExchangeFailure ? failure : { error: failure, sent: false };
  if (error instanceof undiciErrors.ResponseExceededMaxSizeError) {
    return relayError('BAD_GATEWAY', upstream, 'response_too_large', `The ${upstream.name} service's response exceeded ${MAX_UPSTREAM_BODY_BYTES} bytes.`);
  }
  const timedOut =
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError ||
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'));
  if (timedOut) {
    return relayError('UPSTREAM_TIMEOUT', upstream, 'deadline_exceeded', `The ${upstream.name} service did not answer within ${upstream.timeoutMs} ms; a read may be retried, a mutation's outcome is unknown.`);
  }
  // Lost once sent, the service may have applied the request: 502 would say it had not
  // (spec/DECISIONS.md, "Relay failures").
  if (sent) {
    return relayError('UPSTREAM_TIMEOUT', upstream, 'connection_lost_after_send', `The connection to the ${upstream.name} service was lost after the request was sent; a read may be retried, a mutation's outcome is unknown.`);
  }
  const code = (error as { code?: string } | null)?.code;
  return relayError('UPSTREAM_UNREACHABLE', upstream, code === 'ECONNREFUSED' ? 'connection_refused' : 'connection_failed', `The ${upstream.name} service could not be reached.`);
}
