/**
 * Every place this package leans on a dependency's behaviour that its public API does not promise,
 * in one list. No module loads another package's private files; what is here uses what the public
 * API hands over (the middleware array) in a way the documentation does not promise. Each entry
 * says what it leans on, what an upgrade would break, and the upstream change that would let it go. `test/dependency-internals.test.ts` fails when an installed version
 * differs from the one these were written for: read the entries again, then update the version.
 *
 * express-openapi-validator (written for 5.6.2):
 *
 * 1. One built `middleware()` array serves every app of a process built from the same document and
 *    options (`validator-on-first-use.ts`): its middleware keeps no state of an app or a request
 *    between requests, only what it compiled from its document (Ajv instances, validators per
 *    route and content type). An upgrade that kept per-app or per-request state there would mix
 *    two apps' requests; `test/validator-on-first-use.test.ts` serves two apps from one validator.
 *
 *    Waits for: nothing upstream; a documented promise that a middleware may be shared would let
 *    this entry go.
 *
 * What the project owns instead of patching the validator: request validation compiled per
 * operation (`compiled-request-validation.ts`, its own Ajv), the check of answers
 * (`compiled-response-validation.ts`, its own Ajv), and when the validator is built
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

/** The versions the entries above were written for and checked against. */
export const WRITTEN_FOR = { 'express-openapi-validator': '5.6.2' } as const;
