/**
 * A request for an operation in parts (path values, query pairs, headers,
 * body), built valid from a fixture and then broken one part at a time by
 * the mutations, and rendered to what goes on the wire.
 */
import type { ErrorCode, OperationId } from '@gateway-minds/contract';
import type { RawRequest } from './client.js';
import type { OperationSpec, ParameterSpec } from './spec.js';
import { jsonText } from './values.js';

/** Valid values for one stack: which credential an operation takes, and its parameters. */
export interface Fixture {
  /** The bearer token a valid caller of this operation sends, or null when it takes none. */
  credential(operation: OperationSpec): string | null;
  /** A valid value of a path parameter (an existing resource where one exists). */
  pathValue(operation: OperationSpec, parameter: ParameterSpec): string;
  /** A valid value of a query parameter, or undefined to leave an optional one out. */
  queryValue(operation: OperationSpec, parameter: ParameterSpec): string | undefined;
  /** A valid value of a header parameter, or undefined to leave an optional one out. `fresh` names a new key. */
  headerValue(operation: OperationSpec, parameter: ParameterSpec, fresh: string): string | undefined;
  /** A body that validates against the operation's request schema. */
  body(operation: OperationSpec): unknown;
}

export interface RequestParts {
  /** Path parameter values, already percent-encoded. */
  path: Record<string, string>;
  /** The query string without `?`, already encoded; '' for none. */
  query: string;
  headers: Record<string, string | string[]>;
  /** undefined: no body. */
  body: string | Buffer | undefined;
  chunked?: boolean;
}

export interface HostileCase {
  operation: OperationId;
  /** What was broken, e.g. `body.pattern`, `query.missing`, `header.invalid`. */
  category: string;
  /** Where, e.g. `/event/content`, `mind`, `Idempotency-Key`. */
  location: string;
  request: RawRequest;
  /** The documented answers; the first is the one expected, any listed is accepted. */
  expected: ErrorCode[];
}

export const encodeQuery = (pairs: readonly (readonly [string, string])[]): string =>
  pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');

/** The valid request of an operation, in parts. `fresh` is a new UUID for Idempotency-Key and the like. */
export function validParts(operation: OperationSpec, fixture: Fixture, fresh: string): RequestParts {
  const path: Record<string, string> = {};
  const query: [string, string][] = [];
  const headers: Record<string, string> = {};
  for (const parameter of operation.parameters) {
    if (parameter.in === 'path') path[parameter.name] = encodeURIComponent(fixture.pathValue(operation, parameter));
    if (parameter.in === 'query') {
      const value = fixture.queryValue(operation, parameter);
      if (value !== undefined) query.push([parameter.name, value]);
    }
    if (parameter.in === 'header') {
      const value = fixture.headerValue(operation, parameter, fresh);
      if (value !== undefined) headers[parameter.name.toLowerCase()] = value;
    }
  }
  const token = fixture.credential(operation);
  if (token) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (operation.body) {
    body = jsonText(fixture.body(operation));
    headers['content-type'] = 'application/json';
  }
  return { path, query: encodeQuery(query), headers, body };
}

export function render(operation: OperationSpec, parts: RequestParts): RawRequest {
  const path = operation.facts.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = parts.path[name];
    if (value === undefined) throw new Error(`${operation.id}: no value for path parameter ${name}`);
    return value;
  });
  return {
    method: operation.method,
    path: parts.query ? `${path}?${parts.query}` : path,
    headers: parts.headers,
    body: parts.body,
    ...(parts.chunked ? { chunked: true } : {}),
  };
}
