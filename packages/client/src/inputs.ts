/**
 * `@gateway-minds/client/inputs`: each operation's inputs read from the spec
 * document (parameters with their schemas, the JSON body and its top-level
 * properties), with `$ref`s resolved and their sibling keywords kept. The CLI
 * builds its flags from this and the MCP server its tool input schemas. It
 * imports the whole document, so it is a separate entry from the client's
 * core (which stays small for browsers).
 */
import { httpMethods, inlineRefs, operationTable, type JsonSchema, type OpenApiOperation, type OpenApiParameter, type OperationFacts, type OperationId } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';

export interface InputField {
  /** The parameter or body property name, as the spec writes it. */
  name: string;
  in: 'path' | 'query' | 'header' | 'body';
  required: boolean;
  description: string | undefined;
  schema: JsonSchema;
}

export interface OperationInputs {
  operationId: OperationId;
  facts: OperationFacts;
  /** Parameters, then (when `bodyFlattened`) the body's top-level properties. */
  fields: InputField[];
  /** The JSON request body, if the operation takes one. */
  body: { required: boolean; schema: JsonSchema; description: string | undefined } | undefined;
  /** The body is an object whose properties are fields (no name clashes with a parameter). */
  bodyFlattened: boolean;
}

/** A deep copy with every `$ref` replaced by its target, sibling keywords (description, default) winning. */
export function resolveSchema<T = JsonSchema>(node: unknown): T {
  return inlineRefs<T>(openapiDocument, node);
}

export interface SpecOperation {
  path: string;
  method: string;
  operation: OpenApiOperation;
  pathParameters: OpenApiParameter[];
}
let specCache: Map<string, SpecOperation> | undefined;

/** Every operation of the spec document, by id (read from `paths`, not from the operation table). */
export function specOperations(): Map<string, SpecOperation> {
  if (specCache) return specCache;
  const found = new Map<string, SpecOperation>();
  for (const [path, item] of Object.entries(openapiDocument.paths)) {
    for (const method of httpMethods) {
      const operation = item[method];
      if (operation?.operationId) found.set(operation.operationId, { path, method, operation, pathParameters: item.parameters ?? [] });
    }
  }
  return (specCache = found);
}

const cache = new Map<OperationId, OperationInputs>();

export function operationInputs(operationId: OperationId): OperationInputs {
  const cached = cache.get(operationId);
  if (cached) return cached;
  const spec = specOperations().get(operationId);
  if (!spec) throw new Error(`no operation ${operationId} in the spec`);
  const parameters = new Map<string, OpenApiParameter>();
  for (const raw of [...spec.pathParameters, ...(spec.operation.parameters ?? [])]) {
    const parameter = resolveSchema<OpenApiParameter>(raw);
    if (parameter.in !== 'cookie') parameters.set(`${parameter.in}:${parameter.name}`, parameter);
  }
  const fields: InputField[] = [...parameters.values()].map((p) => ({
    name: p.name,
    in: p.in as InputField['in'],
    required: p.required === true,
    description: p.description ?? (p.schema?.description as string | undefined),
    schema: (p.schema ?? {}) as JsonSchema,
  }));
  const requestBody = spec.operation.requestBody ? resolveSchema<NonNullable<OpenApiOperation['requestBody']>>(spec.operation.requestBody) : undefined;
  const bodySchema = requestBody?.content?.['application/json']?.schema;
  const body = bodySchema ? { required: requestBody?.required === true, schema: bodySchema, description: (requestBody as { description?: string }).description } : undefined;
  const properties = (bodySchema?.type === 'object' && bodySchema.properties ? bodySchema.properties : undefined) as Record<string, JsonSchema> | undefined;
  const requiredProperties = new Set((bodySchema?.required as string[] | undefined) ?? []);
  const clash = properties && Object.keys(properties).some((name) => fields.some((f) => f.name === name));
  const bodyFlattened = !!properties && !clash;
  if (bodyFlattened) {
    for (const [name, schema] of Object.entries(properties!)) {
      fields.push({ name, in: 'body', required: requiredProperties.has(name), description: schema.description as string | undefined, schema });
    }
  }
  const inputs: OperationInputs = { operationId, facts: operationTable[operationId] as OperationFacts, fields, body, bodyFlattened };
  cache.set(operationId, inputs);
  return inputs;
}

/**
 * Turns flat values (one per field name, plus `body` for an unflattened or
 * whole body) into the client's `{ params, body }`.
 */
export function toCallInput(inputs: OperationInputs, values: Record<string, unknown>): { params: Record<string, Record<string, unknown>>; body?: unknown } {
  const params: Record<string, Record<string, unknown>> = {};
  let body: Record<string, unknown> | undefined =
    values.body && typeof values.body === 'object' && !Array.isArray(values.body) ? { ...(values.body as Record<string, unknown>) } : undefined;
  const rawBody = values.body !== undefined && body === undefined ? values.body : undefined;
  for (const field of inputs.fields) {
    const value = values[field.name];
    if (value === undefined) continue;
    if (field.in === 'body') (body ??= {})[field.name] = value;
    else (params[field.in] ??= {})[field.name] = value;
  }
  if (!inputs.body) return { params };
  if (rawBody === undefined && body === undefined && (inputs.body.required || inputs.bodyFlattened)) body = {};
  return { params, body: rawBody ?? body };
}
