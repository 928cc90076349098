/**
 * Response validation for a request the contract pipeline has already matched, without
 * express-openapi-validator's walk over the document's routes.
 *
 * The validator's response check reads `req.openapi`, which its metadata middleware sets on every
 * request by walking every route of the document with path-to-regexp, behind a promise hop. A
 * profile of the Minds service run as `npm start` runs it (responses validated) put that walk at
 * about 5% of the process on a forwarded getMind, more than Ajv's own check of the body.
 *
 * What the metadata says of one operation (its route, its request and response schemas, the
 * document's serial) is the same on every request: it is taken from the validator's own middleware
 * on the operation's first request and set from memory after that, with the request's own path
 * parameters. The response check that runs is the validator's, unchanged.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { rememberedMetadata, restoreMetadata, type RememberedMetadata } from './dependency-internals.js';

export type ResponseCheckAfterMatch = (req: Request, res: Response, next: NextFunction, operationId: string, pathParams: Record<string, string>) => void;

/**
 * `metadata` and `responseCheck` are the validator's own `metadataMiddleware` and
 * `responseMiddleware` (dependency-internals.ts says what this leans on). `counts` says how many
 * requests took their metadata from memory and how many from the validator's walk (tests read these).
 */
export function responseCheckAfterMatch(metadata: RequestHandler, responseCheck: RequestHandler): ResponseCheckAfterMatch & { counts: { remembered: number; walked: number } } {
  const known = new Map<string, RememberedMetadata>();
  const counts = { remembered: 0, walked: 0 };
  const check: ResponseCheckAfterMatch = (req, res, next, operationId, pathParams) => {
    const remembered = known.get(operationId);
    if (remembered) {
      counts.remembered++;
      restoreMetadata(req, remembered, pathParams);
      return void responseCheck(req, res, next);
    }
    counts.walked++;
    void metadata(req, res, (error?: unknown) => {
      if (error) return next(error);
      const found = rememberedMetadata(req);
      if (found) known.set(operationId, found);
      return void responseCheck(req, res, next);
    });
  };
  return Object.assign(check, { counts });
}
