/**
 * A request each operation's contract accepts, built from the spec's own
 * examples (parameters, the first named request body, a credential of an
 * accepted kind), so that Prism, which validates requests, answers it with the
 * example selected rather than a validation error.
 */
import { credentialSchemes, operationParameters, operationTable, type OpenApiParameter, type OperationId } from '@gateway-minds/contract';
import { dereferenced } from './spec-check.js';

export interface ContractRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function exampleFor(parameter: OpenApiParameter): unknown {
  const p = parameter as OpenApiParameter & { example?: unknown; examples?: Record<string, { value?: unknown }> };
  const schema = parameter.schema ?? {};
  const value = [p.example, Object.values(p.examples ?? {})[0]?.value, (schema.examples as unknown[] | undefined)?.[0], schema.example, schema.default, (schema.enum as unknown[] | undefined)?.[0], schema.const].find((c) => c !== undefined);
  if (value === undefined) throw new Error(`parameter ${parameter.in} ${parameter.name} has no example`);
  return value;
}

export function contractRequest(id: OperationId): ContractRequest {
  const facts = operationTable[id];
  const item = dereferenced.paths[facts.path]!;
  const operation = item[facts.method]!;
  const parameters = operationParameters(item, operation);
  let path: string = facts.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of parameters.filter((p) => p.required)) {
    const value = String(exampleFor(parameter));
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(value));
    else if (parameter.in === 'query') query.set(parameter.name, value);
    else if (parameter.in === 'header') headers[parameter.name] = value;
  }
  const requirement = facts.security[0];
  if (requirement) {
    const kind = Object.values(credentialSchemes).find((c) => c.scheme === requirement.scheme)!;
    headers.Authorization = `Bearer ${kind.tokenPrefix}mock`;
  }
  const media = operation.requestBody?.content?.['application/json'];
  const example = media ? Object.values(media.examples ?? {})[0] : undefined;
  if (media && !example) throw new Error(`${id}: no named request example`);
  if (example) headers['Content-Type'] = 'application/json';
  return { method: facts.method.toUpperCase(), path: query.size ? `${path}?${query}` : path, headers, ...(example ? { body: JSON.stringify(example.value) } : {}) };
}
