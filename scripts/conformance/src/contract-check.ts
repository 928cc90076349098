/** Validates answers against the contract: the operation's declared status and its response schema. */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { byteLimitKeywords, dereference, isErrorCode, isErrorReason, operationTable, type OpenApiDocument, type OperationId } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import type { Answer } from './http.js';

const dereferenced = dereference(openapiDocument as OpenApiDocument);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
for (const keyword of byteLimitKeywords) ajv.addKeyword({ ...keyword });
const cache = new Map<string, ValidateFunction>();

/** Problems with an answer, [] when it is what the contract declares for that operation and status. */
export function contractProblems(operationId: OperationId, answer: Answer): string[] {
  const facts = operationTable[operationId];
  const response = dereferenced.paths[facts.path]?.[facts.method]?.responses[String(answer.status)];
  if (!response) return [`${operationId} does not declare status ${answer.status}`];
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return [];
  const key = `${operationId} ${answer.status}`;
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    cache.set(key, validate);
  }
  if (!validate(answer.body)) return (validate.errors ?? []).map((e) => `${key}: ${e.instancePath} ${e.message}`);
  // The schema admits any snake_case reason; the catalog (ErrorCode.yaml, x-reasons) names the ones each code is sent with.
  const error = (answer.body as { error?: { code?: unknown; reason?: unknown } } | null)?.error;
  if (error?.reason !== undefined && isErrorCode(error.code) && !isErrorReason(error.code, error.reason)) {
    return [`${key}: ${error.code} sent with reason ${String(error.reason)}, which the catalog does not list for it`];
  }
  return [];
}
