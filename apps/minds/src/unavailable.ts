/**
 * A database unavailable during a request (DatabaseUnavailableError from @gateway-minds/db: refused,
 * lost, read-only, shutting down, too many connections) is the
 * catalog's MINDS_UNAVAILABLE (503, "outcome may be unknown"), never INTERNAL_ERROR: the message says
 * whether the outcome is unknown and how to reconcile, as the interface's retry rules ask ("Errors
 * that say outcome may be unknown call for re-reading state, or for retry with the same
 * Idempotency-Key").
 */
import { isDatabaseUnavailable } from '@gateway-minds/db';
import type { OperationFacts } from '@gateway-minds/contract';
import { ServiceError, type RequestContext } from '@gateway-minds/service-kit';
import { replayKeyOf } from './spec.js';

export const DATABASE_UNAVAILABLE_REASON = 'database_unavailable';

/** What the caller should do next, by operation. */
function advice(operation: OperationFacts | undefined): string {
  if (!operation || operation.readOnly) return 'The Minds database is unavailable (unreachable, refusing connections or writes, or lost during this read). Retry the read.';
  const unknown = 'The Minds database is unavailable (unreachable, refusing connections or writes, or lost during this request), so its outcome is unknown: it may or may not have been applied.';
  switch (replayKeyOf(operation)) {
    case 'Idempotency-Key':
      return `${unknown} Read the state again (get or list the Minds), or retry with the same Idempotency-Key and body, which answers with the first result if it was applied.`;
    case 'operationId':
      return `${unknown} Read the state again (list it), or retry with the same operationId and body, which answers with the first result if it was applied.`;
    default:
      return `${unknown} Read the state again (read or search the memory) before repeating it: this write is not replayed by a key.`;
  }
}

/** service-kit's mapError for the Minds app. */
export function mapMindsError(err: unknown, context: RequestContext | undefined): ServiceError | undefined {
  if (!isDatabaseUnavailable(err)) return undefined;
  return new ServiceError('MINDS_UNAVAILABLE', advice(context?.operation), { reason: DATABASE_UNAVAILABLE_REASON });
}
