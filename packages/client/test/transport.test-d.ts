/**
 * The client's guarantees at compile time: an Idempotency-Key is an option only of the operations
 * that take one, and hasCode() narrows `reason` to that code's catalog reasons (ErrorCode.yaml,
 * x-reasons). transport.test.ts proves what reaches the wire.
 */
import { assertType, describe, expectTypeOf, it } from 'vitest';
import { type ApiError, createClient } from '../src/index.js';

// Type tests are compiled, never run: the client is only declared.
declare const client: ReturnType<typeof createClient>;
declare const error: ApiError;
const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';
const getMind = { params: { path: { mind_id: mindId } } };
const key = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';

describe('Idempotency-Key', () => {
  it('is an option of the operations that take one', () => {
    assertType(client.minds_resumeMind({ params: { path: { mind_id: mindId } }, body: { expected_generation: 1 } }, { idempotencyKey: key }));
  });

  it('is not an option of a read: passing one does not compile', () => {
    // @ts-expect-error -- minds_getMind takes no Idempotency-Key.
    assertType(client.minds_getMind(getMind, { idempotencyKey: key }));
  });
});

describe('typed errors', () => {
  it("hasCode() narrows `reason` to that code's catalog reasons", () => {
    if (!error.hasCode('NOT_FOUND')) return;
    expectTypeOf(error.reason).toEqualTypeOf<'mind_not_found' | 'not_admitted' | 'attachment_not_found' | 'group_not_found' | 'member_not_found' | 'agent_not_found' | 'memory_not_found' | undefined>();
    // @ts-expect-error -- `generation_mismatch` is MIND_NOT_READY's reason, never NOT_FOUND's: comparing to it does not compile.
    assertType<boolean>(error.reason === 'generation_mismatch');
  });
});
