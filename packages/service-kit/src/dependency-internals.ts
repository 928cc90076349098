/**
 * Every place this package leans on a dependency's behaviour that its public API does not promise,
 * in one list. No module loads another package's private files; what is here reads things the
 * public API hands over (the middleware array, `req.openapi`) in a shape the documentation does
 * not fix. Each entry says what it leans on, what an upgrade would break, and the upstream change
 * that would let it go. `test/dependency-internals.test.ts` fails when an installed version
 * differs from the one these were written for: read the entries again, then update the version.
 *
 * express-openapi-validator (written for 5.6.2):
 *
 * 1. Its `middleware()` array names its steps (`metadataMiddleware`, `responseMiddleware`);
 *    `validatorStep` picks two by name, and throws at start-up when one is missing.
 * 2. Its metadata step leaves on `req.openapi` what the response step reads: the documented
 *    `expressRoute`, `openApiRoute`, `pathParams` and `schema`, and the undocumented `serial` and
 *    `_responseSchema`. `response-check-after-match.ts` remembers that per operation and sets it
 *    again (`rememberedMetadata`, `restoreMetadata`) instead of walking every route on every
 *    request. An upgrade that reads more of the request there would fail the response tests of
 *    `test/service-app.test.ts`, which check refusals of broken answers after a remembered match.
 *
 *    Waits for: the route walk compiling every route's matcher on every request,
 *    https://github.com/cdimascio/express-openapi-validator/pull/1217 ("perf: cache route
 *    matchers", open), and a way to validate a response for an operation already matched.
 *
 * 3. One built `middleware()` array serves every app of a process built from the same document and
 *    options (`validator-on-first-use.ts`): its middleware keeps no state of an app or a request
 *    between requests, only what it compiled from its document (Ajv instances, validators per route,
 *    content type and status). An upgrade that kept per-app or per-request state there would mix
 *    two apps' requests; `test/validator-on-first-use.test.ts` serves two apps from one validator.
 *
 *    Waits for: nothing upstream; a documented promise that a middleware may be shared would let
 *    this entry go.
 *
 * What the project owns instead of patching the validator: request validation compiled per
 * operation (`compiled-request-validation.ts`, its own Ajv), and when the validator is built
 * (`validator-on-first-use.ts`). Building it costs start-up work its options cannot skip:
 * compiling the OpenAPI meta-schema with `validateApiSpec: false`, and compiling each `$ref` it
 * meets to read the schema back while preparing the document. Waits for:
 * https://github.com/cdimascio/express-openapi-validator/issues/910 ("Use Precompiled
 * Validator?", open) or https://github.com/cdimascio/express-openapi-validator/pull/833 ("opt-in
 * lazy loading of specs", open).
 *
 * Express (not pinned): `express-prototypes.ts` relies only on Node's public server options; it
 * leans on Express setting the app's prototypes per request, so an Express change there would
 * make requests slower, not wrong (its own test checks the prototypes Express finds).
 */
import type { Request, RequestHandler } from 'express';

/** The versions the entries above were written for and checked against. */
export const WRITTEN_FOR = { 'express-openapi-validator': '5.6.2' } as const;

/** One step of express-openapi-validator's `middleware()` array, by its function name (entry 1). */
export function validatorStep(steps: readonly RequestHandler[], name: 'metadataMiddleware' | 'responseMiddleware'): RequestHandler {
  const step = steps.find((handler) => handler.name === name);
  if (!step) throw new Error(`express-openapi-validator has no ${name}: see packages/service-kit/src/dependency-internals.ts`);
  return step;
}

/** What the validator's metadata step puts on the request, the path values aside (entry 2). */
export type RememberedMetadata = Record<string, unknown>;

type WithMetadata = Request & { openapi?: { pathParams?: Record<string, string> } & Record<string, unknown> };

/** The metadata the validator's step left on `req` for its operation, without the request's own path values. */
export function rememberedMetadata(req: Request): RememberedMetadata | undefined {
  const openapi = (req as WithMetadata).openapi;
  if (!openapi) return undefined;
  const { pathParams: _own, ...rest } = openapi;
  return rest;
}

/** Leaves `req` as the validator's metadata step would for this operation and these path values. */
export function restoreMetadata(req: Request, remembered: RememberedMetadata, pathParams: Record<string, string>): void {
  (req as WithMetadata).openapi = { ...remembered, pathParams };
  req.params = pathParams;
}
