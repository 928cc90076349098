/**
 * The Database's transaction options at compile time: only PostgreSQL's three isolation levels
 * compile. transactions.test.ts proves each one reaches the server and that the Database refuses
 * any other at run time.
 */
import { assertType, describe, expectTypeOf, it } from 'vitest';
import type { Database, IsolationLevel, Queryable } from '../src/index.js';

declare const db: Database;
const work = async (_tx: Queryable) => 1;

describe('transaction isolation', () => {
  it('takes the three levels, and no option at all', () => {
    expectTypeOf<IsolationLevel>().toEqualTypeOf<'read committed' | 'repeatable read' | 'serializable'>();
    assertType<Promise<number>>(db.transaction(work));
    assertType<Promise<number>>(db.transaction(work, { isolation: 'serializable' }));
  });

  it('refuses anything else', () => {
    // @ts-expect-error -- not a level
    assertType(db.transaction(work, { isolation: 'chaos' }));
  });
});
