import { describe, expect, it } from 'vitest';
import '../src/service-app.js';
import { validatorPathToRegexp } from '../src/route-matcher-cache.js';

describe("the validator's route matcher cache", () => {
  const pathToRegexp = validatorPathToRegexp();

  it('is installed by loading the service app', () => {
    expect(pathToRegexp.remembersMatchers).toBe(true);
  });

  it('compiles a route once per option set and matches as before', () => {
    const first = pathToRegexp('/v1/minds/services/:mind_id', { sensitive: false, strict: false });
    expect(pathToRegexp('/v1/minds/services/:mind_id', { sensitive: false, strict: false })).toBe(first);
    expect(first.regexp.exec('/v1/minds/services/abc')?.[1]).toBe('abc');
    expect(first.regexp.exec('/v1/minds/services/def')?.[1]).toBe('def');
    expect(first.regexp.exec('/V1/MINDS/services/abc')).not.toBeNull();

    const sensitive = pathToRegexp('/v1/minds/services/:mind_id', { sensitive: true, strict: false });
    expect(sensitive).not.toBe(first);
    expect(sensitive.regexp.exec('/V1/MINDS/services/abc')).toBeNull();
  });

  it('passes other call shapes through uncached', () => {
    const a = pathToRegexp('/a/:b', { end: false });
    expect(pathToRegexp('/a/:b', { end: false })).not.toBe(a);
    expect(a.regexp.exec('/a/x/y')?.[1]).toBe('x');
  });
});
