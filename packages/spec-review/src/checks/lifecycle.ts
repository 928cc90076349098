/**
 * An operation's lifecycle as oasdiff's deprecation policy reads it: `deprecated`, an `x-sunset` date
 * (YYYY-MM-DD or RFC 3339) and an `x-stability-level` (draft < alpha < beta < stable). Removing a
 * sunset, lowering a stability level, or writing either so it cannot be read breaks the promise
 * consumers plan by.
 */
import { quote, type Change, type Json } from '../model.js';
import { emit } from '../scope.js';

const levels = ['draft', 'alpha', 'beta', 'stable'];

/** draft 0 … stable 3; undefined when absent; -1 when not a known level. */
export function stabilityRank(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' && levels.includes(value) ? levels.indexOf(value) : -1;
}

/** The sunset date (as YYYY-MM-DD), undefined when absent, null when it is not a date. */
export function sunsetDate(value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value !== 'string') return null;
  const match = /^(\d{4}-\d{2}-\d{2})(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.exec(value);
  return match && !Number.isNaN(Date.parse(match[1]!)) ? match[1]! : null;
}

export const invalidSunset = (value: unknown) => sunsetDate(value) === null;

/** Whether an operation removed from the base was allowed to go: deprecated, and its sunset (if any) passed. */
export function removalCheck(operation: Json, today = new Date().toISOString().slice(0, 10)): { id: string; message: string } {
  const stability = stabilityRank(operation['x-stability-level']);
  if (stability === 0 || stability === 1) return { id: 'api-removed-unstable', message: `operation removed (it was ${String(operation['x-stability-level'])})` };
  if (operation.deprecated !== true) return { id: 'api-removed', message: 'operation removed without being deprecated first' };
  const sunset = sunsetDate(operation['x-sunset']);
  if (sunset === null) return { id: 'api-sunset-invalid', message: `deprecated operation removed; its x-sunset ${quote(operation['x-sunset'])} is not a date` };
  if (sunset !== undefined && sunset > today) return { id: 'api-removed-before-sunset', message: `deprecated operation removed before its sunset ${sunset}` };
  return { id: 'api-removed-with-deprecation', message: `deprecated operation removed${sunset ? ` after its sunset ${sunset}` : ''}` };
}

export function compareLifecycle(b: Json, h: Json, out: Change[], pointer: string): void {
  if (b.deprecated !== true && h.deprecated === true) emit(out, 'endpoint-deprecated', 'operation', 'deprecated', `${pointer}/deprecated`);
  if (b.deprecated === true && h.deprecated !== true) emit(out, 'endpoint-reactivated', 'operation', 'no longer deprecated', pointer);
  const bSunset = b['x-sunset'];
  const hSunset = h['x-sunset'];
  if (String(bSunset) !== String(hSunset)) {
    if (invalidSunset(hSunset) || invalidSunset(bSunset)) emit(out, 'api-sunset-invalid', 'x-sunset', `x-sunset ${quote(invalidSunset(hSunset) ? hSunset : bSunset)} is not a date (YYYY-MM-DD)`, `${pointer}/x-sunset`, invalidSunset(hSunset) ? 'head' : 'base');
    else if (hSunset === undefined && h.deprecated === true) emit(out, 'api-sunset-deleted', 'x-sunset', `sunset ${quote(bSunset)} removed from a deprecated operation`, pointer);
    else if (hSunset !== undefined) emit(out, 'api-sunset-changed', 'x-sunset', `sunset ${quote(bSunset)} → ${quote(hSunset)}`, `${pointer}/x-sunset`);
  }
  const bStability = stabilityRank(b['x-stability-level']);
  const hStability = stabilityRank(h['x-stability-level']);
  if (String(b['x-stability-level']) !== String(h['x-stability-level'])) {
    if (bStability === -1 || hStability === -1) emit(out, 'api-stability-invalid', 'x-stability-level', `x-stability-level ${quote(hStability === -1 ? h['x-stability-level'] : b['x-stability-level'])} is not draft, alpha, beta or stable`, `${pointer}/x-stability-level`, hStability === -1 ? 'head' : 'base');
    else if (bStability !== undefined && hStability !== undefined && hStability < bStability) emit(out, 'api-stability-decreased', 'x-stability-level', `x-stability-level lowered ${quote(b['x-stability-level'])} → ${quote(h['x-stability-level'])}`, `${pointer}/x-stability-level`);
  }
}
