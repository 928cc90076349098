/**
 * A handler table typed by the contract, at compile time (DESIGN.md, "The author's loop": "A new
 * operation is a type error that names its missing handler, never a crash at start").
 * handler-table.test.ts proves the loop reads the missing operation's name from the compiler.
 */
import type { ServiceOperationId } from '@gateway-minds/contract';
import type { HandlerTable } from '@gateway-minds/service-kit';
import { assertType, describe, expectTypeOf, it } from 'vitest';

type Minds = HandlerTable<ServiceOperationId<'minds'>>;
declare const complete: Minds;

describe('a handler table typed by the contract', () => {
  it('has one handler for each operation of the service', () => {
    expectTypeOf<keyof Minds>().toEqualTypeOf<ServiceOperationId<'minds'>>();
    assertType<Minds>({ ...complete });
  });

  it('does not compile with an operation left out', () => {
    const { minds_getUsage: _left, ...rest } = complete;
    // @ts-expect-error -- minds_getUsage has no handler.
    assertType<Minds>({ ...rest });
  });

  it('does not compile with a handler for an operation the service does not have', () => {
    // @ts-expect-error -- the minds service has no minds_noSuchOperation.
    assertType<Minds>({ ...complete, minds_noSuchOperation: () => undefined });
  });
});
