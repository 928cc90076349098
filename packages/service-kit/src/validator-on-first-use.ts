/**
 * express-openapi-validator's middleware, built on the first request that needs it.
 *
 * Built, the validator loads and prepares its document at once, whatever its options: it compiles
 * the OpenAPI meta-schema even with `validateApiSpec: false`, and compiles each `$ref` it meets to
 * read the schema back (dependency-internals.ts names the upstream issues): about 0.4 s of CPU
 * per service on this contract, none of it needed to start. A request the compiled validators
 * accept needs the validator only when responses are validated; so a service in production pays
 * that on its first refused request, and one that validates its responses (`npm start`) on its
 * first request, instead of while every process of the stack starts at once.
 */
import type { RequestHandler } from 'express';
import { validatorStep } from './dependency-internals.js';
import { middlewareChain } from './middleware-chain.js';

export interface ValidatorOnFirstUse {
  /** Every step of the validator, in its order. */
  whole: RequestHandler;
  /** One step of it, by name (dependency-internals.ts). */
  step(name: Parameters<typeof validatorStep>[1]): RequestHandler;
  /** Whether it has been built (tests read this). */
  readonly built: boolean;
}

/** `build` calls express-openapi-validator's `middleware()`. */
export function validatorOnFirstUse(build: () => RequestHandler[]): ValidatorOnFirstUse {
  let steps: RequestHandler[] | undefined;
  let whole: RequestHandler | undefined;
  const built = () => (steps ??= build());
  return {
    whole: (req, res, next) => (whole ??= middlewareChain(...built()))(req, res, next),
    step(name) {
      let step: RequestHandler | undefined;
      return (req, res, next) => (step ??= validatorStep(built(), name))(req, res, next);
    },
    get built() {
      return steps !== undefined;
    },
  };
}
