/**
 * The tool list: one tool per operation id, its input schema built from the
 * operation's parameters and body in the dereferenced spec (patterns and
 * bounds kept), its description from the spec, read-only operations marked.
 * Nothing here names an operation.
 */
import { operationIds, type JsonSchema, type OperationId } from '@gateway-minds/contract';
import { operationInputs, type InputField, type OperationInputs } from '@gateway-minds/client/inputs';

export interface ToolFilter {
  /** Only operations that are safe to repeat (GET and x-read-only searches). */
  readOnly?: boolean;
  /** Only operations with one of these tags (the spec's tags, e.g. Minds, Memory). */
  tags?: readonly string[];
  /** Only these operation ids. */
  tools?: readonly string[];
}

export interface ToolDefinition {
  name: OperationId;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required?: string[]; additionalProperties: false };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** Keywords dropped from tool schemas: spec-only extensions and examples (bounds, patterns, enums, formats stay). */
function clean(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(clean);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !key.startsWith('x-') && key !== 'examples' && key !== 'example' && key !== 'title')
      .map(([key, value]) => [key, key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, clean(v)])) : clean(value)]),
  );
}

/** The DPoP header is signed by the server from its key (GATEWAY_MINDS_DPOP_KEY), not passed by the model. */
const isDpopHeader = (field: InputField) => field.in === 'header' && field.name.toLowerCase() === 'dpop';
const isIdempotencyKey = (inputs: OperationInputs, field: InputField) =>
  field.in === 'header' && inputs.facts.parameters.some((p) => p.name === field.name && p.missingCode === 'IDEMPOTENCY_KEY_REQUIRED');

export function toolFields(inputs: OperationInputs): InputField[] {
  return inputs.fields.filter((f) => !isDpopHeader(f));
}

export function toolDefinition(operationId: OperationId): ToolDefinition {
  const inputs = operationInputs(operationId);
  const { facts } = inputs;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of toolFields(inputs)) {
    const generated = isIdempotencyKey(inputs, field);
    const where = field.in === 'body' ? '' : ` (${field.in} parameter)`;
    const note = generated ? ' Optional here: the server makes one per call; pass the key of an earlier call to retry it after an unknown outcome.' : '';
    properties[field.name] = { ...(clean(field.schema) as JsonSchema), description: `${field.description ?? ''}${where}${note}`.trim() };
    if (field.required && !generated) required.push(field.name);
  }
  if (inputs.body && !inputs.bodyFlattened) {
    properties.body = { ...(clean(inputs.body.schema) as JsonSchema), description: inputs.body.description ?? 'The JSON request body.' };
    if (inputs.body.required) required.push('body');
  }
  return {
    name: operationId,
    title: facts.summary,
    description: `${facts.summary}.\n\n${facts.description}\n\n${facts.method.toUpperCase()} ${facts.path}${facts.readOnly ? ' (read-only)' : ''}${facts.automaticRetry ? '' : ' Never retried automatically.'}`,
    inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
    annotations: {
      title: facts.summary,
      readOnlyHint: facts.readOnly,
      destructiveHint: !facts.readOnly && facts.method === 'delete',
      idempotentHint: facts.readOnly || facts.parameters.some((p) => p.missingCode === 'IDEMPOTENCY_KEY_REQUIRED'),
      openWorldHint: false,
    },
  };
}

export function selectOperations(filter: ToolFilter = {}): OperationId[] {
  return operationIds.filter((id) => {
    const { facts } = operationInputs(id);
    if (filter.readOnly && !facts.readOnly) return false;
    if (filter.tags?.length && !filter.tags.some((t) => t.toLowerCase() === facts.tag.toLowerCase())) return false;
    if (filter.tools?.length && !filter.tools.includes(id)) return false;
    return true;
  });
}

/** Tag names of the spec, for validating --tags. */
export function knownTags(): string[] {
  return [...new Set(operationIds.map((id) => operationInputs(id).facts.tag))];
}
