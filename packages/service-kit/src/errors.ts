/**
 * The error envelope, built only from the catalog: a code's status, type,
 * Retry-After rule and required fields come from the contract, never from
 * the call site.
 */
import { errorCatalog, errorDocsUrl, isErrorReason, refusal, type ErrorCode, type ErrorEnvelope, type ErrorReason, type LocatedIssue, type OperationFacts, type RefusalRuleId } from '@gateway-minds/contract';
import { wwwAuthenticateFor } from './challenge.js';

/** One violated constraint of a request, as `errors[]` lists it. */
export type ValidationIssue = LocatedIssue;

export interface ServiceErrorDetails<C extends ErrorCode = ErrorCode> {
  /** One of the code's catalog reasons (x-reasons): the compiler and the constructor refuse any other. */
  reason?: ErrorReason<C>;
  layer?: string;
  requiredScope?: string;
  /** Seconds for the Retry-After header; required by codes whose catalog entry says so. */
  retryAfterSeconds?: number;
  errors?: ValidationIssue[];
  /** Extra response headers (Allow on 405, dpop-nonce on DPOP_NONCE_REQUIRED); WWW-Authenticate comes from the catalog. */
  headers?: Record<string, string>;
}

/**
 * An answer with the error envelope, thrown by a service's handler or middleware: its catalog code
 * decides the status, type and Retry-After rule, and the service's error handler sends it. (The
 * client's `APIError` is the same answer as a caller receives it.)
 */
export class ServiceError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly status: number;
  readonly details: ServiceErrorDetails<C>;

  constructor(code: C, message?: string, details: ServiceErrorDetails<C> = {}) {
    const facts = errorCatalog[code];
    super(message ?? capitalize(facts.description));
    this.name = 'ServiceError';
    this.code = code;
    this.status = facts.status;
    this.details = details;
    // A code the catalog marks with Retry-After or required fields cannot be
    // sent without them: fail at the throw site, where the bug is.
    if (facts.retryAfter && !details.retryAfterSeconds) throw new TypeError(`${code} needs retryAfterSeconds`);
    for (const field of facts.fields) {
      const present = field === 'required_scope' ? details.requiredScope : details[field];
      if (!present) throw new TypeError(`${code} needs ${field}`);
    }
    // A reason the catalog does not list for the code would reach clients undocumented (and, typed
    // by code, unexpected): refuse it here too, for reasons only known at run time.
    if (details.reason !== undefined && !isErrorReason(code, details.reason)) throw new TypeError(`${code} is never sent with reason ${String(details.reason)}`);
  }
}

/**
 * The error a refusal rule of the contract answers with (its code, message and reason):
 * `values` fill the message's placeholders, `ownCode` is a header's own code for a rule that takes one.
 */
export function refused(id: RefusalRuleId, details: Omit<ServiceErrorDetails, 'reason'> & { values?: Record<string, string | number>; ownCode?: string | null } = {}): ServiceError {
  const { values, ownCode, ...rest } = details;
  const { code, message, reason } = refusal(id, values, ownCode);
  return new ServiceError(code, message, { ...rest, ...(reason ? { reason: reason as ErrorReason } : {}) });
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith('.') ? '' : '.');
}

export function envelopeOf(error: ServiceError, requestId: string, docsBaseUrl: string): ErrorEnvelope {
  const { reason, layer, requiredScope, errors } = error.details;
  return {
    error: {
      code: error.code,
      type: errorCatalog[error.code].type,
      message: error.message.slice(0, 1024),
      docs_url: errorDocsUrl(docsBaseUrl, error.code),
      request_id: requestId as ErrorEnvelope['error']['request_id'],
      ...(requiredScope ? { required_scope: requiredScope } : {}),
      ...(reason ? { reason } : {}),
      ...(layer ? { layer } : {}),
      ...(errors?.length ? { errors: errors.slice(0, 50).map((e) => ({ location: e.location.slice(0, 512), message: e.message.slice(0, 512) })) } : {}),
    },
  };
}

/** Response headers an error carries besides its body; `operation` (when matched) shapes a 401's challenge. */
export function errorHeaders(error: ServiceError, operation?: Pick<OperationFacts, 'dpopHtm'>): Record<string, string> {
  const challenge = wwwAuthenticateFor(error.code, operation);
  return {
    ...(error.details.retryAfterSeconds ? { 'Retry-After': String(Math.ceil(error.details.retryAfterSeconds)) } : {}),
    ...(challenge ? { 'WWW-Authenticate': challenge } : {}),
    ...error.details.headers,
  };
}
