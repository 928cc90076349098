/** Helpers the contract tests share: the built documents, a configured Ajv, and a schema locator. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { byteLimitKeywords } from '../../src/byte-limits.js';
import { dereference } from '../../src/dereference.js';
import { httpMethods, type HttpMethod, type JsonSchema, type OpenApiDocument, type OpenApiOperation } from '../../src/document-types.js';

export const packageDir = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const repoRoot = join(packageDir, '../..');

function readJson<T>(relative: string): T {
  return JSON.parse(readFileSync(join(packageDir, relative), 'utf8')) as T;
}

export const bundled = readJson<OpenApiDocument>('dist/openapi.json');
export const dereferenced = dereference(bundled);

export function createAjv(): Ajv2020 {
  // strict: false because OpenAPI adds keywords Ajv does not know (x-status,
  // x-type, example annotations); the byte limits are real keywords.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const keyword of byteLimitKeywords) ajv.addKeyword({ ...keyword });
  return ajv;
}

export interface LocatedOperation {
  path: string;
  method: HttpMethod;
  /** The operation, with the path item's parameters merged into its own. */
  operation: OpenApiOperation;
}

export function operationsOf(doc: OpenApiDocument): LocatedOperation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    httpMethods.flatMap((method) => {
      const operation = item[method];
      if (!operation) return [];
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
      return [{ path, method, operation: { ...operation, parameters } }];
    }),
  );
}

export function findOperation(doc: OpenApiDocument, operationId: string): LocatedOperation {
  const found = operationsOf(doc).find((o) => o.operation.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
}

/** The non-null branches of a schema that may be `oneOf`/`anyOf` or a nullable type list. */
function branches(schema: JsonSchema): JsonSchema[] {
  const alternatives = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (alternatives) return alternatives.filter((s) => s.type !== 'null').flatMap(branches);
  return [schema];
}

/**
 * Finds the schema at a dotted location inside an operation of the
 * dereferenced document: `body.event.content`, `response.items[].id`,
 * `query.limit`, `header.Idempotency-Key`, `path.mind_id`. Through a oneOf,
 * the first branch that has the next property is taken.
 */
export function schemaAt(operationId: string, location: string): JsonSchema {
  const { operation } = findOperation(dereferenced, operationId);
  const [where, ...rest] = location.split('.');
  let schema: JsonSchema | undefined;
  if (where === 'body') {
    schema = operation.requestBody?.content?.['application/json']?.schema;
  } else if (where === 'response') {
    const success = Object.keys(operation.responses).find((s) => s.startsWith('2'))!;
    schema = operation.responses[success]?.content?.['application/json']?.schema;
  } else {
    const name = rest.shift()!;
    const parameter = (operation.parameters ?? []).find((p) => p.in === where && p.name.toLowerCase() === name.toLowerCase());
    if (!parameter) throw new Error(`${operationId} has no ${where} parameter ${name}`);
    schema = { ...parameter.schema, 'x-required': parameter.required ?? false };
  }
  if (!schema) throw new Error(`${operationId} has no ${where} schema`);
  for (const step of rest) {
    const isArray = step.endsWith('[]');
    const name = isArray ? step.slice(0, -2) : step;
    const holder: JsonSchema | undefined = branches(schema).find((b) => (b.properties as Record<string, JsonSchema> | undefined)?.[name]);
    if (!holder) throw new Error(`${operationId}: no property ${name} on the way to ${location}`);
    schema = (holder.properties as Record<string, JsonSchema>)[name]!;
    if (isArray) schema = (branches(schema)[0]!.items as JsonSchema | undefined) ?? schema;
    if (step !== rest.at(-1)) schema = branches(schema)[0]!;
  }
  return schema;
}

/** Whether `name` is in the `required` list of the object that holds the location's last step. */
export function isRequiredAt(operationId: string, location: string): boolean {
  const parts = location.split('.');
  const last = parts.pop()!.replace(/\[\]$/, '');
  const parent = schemaAt(operationId, parts.join('.'));
  const holders = branches(parent.type === 'array' ? (parent.items as JsonSchema) : parent);
  return holders.some((h) => ((h.required as string[] | undefined) ?? []).includes(last));
}
