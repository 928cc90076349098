/**
 * The one place a request leaves the client. openapi-fetch builds the Request;
 * this sends it: exactly one Authorization header, Bearer (none on routes whose
 * security is empty; DPoP beside a proof, RFC 9449 §7.1), an Idempotency-Key made once per lifecycle mutation, a fresh DPoP
 * proof per attempt on agent operations, a deadline per attempt, the caller's
 * abort signal, and the opt-in retry of safe reads. Only operations whose
 * contract facts say `automaticRetry` are retried: mutations never, nor the
 * owner-management and agent operations the spec marks `x-automatic-retry:
 * false` (the interface: "no automatic retry"); the one exception is the
 * opt-in DPoP nonce round, which the gateway refused before forwarding.
 */
import type { ErrorCode } from '@gateway-minds/contract';
import { createDpopProof, type DpopOptions } from './dpop.js';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError, parseRetryAfter } from './errors.js';
import { errorCodes, errorStatus, matchOperation, type OperationRuntime } from './operations.js';

export type TokenSource = string | (() => string | Promise<string>);

export interface RetryOptions {
  /** Retries of a safe read (an operation whose `automaticRetry` is true) after the first attempt. 0 (the default) turns retrying off. */
  maxRetries?: number | undefined;
  /** First backoff delay when the answer carries no Retry-After; doubled per retry, with jitter. Default 500 ms. */
  initialDelayMs?: number | undefined;
  /** Longest wait. A Retry-After beyond it is not waited for: the error is returned. Default 30 s. */
  maxDelayMs?: number | undefined;
  /** Codes a read is retried on. Default DEFAULT_RETRY_ON: every code of the catalog answered with 429, 503 or 504. */
  retryOn?: readonly ErrorCode[] | undefined;
}

/** Settings of one call; client options give the defaults. */
export interface RequestOptions {
  /** Deadline per attempt, in ms (default 60 000). */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Retries of a safe read (operations whose `automaticRetry` is true); ignored for the others. */
  maxRetries?: number | undefined;
  /** The Idempotency-Key for a lifecycle mutation; pass the key of an earlier attempt to retry it. */
  idempotencyKey?: string | undefined;
  /** DPoP for this call; `false` sends no proof. */
  dpop?: DpopOptions | false | undefined;
  headers?: Record<string, string> | undefined;
}

export interface TransportOptions {
  /** Where the gateway is, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** The credential, sent as the one `Authorization: Bearer` header (or a function returning it). */
  token?: TokenSource | undefined;
  /** Deadline per attempt in ms. Default 60 000. */
  timeoutMs?: number | undefined;
  /** Opt-in retry of safe reads (operations whose contract facts say `automaticRetry`). Off unless `maxRetries` > 0. */
  retry?: RetryOptions | undefined;
  /** Sign a DPoP proof per request on agent operations (sender-constrained agent tokens). */
  dpop?: DpopOptions | undefined;
  /** A fetch to send with (tests, proxies); default globalThis.fetch. */
  fetch?: ((input: Request) => Promise<Response>) | undefined;
  /** Extra headers on every request. */
  headers?: Record<string, string> | undefined;
}

/** Mutable per-call state: the transport records the key and operation it used. */
export interface SendContext extends RequestOptions {
  operation?: OperationRuntime | undefined;
  /** Set by the transport: the Idempotency-Key the request carried. */
  usedIdempotencyKey?: string;
}

/** The statuses HTTP defines as temporary: 429 (RFC 6585 §4), 503 and 504 (RFC 9110 §15.6.4, §15.6.5). */
const TEMPORARY_STATUSES: ReadonlySet<number> = new Set([429, 503, 504]);

/**
 * The codes a safe read is retried on by default: every catalog code answered with a temporary status.
 * Among them the interface's RATE_LIMITED and SERVICE_DISABLED ("retry after Retry-After"), UPSTREAM_TIMEOUT
 * ("on a read is safe to retry"), and MINDS_UNAVAILABLE, AUTH_UNAVAILABLE and USAGE_UNAVAILABLE, which the
 * servers answer when their database is lost (DECISIONS.md, "A database lost during a request": on a read, retry it).
 */
export const DEFAULT_RETRY_ON: readonly ErrorCode[] = errorCodes.filter((code) => TEMPORARY_STATUSES.has(errorStatus(code)));
const NONCE_REQUIRED: ErrorCode = 'DPOP_NONCE_REQUIRED';

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new APIUserAbortError('aborted'));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

async function errorCodeOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return typeof body?.error?.code === 'string' ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

export class Transport {
  readonly baseUrl: string;
  private readonly basePath: string;
  /** The last nonce a server handed out (`dpop-nonce`), used in later proofs. */
  private dpopNonce: string | undefined;

