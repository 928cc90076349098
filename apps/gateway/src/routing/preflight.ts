/**
 * The gateway's own request rules, checked on the raw URL before anything
 * else: path and query length (8192 characters each) and forbidden path
 * characters or encodings (dot segments, encoded slashes or backslashes,
 * control characters, empty segments).
 */
import type { RequestHandler } from 'express';
import { gatewayLimits } from '@gateway-minds/contract';
import { ServiceError } from '@gateway-minds/service-kit';

/** The interface's limits table ("Gateway path length", "Query string length"), from info.x-gateway-limits. */
export const MAX_PATH_LENGTH = gatewayLimits.maxPathLength;
export const MAX_QUERY_LENGTH = gatewayLimits.maxQueryLength;

const forbiddenInPath = [
  /%2f|%5c|\\/i, // encoded slash or backslash, or a raw backslash
  /(^|\/)(\.|%2e){1,2}(\/|$)/i, // dot segments, raw or encoded
  /[\x00-\x1f\x7f]|%[01][0-9a-f]|%7f/i, // control characters, raw or encoded
  /\/\//, // empty segments: not canonical
];

export function pathIsForbidden(path: string): boolean {
  return forbiddenInPath.some((pattern) => pattern.test(path));
}

export const gatewayPreflight: RequestHandler = (req, _res, next) => {
  const raw = req.originalUrl;
  const queryAt = raw.indexOf('?');
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt);
  const query = queryAt === -1 ? '' : raw.slice(queryAt + 1);
  if (path.length > MAX_PATH_LENGTH) return next(new ServiceError('PATH_INVALID', `The path exceeds ${MAX_PATH_LENGTH} characters.`));
  if (query.length > MAX_QUERY_LENGTH) return next(new ServiceError('QUERY_TOO_LONG', `The query string exceeds ${MAX_QUERY_LENGTH} characters.`));
  if (pathIsForbidden(path)) return next(new ServiceError('PATH_INVALID', 'The path contains forbidden characters or encodings.'));
  next();
};
