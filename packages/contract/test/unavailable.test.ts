/**
 * The unavailability codes a lost database produces are declared where they can occur, so the
 * gateway relays them (its relay refuses an undeclared status as BAD_GATEWAY) and response
 * validation accepts them. Interface, "Errors": `MINDS_UNAVAILABLE` "Minds unavailable; outcome may
 * be unknown", `AUTH_UNAVAILABLE` "credential verification temporarily unavailable";
 * spec/DECISIONS.md, "A database lost during a request".
 */
import { describe, expect, it } from 'vitest';
import { errorCatalog, operationTable, type OperationFacts } from '../src/index.js';
import { dereferenced, operationsOf } from './support/spec.js';

const operations = Object.values(operationTable) as OperationFacts[];
const examplesOf = (operationId: string, status: string) =>
  Object.keys(operationsOf(dereferenced).find((o) => o.operation.operationId === operationId)!.operation.responses[status]?.content?.['application/json']?.examples ?? {});

describe('unavailability codes', () => {
  it('MINDS_UNAVAILABLE says the outcome may be unknown', () => {
    expect(errorCatalog.MINDS_UNAVAILABLE).toMatchObject({ status: 503, outcomeUnknown: true });
  });

  it.each(operations.filter((o) => o.service === 'minds').map((o) => [o.operationId] as const))('%s declares 503 with a MINDS_UNAVAILABLE example', (operationId) => {
    expect(operationTable[operationId as keyof typeof operationTable].errorStatuses).toContain(503);
    expect(examplesOf(operationId, '503')).toContain('MINDS_UNAVAILABLE');
  });

  it.each(operations.filter((o) => o.security.length > 0 || o.operationId === operationTable.iam_verifyCredential.operationId).map((o) => [o.operationId] as const))(
    '%s reads the credential store and declares 503 with an AUTH_UNAVAILABLE example',
    (operationId) => {
      expect(examplesOf(operationId, '503')).toContain('AUTH_UNAVAILABLE');
    },
  );
});