  constructor(readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.basePath = new URL(this.baseUrl).pathname.replace(/\/+$/, '');
  }

  async token(): Promise<string | undefined> {
    const source = this.options.token;
    return typeof source === 'function' ? await source() : source;
  }

  /** Sends a request openapi-fetch built. */
  async send(request: Request, context: SendContext = {}): Promise<Response> {
    const url = new URL(request.url);
    const operation = context.operation ?? matchOperation(request.method, url.pathname.slice(this.basePath.length));
    const context_ = { operationId: operation?.operationId, mutation: operation ? !operation.readOnly : request.method !== 'GET' };

    const headers = new Headers(request.headers);
    for (const [name, value] of Object.entries({ ...this.options.headers, ...context.headers })) headers.set(name, value);
    headers.delete('authorization');
    const token = await this.token();
    const dpop = context.dpop === false ? undefined : (context.dpop ?? this.options.dpop);
    const htm = operation?.dpopHtm;
    // A token sent with a proof travels in the DPoP scheme (RFC 9449 §7.1) unless the caller asks for Bearer.
    const scheme = dpop && htm ? (dpop.scheme ?? 'DPoP') : 'Bearer';
    if (token && (operation === undefined || operation.credential)) headers.set('authorization', `${scheme} ${token}`);

    const keyHeader = operation?.idempotencyHeader;
    if (keyHeader) {
      const key = headers.get(keyHeader) ?? context.idempotencyKey ?? crypto.randomUUID();
      headers.set(keyHeader, key);
      context.usedIdempotencyKey = key;
    }
    const callContext = { ...context_, idempotencyKey: context.usedIdempotencyKey };

    const body = request.body ? await request.arrayBuffer() : undefined;
    const callerSignal = context.signal ?? request.signal;
    const timeoutMs = context.timeoutMs ?? this.options.timeoutMs ?? 60_000;
    const retry = this.options.retry ?? {};
    const maxRetries = operation?.automaticRetry ? (context.maxRetries ?? retry.maxRetries ?? 0) : 0;
    const retryOn = retry.retryOn ?? DEFAULT_RETRY_ON;
    const initialDelay = retry.initialDelayMs ?? 500;
    const maxDelay = retry.maxDelayMs ?? 30_000;
    const fetchImpl = this.options.fetch ?? ((input: Request) => globalThis.fetch(input));
    let nonceRound = false;

    for (let attempt = 0; ; attempt++) {
      if (callerSignal.aborted) throw new APIUserAbortError('The request was aborted.', { cause: callerSignal.reason });
      if (dpop && htm && token) {
        headers.set('dpop', await createDpopProof({ key: dpop.key, alg: dpop.alg, htm, url: request.url, accessToken: token, nonce: this.dpopNonce }));
      }
      const deadline = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        deadline.abort();
      }, timeoutMs);
      const onAbort = () => deadline.abort();
      callerSignal.addEventListener('abort', onAbort, { once: true });

      let response: Response;
      try {
        response = await fetchImpl(new Request(request.url, { method: request.method, headers, body: body ?? null, signal: deadline.signal, redirect: request.redirect }));
      } catch (cause) {
        if (callerSignal.aborted) throw new APIUserAbortError('The request was aborted.', { cause });
        const error = timedOut
          ? new APIConnectionTimeoutError(`No answer within ${timeoutMs} ms.`, callContext, { cause })
          : new APIConnectionError(`Connection failed: ${(cause as Error)?.message ?? cause}`, callContext, { cause });
        if (attempt < maxRetries) {
          await sleep(this.backoff(attempt, initialDelay, maxDelay), callerSignal);
          continue;
        }
        throw error;
      } finally {
        clearTimeout(timer);
        callerSignal.removeEventListener('abort', onAbort);
      }

      const nonce = response.headers.get('dpop-nonce');
      if (nonce) this.dpopNonce = nonce;
      if (response.ok) return response;

      const code = await errorCodeOf(response);
      if (code === NONCE_REQUIRED && dpop?.retryWithNonce && htm && nonce && !nonceRound) {
        // Refused before it was forwarded: signing again with the nonce is safe even for the insert.
        nonceRound = true;
        attempt--;
        continue;
      }
      if (attempt < maxRetries && code && (retryOn as readonly string[]).includes(code)) {
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        const delay = retryAfter !== undefined ? retryAfter * 1000 : this.backoff(attempt, initialDelay, maxDelay);
        if (delay <= maxDelay) {
          await response.body?.cancel().catch(() => undefined);
          await sleep(delay, callerSignal);
          continue;
        }
      }
      return response;
    }
  }

  private backoff(attempt: number, initial: number, max: number): number {
    return Math.min(max, initial * 2 ** attempt) * (0.75 + Math.random() * 0.25);
  }
}
