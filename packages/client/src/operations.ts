/**
 * The operation table seen by the client: types per operation id derived from
 * the contract's generated `operations` and `operationTable`, and the runtime
 * lookups the transport needs (which header is the Idempotency-Key, whether a
 * credential is sent, which operation a path-style call hits).
 */
import type { ErrorCode, OperationId, operations, operationTable } from '@gateway-minds/contract';
import { errorCodeFacts, runtimeTable } from './generated/runtime-table.js';
import type { RequiredKeysOf } from 'openapi-typescript-helpers';

export type Table = typeof operationTable;
export type Facts<K extends OperationId> = Table[K];

/** The code a missing Idempotency-Key is refused with: the header parameter carrying it says so (x-missing-code). */
const IDEMPOTENCY_MISSING_CODE = 'IDEMPOTENCY_KEY_REQUIRED' satisfies ErrorCode;

/** The name of the operation's Idempotency-Key header parameter, or never. */
export type IdempotencyHeader<K extends OperationId> = Extract<Facts<K>['parameters'][number], { in: 'header'; missingCode: typeof IDEMPOTENCY_MISSING_CODE }>['name'];
/** Operations that take an Idempotency-Key (the lifecycle mutations). */
export type IdempotentOperationId = { [K in OperationId]: [IdempotencyHeader<K>] extends [never] ? never : K }[OperationId];

type Params<K extends OperationId> = operations[K]['parameters'];
type HeaderOf<K extends OperationId> = NonNullable<Params<K>['header']>;
/** Header parameters with the Idempotency-Key optional (the client makes one) and `dpop` left to the DPoP helper. */
type CallerHeader<K extends OperationId> = Omit<HeaderOf<K>, IdempotencyHeader<K>> & Partial<Pick<HeaderOf<K>, IdempotencyHeader<K> & keyof HeaderOf<K>>>;
type CallerParams<K extends OperationId> = [IdempotencyHeader<K>] extends [never]
  ? Params<K>
  : Omit<Params<K>, 'header'> & (RequiredKeysOf<CallerHeader<K>> extends never ? { header?: CallerHeader<K> } : { header: CallerHeader<K> });

type ParamsOption<K extends OperationId> = RequiredKeysOf<CallerParams<K>> extends never ? { params?: CallerParams<K> } : { params: CallerParams<K> };
type SpecBody<K extends OperationId> = operations[K] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
/** The JSON request body of an operation, or never. A property with a spec default is optional (the contract types it so). */
export type RequestBody<K extends OperationId> = [SpecBody<K>] extends [never] ? never : SpecBody<K>;
type BodyOption<K extends OperationId> = [RequestBody<K>] extends [never] ? { body?: never } : { body: RequestBody<K> };

/** What an operation method takes: openapi-fetch's `{ params: { path, query, header }, body }`. */
export type OperationInput<K extends OperationId> = ParamsOption<K> & BodyOption<K>;
/** True when the input may be omitted altogether. */
export type InputOptional<K extends OperationId> = RequiredKeysOf<OperationInput<K>> extends never ? true : false;

type Responses<K extends OperationId> = operations[K]['responses'];
/** The success body of an operation (its `successStatus` response). */
export type OperationResult<K extends OperationId> = Facts<K>['successStatus'] extends keyof Responses<K>
  ? Responses<K>[Facts<K>['successStatus']] extends { content: { 'application/json': infer R } }
    ? R
    : undefined
  : never;

// ------------------------------------------------------------------ runtime

/** What the client needs of an operation at run time (generated from the contract's table at build time). */
export interface RuntimeFacts {
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
  /** The OpenAPI path template. */
  path: string;
  /** GET, or a POST marked x-read-only: safe to repeat. */
  readOnly: boolean;
  /** Read-only and not marked `x-automatic-retry: false` in the spec: the only kind the transport ever retries. */
  automaticRetry: boolean;
  /** The operation's security is not empty: the Bearer header is sent (verify and the open routes get none). */
  credential: boolean;
  /** The header parameter carrying the Idempotency-Key (x-missing-code IDEMPOTENCY_KEY_REQUIRED), if any. */
  idempotencyHeader: string | null;
  /** x-dpop-htm: the method a DPoP proof names (agent operations). */
  dpopHtm: string | null;
  /** Cursor pagination: an `after` query parameter (the last item's id; next_cursor in the result). */
  paginated: boolean;
}

export interface OperationRuntime extends RuntimeFacts {
  operationId: OperationId;
}

const table = runtimeTable as Record<string, RuntimeFacts>;
/** Every operation id, in spec order. */
export const operationIds = Object.keys(table) as OperationId[];

export function factsOf(operationId: OperationId): OperationRuntime {
  return { operationId, ...table[operationId]! };
}

/** Whether a string is a catalog code. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCodeFacts, value);
}

/** The catalog marks the code x-outcome-unknown: after a mutation the outcome may be unknown. */
export function isOutcomeUnknown(code: ErrorCode): boolean {
  return errorCodeFacts[code][1] === 1;
}

/** Every catalog code, in catalog order. */
export const errorCodes = Object.keys(errorCodeFacts) as ErrorCode[];

/** The HTTP status the catalog answers a code with. */
export function errorStatus(code: ErrorCode): number {
  return errorCodeFacts[code][0];
}

interface Route {
  operation: OperationRuntime;
  pattern: RegExp;
  params: number;
}
let routes: Route[] | undefined;

/** The operation a method and path (relative to the base URL) hit; literal segments win over parameters. */
export function matchOperation(method: string, pathname: string): OperationRuntime | undefined {
  routes ??= operationIds
    .map((id) => factsOf(id))
    .map((operation) => ({
      operation,
      params: (operation.path.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => a.params - b.params);
  const lower = method.toLowerCase();
  return routes.find((r) => r.operation.method === lower && r.pattern.test(pathname))?.operation;
}
