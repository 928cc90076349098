/**
 * The command table: one command per operation id, its flags derived from the
 * operation's parameters and top-level body properties (`@gateway-minds/client/inputs`),
 * typed from their schemas. Nothing here names an operation.
 */
import { operationIds, type JsonSchema, type OperationFacts, type OperationId } from '@gateway-minds/contract';
import { operationInputs, resolveSchema, specOperations, type InputField, type OperationInputs } from '@gateway-minds/client/inputs';

export type FlagKind = 'string' | 'integer' | 'number' | 'boolean' | 'json';

export interface Flag {
  /** --<flag> */
  flag: string;
  /** Other spellings accepted (the spec's own name when it differs). */
  aliases: string[];
  field: InputField;
  kind: FlagKind;
  /** Arrays of scalars: repeat the flag (or pass a JSON array). */
  multiple: boolean;
  nullable: boolean;
  enumValues: readonly unknown[] | undefined;
  /** Required on the command line (the Idempotency-Key never is: the client makes one). */
  required: boolean;
  /** A value from the spec's examples (the operation's first named example holding it, else the schema's or parameter's own). */
  example: unknown;
}

export interface Command {
  name: OperationId;
  facts: OperationFacts;
  inputs: OperationInputs;
  flags: Flag[];
  /** Statuses `--wait-for` accepts: the enum of the result's `status` when the result is a Mind (has mind_id and status). */
  waitStatuses: readonly string[] | undefined;
}

/** Flags every command has. */
export const GLOBAL_FLAGS = {
  token: { type: 'string', help: 'credential (Bearer token); default $GATEWAY_MINDS_TOKEN' },
  'base-url': { type: 'string', help: 'gateway URL; default $GATEWAY_MINDS_URL or http://127.0.0.1:8080' },
  body: { type: 'string', help: 'the whole JSON body, inline or @file; flags override its properties' },
  'max-retries': { type: 'string', help: 'retry a safe read this many times on a catalog code answered with 429, 503 or 504 (default 2); commands whose help does not say "retried" (mutations, owner management, agent memory) are never retried' },
  timeout: { type: 'string', help: 'seconds to wait for each answer (default 60)' },
  'wait-for': { type: 'string', help: 'after the call, poll the Mind until it has this status' },
  'wait-timeout': { type: 'string', help: 'seconds --wait-for waits at most (default 300)' },
  'dpop-key': { type: 'string', help: 'private JWK file of the key an agent token is bound to; signs a DPoP proof per request ($GATEWAY_MINDS_DPOP_KEY)' },
  'dpop-nonce-retry': { type: 'boolean', help: 'on DPOP_NONCE_REQUIRED, sign again once with the server nonce' },
  pretty: { type: 'boolean', help: 'indented JSON (the default on a terminal)' },
  compact: { type: 'boolean', help: 'one-line JSON (the default when piped)' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
} as const;

export const kebab = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[_\s]+/g, '-')
    .toLowerCase();

function typeOf(schema: JsonSchema): { type: string | undefined; nullable: boolean } {
  const type = schema.type;
  if (Array.isArray(type)) {
    const others = type.filter((t) => t !== 'null');
    return { type: others.length === 1 ? (others[0] as string) : undefined, nullable: type.includes('null') };
  }
  if (schema.oneOf || schema.anyOf) return { type: undefined, nullable: false };
  return { type: type as string | undefined, nullable: false };
}

/**
 * The spec's example of a field: for a body property, its value in the request body's first named
 * example that has it (the example the reference shows first); for a parameter, the parameter's own
 * example; else the schema's `examples[0]` or `example`.
 */
function exampleOf(id: OperationId, field: InputField): unknown {
  const spec = specOperations().get(id);
  if (field.in === 'body') {
    const requestBody = resolveSchema<{ content?: Record<string, { examples?: Record<string, { value?: unknown }> }> }>(spec?.operation.requestBody);
    for (const example of Object.values(requestBody?.content?.['application/json']?.examples ?? {})) {
      const value = example.value as Record<string, unknown> | undefined;
      if (value && typeof value === 'object' && field.name in value) return value[field.name];
    }
  } else {
    const parameters = [...(spec?.pathParameters ?? []), ...(spec?.operation.parameters ?? [])].map((p) => resolveSchema<Record<string, unknown>>(p));
    const parameter = parameters.find((p) => p.name === field.name && p.in === field.in);
    if (parameter?.example !== undefined) return parameter.example;
  }
  const examples = field.schema.examples as unknown[] | undefined;
  return examples?.[0] ?? field.schema.example;
}

function flagOf(id: OperationId, field: InputField, facts: OperationFacts): Flag {
  const { type, nullable } = typeOf(field.schema);
  const items = type === 'array' ? (field.schema.items as JsonSchema | undefined) : undefined;
  const itemType = items ? typeOf(items).type : undefined;
  const scalarItems = !!itemType && ['string', 'integer', 'number', 'boolean'].includes(itemType);
  const kind: FlagKind =
    type === 'string' || type === 'integer' || type === 'number' || type === 'boolean' ? type : type === 'array' && scalarItems ? (itemType as FlagKind) : 'json';
  const isIdempotencyKey = field.in === 'header' && facts.parameters.some((p) => p.name === field.name && p.missingCode === 'IDEMPOTENCY_KEY_REQUIRED');
  const flag = kebab(field.name);
  return {
    flag,
    aliases: field.name !== flag ? [field.name] : [],
    field,
    kind,
    multiple: type === 'array' && scalarItems,
    nullable,
    enumValues: (field.schema.enum ?? items?.enum) as readonly unknown[] | undefined,
    required: field.required && !isIdempotencyKey,
    example: exampleOf(id, field),
  };
}

function successSchema(id: OperationId, facts: OperationFacts): JsonSchema | undefined {
  const operation = specOperations().get(id)?.operation;
  const response = resolveSchema<{ content?: Record<string, { schema?: JsonSchema }> }>(operation?.responses[String(facts.successStatus)]);
  return response?.content?.['application/json']?.schema;
}

let table: Map<string, Command> | undefined;

export function commands(): Map<string, Command> {
  if (table) return table;
  table = new Map();
  for (const name of operationIds) {
    const inputs = operationInputs(name);
    const flags = inputs.fields.map((field) => flagOf(name, field, inputs.facts));
    const result = successSchema(name, inputs.facts);
    const properties = (result?.properties ?? {}) as Record<string, JsonSchema>;
    const waitStatuses = properties.mind_id && properties.status ? ((properties.status.enum as string[] | undefined) ?? []) : undefined;
    table.set(name, { name, facts: inputs.facts, inputs, flags, waitStatuses });
  }
  return table;
}

/** Flag names that would collide within a command (a test keeps this empty). */
export function flagCollisions(): string[] {
  const problems: string[] = [];
  for (const command of commands().values()) {
    const seen = new Set<string>(Object.keys(GLOBAL_FLAGS));
    for (const flag of command.flags) {
      for (const name of [flag.flag, ...flag.aliases]) {
        if (seen.has(name)) problems.push(`${command.name}: --${name}`);
        seen.add(name);
      }
    }
  }
  return problems;
}
