/**
 * The contract as a test's judge, for suites that check a mock against it (Prism, MSW) and the
 * real stack beside them: a request each operation accepts, built from the spec's own examples,
 * and the problems of an answer against the response the spec declares for its status (the body
 * by Ajv with the contract's byte-limit keywords, the declared headers, the content type). One
 * reading of the spec for all of them, so that no two suites judge by different rules.
 */
import {
  byteLimitKeywords,
  credentialSchemes,
  dereference,
  operationParameters,
  operationTable,
  type JsonSchema,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiResponse,
  type OperationId,
} from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The bundled contract with every $ref replaced by what it names. */
export const dereferenced = dereference(openapiDocument);

/** An operation of the contract as the spec writes it, with its path item's parameters merged in. */
export interface LocatedOperation {
  id: OperationId;
  operation: OpenApiOperation;
  parameters: OpenApiParameter[];
}

export function locateOperation(id: OperationId): LocatedOperation {
  const facts = operationTable[id];
  const item = dereferenced.paths[facts.path];
  const operation = item?.[facts.method];
  if (!item || !operation) throw new Error(`${id} is not at ${facts.method} ${facts.path}`);
  return { id, operation, parameters: operationParameters(item, operation) };
}

export interface ContractRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** A value for a parameter from the spec's own examples: the parameter's, else its schema's. */
function exampleFor(parameter: OpenApiParameter): unknown {
  const p = parameter as OpenApiParameter & { example?: unknown; examples?: Record<string, { value?: unknown }> };
  const schema = parameter.schema ?? {};
  const candidates = [
    p.example,
    Object.values(p.examples ?? {})[0]?.value,
    (schema.examples as unknown[] | undefined)?.[0],
    schema.example,
    schema.default,
    (schema.enum as unknown[] | undefined)?.[0],
    schema.const,
  ];
  const value = candidates.find((c) => c !== undefined);
  if (value === undefined) throw new Error(`parameter ${parameter.in} ${parameter.name} has no example to build a request with`);
  return value;
}

/**
 * A request the operation's contract accepts: its required parameters from the spec's examples,
 * a credential of the first accepted kind (`Bearer <prefix>mock`), and its first named request
 * body example. A validating mock answers it with the example selected, not a validation error.
 */
export function contractRequest(id: OperationId): ContractRequest {
  const facts = operationTable[id];
  const { operation, parameters } = locateOperation(id);
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
    const kind = Object.values(credentialSchemes).find((c) => c.scheme === requirement.scheme);
    if (!kind) throw new Error(`${id}: no credential kind for scheme ${requirement.scheme}`);
    headers.Authorization = `Bearer ${kind.tokenPrefix}mock`;
  }
  const media = operation.requestBody?.content?.['application/json'];
  const example = media ? Object.values(media.examples ?? {})[0] : undefined;
  if (media && !example) throw new Error(`${id}: no named request example`);
  if (example) headers['Content-Type'] = 'application/json';
  return { method: facts.method.toUpperCase(), path: query.size ? `${path}?${query}` : path, headers, ...(example ? { body: JSON.stringify(example.value) } : {}) };
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
for (const keyword of byteLimitKeywords) ajv.addKeyword({ ...keyword });
const validators = new WeakMap<JsonSchema, ValidateFunction>();

/** Why a value breaks a schema of the contract (byte limits included); [] when it does not. */
export function schemaProblems(schema: JsonSchema, value: unknown): string[] {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

export interface Answer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: unknown;
}

/**
 * Problems of an answer against the response the spec declares for its status: a JSON body of
 * that schema under an application/json content type, every required header there, every
 * declared header valid (a numeric one read as a number). [] when the contract declares exactly it.
 */
export function responseProblems(answer: Answer, response: OpenApiResponse | undefined): string[] {
  if (!response) return [`status ${answer.status} is not declared`];
  const problems: string[] = [];
  const schema = response.content?.['application/json']?.schema;
  if (schema) {
    const contentType = answer.headers['content-type'];
    if (!contentType?.startsWith('application/json')) problems.push(`content-type ${contentType}`);
    problems.push(...schemaProblems(schema, answer.body).map((p) => `body: ${p}`));
  }
  for (const [name, headerOrRef] of Object.entries(response.headers ?? {})) {
    const header = headerOrRef as { required?: boolean; schema?: JsonSchema };
    const raw = answer.headers[name.toLowerCase()];
    if (raw === undefined) {
      if (header.required) problems.push(`required header ${name} missing`);
      continue;
    }
    if (!header.schema) continue;
    const numeric = header.schema.type === 'integer' || header.schema.type === 'number';
    const value = numeric && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    problems.push(...schemaProblems(header.schema, value).map((p) => `header ${name}: ${p}`));
  }
  return problems;
}

/** The response an operation declares for a status, if it declares one. */
export function declaredResponse(id: OperationId, status: number | string): OpenApiResponse | undefined {
  return locateOperation(id).operation.responses[String(status)];
}
