/**
 * express-openapi-validator's middleware, built on the first request that needs it, and once per
 * process for the same document and options.
 *
 * Built, the validator loads and prepares its document at once, whatever its options: it compiles
 * the OpenAPI meta-schema even with `validateApiSpec: false`, and compiles each `$ref` it meets to
 * read the schema back (dependency-internals.ts names the upstream issues): about 0.4 s of CPU
 * per service on this contract, none of it needed to start. A request the compiled validators
 * accept never needs it (answers are checked by compiled-response-validation.ts); so a service
 * pays that on its first refused request, instead of while every process of the stack starts.
 *
 * Apps that one process builds from the same document and options (a stack started again in the
 * same process, every stack a test suite starts) take the validator the first of them built, and
 * with it what it has compiled: its only state is caches of what the document says; a request's
 * own state lives on the request.
 */
import type { RequestHandler } from 'express';
import { middlewareChain } from './middleware-chain.js';
import { sharedInProcess } from './shared-in-process.js';

export interface ValidatorOnFirstUse {
  /** Every step of the validator, in its order. */
  whole: RequestHandler;
  /** Whether this app has needed it yet (tests read this). */
  readonly built: boolean;
  /** Whether this app took the validator another app of the process built (tests read this). */
  readonly shared: boolean;
}

/** Validators built in this process, by what they were built from. */
const builtValidators = sharedInProcess<RequestHandler[]>(8);

/**
 * `build` calls express-openapi-validator's `middleware()` with `options`; `options` (the document
 * and every setting, as JSON) says which apps may share what it builds.
 */
export function validatorOnFirstUse(options: object, build: () => RequestHandler[]): ValidatorOnFirstUse {
  let steps: RequestHandler[] | undefined;
  let whole: RequestHandler | undefined;
  let shared = false;
  const built = () => {
    if (!steps) ({ value: steps, shared } = builtValidators(options, build));
    return steps;
  };
  return {
    whole: (req, res, next) => (whole ??= middlewareChain(...built()))(req, res, next),
    get built() {
      return steps !== undefined;
    },
    get shared() {
      return shared;
    },
  };
}
