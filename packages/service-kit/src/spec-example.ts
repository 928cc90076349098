/**
 * The answer a scaffolded handler gives until it is written: the first named example of the
 * operation's success response, as the mocks answer it. It is valid against the contract by
 * construction (the contract's tests check every example), so the stack serves a new operation the
 * moment its stub is bound, and response validation holds.
 */
import { lookupRef, operationTable, type OpenApiMediaType, type OperationId } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import type { SuccessBodyOf } from './handler-table.js';

export function specExample<Id extends OperationId>(operationId: Id): { status: number; body: SuccessBodyOf<Id> } {
  const facts = operationTable[operationId];
  const operation = openapiDocument.paths[facts.path]?.[facts.method];
  const status = facts.successStatus;
  let response = operation?.responses[String(status)];
  if (response?.$ref) response = lookupRef(openapiDocument, response.$ref) as typeof response;
  const media = response?.content?.['application/json'] as OpenApiMediaType | undefined;
  const first = Object.values(media?.examples ?? {})[0];
  const example = first?.$ref ? (lookupRef(openapiDocument, first.$ref) as { value?: unknown }) : first;
  if (!example || example.value === undefined) throw new Error(`${operationId} has no named example for its ${status} answer`);
  return { status, body: structuredClone(example.value) as SuccessBodyOf<Id> };
}
