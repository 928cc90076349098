/**
 * The error helper's guarantee at compile time: a reason the catalog does not list for a code
 * (ErrorCode.yaml, x-reasons) does not compile at the throw site. errors.test.ts proves the
 * constructor refuses it at run time too.
 */
import { assertType, describe, expectTypeOf, it } from 'vitest';
import { ServiceError, type ServiceErrorDetails } from '../src/errors.js';

describe('ServiceError and the catalog reasons', () => {
  it('takes a reason the catalog lists for the code', () => {
    assertType(new ServiceError('NOT_FOUND', 'No such Mind.', { reason: 'mind_not_found' }));
    expectTypeOf<'mind_not_found'>().toExtend<NonNullable<ServiceErrorDetails<'NOT_FOUND'>['reason']>>();
  });

  it('refuses, at the throw site, a reason the catalog does not list for the code', () => {
    // @ts-expect-error -- `generation_mismatch` belongs to MIND_NOT_READY, never to NOT_FOUND.
    assertType(new ServiceError('NOT_FOUND', 'x', { reason: 'generation_mismatch' }));
    expectTypeOf<'generation_mismatch'>().not.toExtend<NonNullable<ServiceErrorDetails<'NOT_FOUND'>['reason']>>();
  });
});
