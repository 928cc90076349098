/**
 * express-openapi-validator 5.6 compiles a path-to-regexp matcher for every
 * documented route on every request (`lookupRoute` in its metadata
 * middleware): 6% of the Minds service's CPU on a forwarded read, measured
 * with `BENCH_CPU_PROFILE_DIR` (bench/README). Upstream has the fix open as
 * cdimascio/express-openapi-validator#1217 ("perf: cache route matchers");
 * until it ships, the validator's own copy of `pathToRegexp` is replaced with
 * one that remembers its matchers.
 *
 * Only the validator's call shape is remembered (a string path, options with
 * at most `sensitive` and `strict`), so a matcher is reused only where the
 * result depends on nothing else. The result is never mutated by the validator
 * and its RegExp has no `g` flag, so sharing it is safe. Remove this module
 * when the validator caches its own matchers.
 */
import { createRequire } from 'node:module';

type PathToRegexp = (path: unknown, options?: Record<string, unknown>) => { regexp: RegExp; keys: unknown[] };

const requireFromHere = createRequire(import.meta.url);
const validatorEntry = requireFromHere.resolve('express-openapi-validator');
/** The path-to-regexp module instance the validator itself loads (module exports are shared per resolved file). */
const validatorsPathToRegexp = createRequire(validatorEntry)('path-to-regexp') as { pathToRegexp: PathToRegexp & { remembersMatchers?: true } };

const rememberable = new Set(['sensitive', 'strict']);

export function installRouteMatcherCache(): void {
  const original = validatorsPathToRegexp.pathToRegexp;
  if (original.remembersMatchers) return;
  const matchers = new Map<string, ReturnType<PathToRegexp>>();
  const remembering: PathToRegexp & { remembersMatchers?: true } = (path, options = {}) => {
    if (typeof path !== 'string' || !Object.keys(options).every((key) => rememberable.has(key))) return original(path, options);
    const key = `${options.sensitive ? 1 : 0}${options.strict ? 1 : 0}${path}`;
    let matcher = matchers.get(key);
    if (!matcher) {
      matcher = original(path, options);
      // Routes come from the spec, so the map is bounded by its paths; the guard is for misuse.
      if (matchers.size < 10_000) matchers.set(key, matcher);
    }
    return matcher;
  };
  remembering.remembersMatchers = true;
  validatorsPathToRegexp.pathToRegexp = remembering;
}

/** For the test: the function the validator will call. */
export function validatorPathToRegexp(): PathToRegexp & { remembersMatchers?: true } {
  return validatorsPathToRegexp.pathToRegexp;
}
