/**
 * The error helper sends only what the catalog says a code carries (ErrorCode.yaml): its required
 * fields, and a `reason` only from the code's x-reasons (DECISIONS "Error reasons").
 */
import { describe, expect, it } from 'vitest';
import { ServiceError, envelopeOf } from '../src/errors.js';

describe('ServiceError and the catalog reasons', () => {
  it('sends a listed reason in the envelope', () => {
    const envelope = envelopeOf(new ServiceError('NOT_FOUND', 'No such Mind.', { reason: 'mind_not_found' }), 'req_01JD3M8Q4Z9X7V6TPQVGXFSXFT', 'http://docs.test');
    expect(envelope.error).toMatchObject({ code: 'NOT_FOUND', reason: 'mind_not_found' });
  });

  it('refuses, at the throw site, a reason the catalog does not list for the code', () => {
    // The compiler refuses it first (errors.test-d.ts): `generation_mismatch` belongs to MIND_NOT_READY.
    expect(() => new ServiceError('NOT_FOUND', 'x', { reason: 'generation_mismatch' as never })).toThrow(/NOT_FOUND is never sent with reason generation_mismatch/);
  });

  it('refuses a reason on a code that lists none, even one known only at run time', () => {
    const fromElsewhere: string = 'anything';
    expect(() => new ServiceError('ROUTE_NOT_FOUND', 'x', { reason: fromElsewhere as never })).toThrow(/ROUTE_NOT_FOUND is never sent with reason anything/);
  });
});
