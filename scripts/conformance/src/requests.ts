/**
 * A valid request for any operation, built from the contract: path parameters
 * and required query parameters filled with well-formed values, required
 * headers present, the body taken from the operation's first request example.
 * Authentication is decided before validation, so these requests let a test
 * see exactly which credential check answers.
 */
import { randomUUID } from 'node:crypto';
import { followRefs, operationTable, type OperationId } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';

type Examples = Record<string, { value?: unknown; $ref?: string }>;

function firstRequestExample(operationId: OperationId): unknown {
  const facts = operationTable[operationId];
  const examples = openapiDocument.paths[facts.path]?.[facts.method]?.requestBody?.content?.['application/json']?.examples as Examples | undefined;
  const first = examples ? Object.values(examples)[0] : undefined;
  if (!first) return undefined;
  return followRefs(openapiDocument, first).value;
}

const ulid = () => '01JD3M8Q4Z9X7V6T5S4R3P2N1M';
const sample: Record<string, () => string> = {
  mind_id: () => randomUUID(),
  storage_id: () => randomUUID(),
  attachment_id: () => `mat_${ulid()}`,
  group_id: () => `agp_${ulid()}`,
  agent_id: () => `a_${ulid()}`,
  mind: () => randomUUID(),
  from: () => new Date(Date.now() - 86_400_000).toISOString(),
  to: () => new Date().toISOString(),
};

export interface BuiltRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

export function requestFor(operationId: OperationId, overrides: Record<string, string> = {}): BuiltRequest {
  const facts = operationTable[operationId];
  let path: string = facts.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of facts.parameters) {
    const value = overrides[parameter.name] ?? sample[parameter.name]?.();
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(value ?? 'x'));
    else if (parameter.in === 'query' && (parameter.required || overrides[parameter.name]) && value) query.set(parameter.name, value);
    else if (parameter.in === 'header' && parameter.required) {
      headers[parameter.name.toLowerCase()] = overrides[parameter.name] ?? (parameter.name.toLowerCase() === 'idempotency-key' ? randomUUID() : 'f'.repeat(64));
    }
  }
  const body = facts.hasRequestBody ? firstRequestExample(operationId) : undefined;
  return { method: facts.method.toUpperCase(), path: query.size ? `${path}?${query}` : path, headers, body };
}
