/**
 * Errors the client throws. An error envelope from the API becomes an
 * `APIError` (a subclass per status family) carrying the catalog code and
 * every envelope field; a request that got no answer becomes an
 * `APIConnectionError` (or `APIConnectionTimeoutError`); a caller's abort
 * becomes `APIUserAbortError`.
 */
import type { ErrorCode, ErrorEnvelope, ErrorReason, OperationId } from '@gateway-minds/contract';
import { isErrorCode, isOutcomeUnknown } from './operations.js';

type EnvelopeBody = ErrorEnvelope['error'];

/** What the client knew about the call an error belongs to. */
export interface CallContext {
  operationId?: OperationId | undefined;
  /** The operation is a mutation (not GET and not x-read-only). */
  mutation?: boolean | undefined;
  /** The Idempotency-Key the request carried: retry with the same key. */
  idempotencyKey?: string | undefined;
}

export class GatewayMindsError extends Error {
  override name = 'GatewayMindsError';
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  return !!error && typeof error === 'object' && typeof error.code === 'string' && typeof error.message === 'string';
}

/** The API answered with an error status. */
export class APIError extends GatewayMindsError {
  override name = 'APIError';
  /** HTTP status. */
  readonly status: number;
  /** The catalog code, or undefined when the body was not an error envelope. */
  readonly code: ErrorCode | undefined;
  readonly type: string | undefined;
  readonly docsUrl: string | undefined;
  readonly requestId: string | undefined;
  /** Seconds from the Retry-After header, when sent. */
  readonly retryAfter: number | undefined;
  readonly requiredScope: string | undefined;
  readonly reason: string | undefined;
  readonly layer: string | undefined;
  /** Every violated constraint, on validation failures. */
  readonly errors: EnvelopeBody['errors'] | undefined;
  /** The envelope's `error` object, or the raw body when it was not an envelope. */
  readonly body: EnvelopeBody | unknown;
  readonly headers: Headers;
  readonly operationId: OperationId | undefined;
  /** The Idempotency-Key the request carried (lifecycle mutations): retry with this key. */
  readonly idempotencyKey: string | undefined;
  readonly mutation: boolean;

  constructor(status: number, body: unknown, headers: Headers, context: CallContext = {}) {
    const envelope = isEnvelope(body) ? body.error : undefined;
    const code = envelope && isErrorCode(envelope.code) ? envelope.code : undefined;
    super(envelope ? `${status} ${envelope.code}: ${envelope.message}` : `${status} ${typeof body === 'string' && body ? body.slice(0, 200) : 'error without an envelope'}`);
    this.status = status;
    this.code = code;
    this.type = envelope?.type;
    this.docsUrl = envelope?.docs_url;
    this.requestId = envelope?.request_id ?? headers.get('x-request-id') ?? undefined;
    this.retryAfter = parseRetryAfter(headers.get('retry-after'));
    this.requiredScope = envelope?.required_scope;
    this.reason = envelope?.reason;
    this.layer = envelope?.layer;
    this.errors = envelope?.errors;
    this.body = envelope ?? body;
    this.headers = headers;
    this.operationId = context.operationId;
    this.idempotencyKey = context.idempotencyKey;
    this.mutation = context.mutation ?? false;
  }

  /**
   * The catalog says a mutation's outcome may be unknown after this code
   * (`x-outcome-unknown`): re-read state, or retry with the same
   * Idempotency-Key where the operation takes one. Never true for reads.
   */
  get outcomeUnknown(): boolean {
    return this.mutation && this.code !== undefined && isOutcomeUnknown(this.code);
  }

  /**
   * Narrows the error to one catalog code, and its `reason` to the reasons the catalog lists
   * for that code: `if (error.hasCode('NOT_FOUND') && error.reason === 'not_admitted')`.
   * A later API version may add reasons (a minor release): keep a default branch.
   */
  hasCode<C extends ErrorCode>(code: C): this is APIError & { readonly code: C; readonly reason: ErrorReason<C> | undefined } {
    return this.code === code;
  }

