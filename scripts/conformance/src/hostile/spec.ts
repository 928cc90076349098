/**
 * What the hostile-input generator reads from the contract: every operation's
 * parameters and body schema (dereferenced, path-level parameters merged), its
 * named examples, and validators for the error envelope and each response.
 * Nothing here is retyped: it all comes from @gateway-minds/contract.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {
  byteLimitKeywords,
  dereference,
  errorCatalog,
  operationIds,
  operationParameters,
  operationTable,
  type ErrorCode,
  type JsonSchema,
  type OpenApiDocument,
  type OpenApiParameter,
  type OperationFacts,
  type OperationId,
} from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';

export const dereferenced = dereference(structuredClone(openapiDocument) as OpenApiDocument);

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
  /** x-missing-code, when the parameter is a required header with its own code. */
  missingCode: ErrorCode | null;
  /** x-invalid-code of its schema, when a header's value that fails the schema has its own code (DPOP_INVALID on `dpop`). */
  invalidCode: ErrorCode | null;
}

export interface OperationSpec {
  id: OperationId;
  facts: OperationFacts;
  method: string;
  parameters: ParameterSpec[];
  body: JsonSchema | undefined;
  /** The request body's named examples, in spec order. */
  examples: unknown[];
}

function specOf(id: OperationId): OperationSpec {
  const facts = operationTable[id] as OperationFacts;
  const item = dereferenced.paths[facts.path];
  const operation = item?.[facts.method];
  if (!item || !operation) throw new Error(`${id}: not in the document`);
  const declared: OpenApiParameter[] = operationParameters(item, operation);
  const parameters = declared
    .filter((p) => p.in !== 'cookie')
    .map((p) => ({
      name: p.name,
      in: p.in as ParameterSpec['in'],
      required: p.required === true,
      schema: p.schema ?? {},
      missingCode: (p['x-missing-code'] as ErrorCode | undefined) ?? null,
      invalidCode: ((p.schema as Record<string, unknown> | undefined)?.['x-invalid-code'] as ErrorCode | undefined) ?? null,
    }));
  const media = operation.requestBody?.content?.['application/json'];
  return {
    id,
    facts,
    method: facts.method.toUpperCase(),
    parameters,
    body: media?.schema,
    examples: Object.values(media?.examples ?? {}).map((e) => e.value),
  };
}

export const operations: OperationSpec[] = operationIds.map(specOf);
export const operationSpec = (id: OperationId): OperationSpec => operations.find((o) => o.id === id)!;

/** Every literal path segment of the contract: generated identifiers must not be one (they would route elsewhere). */
export const literalSegments = new Set(
  operations.flatMap((o) => o.facts.path.split('/').filter((s) => s && !s.startsWith('{'))),
);

/** Ajv as the contract tests configure it: 2020-12, full formats, the UTF-8 byte-limit keywords. */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const keyword of byteLimitKeywords) ajv.addKeyword({ ...keyword });
  return ajv;
}

const ajv = createAjv();
const compiled = new WeakMap<object, ValidateFunction>();

export function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

export function schemaErrors(schema: JsonSchema, value: unknown): string[] {
  const validate = validatorFor(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

const envelopeSchema = dereferenced.components!.schemas!.ErrorEnvelope!;

/** Problems with an error answer: [] when the body is a valid ErrorEnvelope for a declared status of the operation. */
export function envelopeProblems(operation: OperationSpec, status: number, body: unknown): string[] {
  const problems = schemaErrors(envelopeSchema, body).map((p) => `envelope: ${p}`);
  if (!operation.facts.errorStatuses.includes(status)) problems.push(`status ${status} is not declared by ${operation.id}`);
  const code = (body as { error?: { code?: string } })?.error?.code;
  if (code && code in errorCatalog && errorCatalog[code as ErrorCode].status !== status) {
    problems.push(`${code} is ${errorCatalog[code as ErrorCode].status} in the catalog, answered ${status}`);
  }
  return problems;
}

/** Problems with any answer against the operation's declared response for that status. */
export function responseProblems(operation: OperationSpec, status: number, body: unknown): string[] {
  const response = dereferenced.paths[operation.facts.path]?.[operation.facts.method]?.responses[String(status)];
  if (!response) return [`${operation.id} does not declare status ${status}`];
  const schema = response.content?.['application/json']?.schema;
  return schema ? schemaErrors(schema, body) : [];
}

/** The codes a validation refusal may carry: a valid request must never get one of these. */
export const validationCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INVALID_ARGUMENT',
  'INVALID_QUERY',
  'INVALID_IDENTIFIER',
  'BAD_REQUEST',
  'JSON_REQUIRED',
  'PAYLOAD_TOO_LARGE',
  'BODY_NOT_ALLOWED',
  'QUERY_NOT_ALLOWED',
  'IDEMPOTENCY_KEY_REQUIRED',
  'CREATION_CONTEXT_OR_KEY_REQUIRED',
  'INVALID_ORG_READ',
  'QUERY_TOO_LONG',
  'PATH_INVALID',
]);
