/**
 * The /v1 contract as code. Everything exported here is derived from spec/ at
 * build time: import spec facts (paths, operation ids, error codes, limits)
 * from here instead of writing them again.
 *
 * This entry point is small and runs anywhere (Node and browsers). The full
 * documents live in `@gateway-minds/contract/document`.
 */
export type { paths, components, operations, webhooks } from './generated/schema.js';
export { errorCatalog } from './generated/error-catalog.js';
export { operationTable } from './generated/operation-table.js';
/** Per credential kind: its security scheme name and token prefix. */
export { credentialSchemes } from './generated/credential-schemes.js';
/** Path, query, body, header-block and read-deadline limits every route obeys (info.x-gateway-limits). */
export { gatewayLimits } from './generated/gateway-limits.js';
/** What every WWW-Authenticate challenge names: realm and DPoP algorithms (info.x-authentication). */
export { authentication } from './generated/authentication.js';
export type * from './document-types.js';
export type * from './error-types.js';
export type * from './operation-types.js';
export { httpMethods } from './document-types.js';

import { errorCatalog } from './generated/error-catalog.js';
import { operationTable } from './generated/operation-table.js';
import type { components } from './generated/schema.js';

export type ErrorCode = components['schemas']['ErrorCode'];
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
export type OperationId = keyof typeof operationTable;
/** The services the operations belong to: `gateway` and `iam`, answered by the gateway itself, and each forwarded service. */
export type ServiceName = (typeof operationTable)[OperationId]['service'];
/** The operation ids of one service (or several): the ids its handler table must cover, no more and no less. */
export type ServiceOperationId<S extends ServiceName> = { [K in OperationId]: (typeof operationTable)[K]['service'] extends S ? K : never }[OperationId];
export type Schemas = components['schemas'];
/**
 * The `reason`s a code is sent with (its catalog entry's x-reasons); `never` for a code that
 * carries none. Distributes over a union of codes.
 */
export type ErrorReason<C extends ErrorCode = ErrorCode> = C extends ErrorCode ? keyof (typeof errorCatalog)[C]['reasons'] & string : never;

/** Whether the catalog lists `reason` for `code`. */
export function isErrorReason<C extends ErrorCode>(code: C, reason: unknown): reason is ErrorReason<C> {
  return typeof reason === 'string' && Object.hasOwn(errorCatalog[code].reasons, reason);
}

/** Every error code, in catalog order. */
export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];
/** Every operation id, in spec order. */
export const operationIds = Object.keys(operationTable) as OperationId[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCatalog, value);
}

export function isOperationId(value: unknown): value is OperationId {
  return typeof value === 'string' && Object.hasOwn(operationTable, value);
}

/**
 * An operation's path and query as the contract writes them: its path parameters filled in
 * (percent-encoded), and any of its query parameters given in `params` appended as a query string.
 * A path parameter `params` lacks, or a name that is neither a path nor a query parameter of the
 * operation, is an error.
 */
export function operationPath(operationId: OperationId, params: Readonly<Record<string, string>> = {}): string {
  const operation = operationTable[operationId];
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${operationId}: no value for the path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    const parameter = operation.parameters.find((p) => p.name === name && (p.in === 'path' || p.in === 'query'));
    if (!parameter) throw new Error(`${operationId}: ${name} is not one of its path or query parameters`);
    if (parameter.in === 'query') query.append(name, value);
  }
  return query.size > 0 ? `${path}?${query}` : path;
}

/** The anchor of a code's entry on the docs site's error catalog page. */
export function errorDocsUrl(docsBaseUrl: string, code: ErrorCode): string {
  return `${docsBaseUrl.replace(/\/+$/, '')}/errors.html#${code}`;
}
export { byteLimitKeywords, utf8ByteLength } from './byte-limits.js';
export { dereference, pruneUnreachableComponents } from './dereference.js';
export { atPointer, escapeSegment, followRefs, followRefsFrom, inlineRefs, lookupRef, pointerOf, pointerSegments, unescapeSegment, uriFragmentOf } from './json-pointer.js';
export { operationParameters } from './parameters.js';
export { envelopeLocation, illFormedStrings, isWellFormedText, type LocatedIssue } from './request-text.js';
export { isJsonContentType, jsonContentType, refusal, refusalIssue, refusalRule, refusalRules, type Refusal, type RefusalRule, type RefusalRuleId } from './refusals.js';