  /** The error as the API sent it, for logs and CLIs. */
  toJSON(): Record<string, unknown> {
    return { status: this.status, ...(typeof this.body === 'object' && this.body ? this.body : { body: this.body }) };
  }

  static from(status: number, body: unknown, headers: Headers, context: CallContext = {}): APIError {
    const Class =
      status === 400 ? BadRequestError
      : status === 401 ? AuthenticationError
      : status === 403 ? PermissionDeniedError
      : status === 404 ? NotFoundError
      : status === 409 ? ConflictError
      : status === 413 ? PayloadTooLargeError
      : status === 415 ? UnsupportedMediaTypeError
      : status === 429 ? RateLimitError
      : status >= 500 ? InternalServerError
      : APIError;
    return new Class(status, body, headers, context);
  }
}

/**
 * @deprecated The same class under its former name; use `APIError`, named like the client's other
 * errors (`APIConnectionError`, `APIUserAbortError`). Kept because released versions exported it.
 */
export const ApiError = APIError;
/** @deprecated Use `APIError`. */
export type ApiError = APIError;

export class BadRequestError extends APIError { override name = 'BadRequestError'; }
export class AuthenticationError extends APIError { override name = 'AuthenticationError'; }
export class PermissionDeniedError extends APIError { override name = 'PermissionDeniedError'; }
export class NotFoundError extends APIError { override name = 'NotFoundError'; }
export class ConflictError extends APIError { override name = 'ConflictError'; }
export class PayloadTooLargeError extends APIError { override name = 'PayloadTooLargeError'; }
export class UnsupportedMediaTypeError extends APIError { override name = 'UnsupportedMediaTypeError'; }
export class RateLimitError extends APIError { override name = 'RateLimitError'; }
/** 5xx: the gateway's own failures, relay failures (`layer` names the service) and unavailable services. */
export class InternalServerError extends APIError { override name = 'InternalServerError'; }

/** No answer: the connection failed or was cut. For a mutation the outcome is unknown. */
export class APIConnectionError extends GatewayMindsError {
  override name = 'APIConnectionError';
  readonly operationId: OperationId | undefined;
  readonly idempotencyKey: string | undefined;
  readonly mutation: boolean;
  constructor(message: string, context: CallContext = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.operationId = context.operationId;
    this.idempotencyKey = context.idempotencyKey;
    this.mutation = context.mutation ?? false;
  }
  /** A mutation that got no answer may or may not have happened. */
  get outcomeUnknown(): boolean {
    return this.mutation;
  }
}

/** The client's own deadline passed before the API answered. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
}

/** The caller's AbortSignal fired. */
export class APIUserAbortError extends GatewayMindsError {
  override name = 'APIUserAbortError';
}

/**
 * A paginated walk was handed a cursor it had already followed: the server (or a mock serving one
 * fixed example) would answer the same page again forever, so the walk stops instead of looping.
 */
export class PaginationLoopError extends GatewayMindsError {
  override name = 'PaginationLoopError';
  constructor(
    readonly operationId: OperationId,
    /** The repeated `next_cursor`. */
    readonly cursor: string,
    /** Pages read before the repeat, the repeating one included. */
    readonly pagesRead: number,
  ) {
    super(`${operationId}: page ${pagesRead} returned next_cursor ${JSON.stringify(cursor)}, which this walk already followed; stopping instead of reading the same pages again.`);
  }
}

/** A poll did not reach the wanted state in time (`last` is the last value read). */
export class WaitTimeoutError<T = unknown> extends GatewayMindsError {
  override name = 'WaitTimeoutError';
  constructor(message: string, readonly last: T | undefined) {
    super(message);
  }
}

/** A poll reached a state it can no longer leave toward the wanted one (a failed Mind). */
export class WaitFailedError<T = unknown> extends GatewayMindsError {
  override name = 'WaitFailedError';
  constructor(message: string, readonly last: T) {
    super(message);
  }
}
