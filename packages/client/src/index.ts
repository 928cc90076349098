/**
 * @gateway-minds/client: a typed client for the /v1 gateway and the Minds
 * service. Browser-safe (fetch, WebCrypto, no Node imports).
 */
export { createClient, GatewayMindsClient, poll } from './client.js';
export type { CallOptions, ClientOptions, MethodOf, Mind, MindStatus, OperationMethod, OperationMethods, PaginatedMethod, WaitForMindOptions, WaitOptions, WithResponse } from './client.js';
export {
  APIError,
  ApiError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  GatewayMindsError,
  InternalServerError,
  NotFoundError,
  PaginationLoopError,
  parseRetryAfter,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  UnsupportedMediaTypeError,
  WaitFailedError,
  WaitTimeoutError,
} from './errors.js';
export { accessTokenHash, algorithmOf, createDpopProof, dpopThumbprint, generateDpopKey, importDpopKey, type DpopKeyPair, type DpopOptions } from './dpop.js';
export { DEFAULT_RETRY_ON, Transport, type RequestOptions, type RetryOptions, type TokenSource } from './transport.js';
export { factsOf, isErrorCode, isOutcomeUnknown, matchOperation, operationIds, type OperationRuntime, type RuntimeFacts } from './operations.js';
export type { IdempotentOperationId, OperationInput, OperationResult, RequestBody } from './operations.js';
export type { ErrorCode, ErrorReason, OperationId } from '@gateway-minds/contract';
