import { describe, expect, it } from 'vitest';
import { errorCatalog, isErrorReason, isJsonContentType, refusal, refusalIssue, refusalRules, type ErrorCode } from '../src/index.js';

describe('the refusal rules', () => {
  it('have unique ids, each with its condition, a code of the catalog and, where it carries one, a reason the catalog lists', () => {
    const ids = refusalRules.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of refusalRules) {
      expect(rule.condition, rule.id).not.toBe('');
      expect(Object.hasOwn(errorCatalog, rule.code), rule.id).toBe(true);
      // A code whose catalog entry requires a reason cannot be sent without one.
      const needsReason = (errorCatalog[rule.code].fields as readonly string[]).includes('reason');
      if ('reason' in rule) expect(isErrorReason(rule.code, rule.reason), rule.id).toBe(true);
      else expect(needsReason, rule.id).toBe(false);
    }
  });

  it('fill in their placeholders, and answer with the header’s own code only where the rule says so', () => {
    expect(refusal('method-not-allowed', { method: 'PATCH' })).toEqual({ code: 'METHOD_NOT_ALLOWED', message: 'The path does not accept PATCH.' });
    expect(refusal('header-missing', { name: 'Idempotency-Key' }, 'IDEMPOTENCY_KEY_REQUIRED')).toEqual({ code: 'IDEMPOTENCY_KEY_REQUIRED', message: 'The Idempotency-Key header is required.' });
    expect(refusal('header-invalid-own-code', { name: 'dpop' }, null).code).toBe<ErrorCode>('BAD_REQUEST');
    expect(() => refusal('body-invalid', {}, 'DPOP_INVALID')).toThrow(/own code/);
    expect(refusal('request-read-timeout')).toMatchObject({ code: 'BAD_REQUEST', reason: 'request_read_timeout' });
    expect(refusal('usage-read-value', { name: 'days', value: 9, accepts: 'days=7 or days=30 and an optional service' }).message).toBe(
      'The usage read asked for days=9; it accepts only days=7 or days=30 and an optional service.',
    );
    expect(refusalIssue('query-repeated', 'query.limit')).toEqual({ location: 'query.limit', message: 'is repeated' });
    expect(() => refusalIssue('body-invalid', 'body')).toThrow(/no errors\[\] message/);
  });

  it('take a JSON body as application/json, with at most a UTF-8 charset', () => {
    for (const type of ['application/json', 'Application/JSON', ' application/json ; charset=UTF-8 ']) expect(isJsonContentType(type), type).toBe(true);
    for (const type of ['text/plain', 'application/json; charset=latin1', 'application/problem+json', 'application/json, text/plain', '', undefined]) expect(isJsonContentType(type), String(type)).toBe(false);
  });
});
