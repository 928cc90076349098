/**
 * Judges a recorded answer against the bundled contract with Ajv (the
 * contract's byte-limit keywords included): the status is one the operation
 * declares, the body validates against its schema, required headers are there
 * and declared headers validate. The same judge for the handlers, Prism and
 * the real stack.
 */
import { byteLimitKeywords, dereference, operationTable, type JsonSchema, type OperationId } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Exchange } from './scenario.js';

export const dereferenced = dereference(openapiDocument);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
for (const keyword of byteLimitKeywords) ajv.addKeyword({ ...keyword });
const validators = new WeakMap<JsonSchema, ValidateFunction>();

function validate(schema: JsonSchema, value: unknown): string[] {
  let fn = validators.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    validators.set(schema, fn);
  }
  return fn(value) ? [] : (fn.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** Problems with one exchange; [] when the contract declares exactly this answer. */
export function specProblems(exchange: Exchange): string[] {
  const id = exchange.operationId as OperationId | undefined;
  if (!id || !Object.hasOwn(operationTable, id)) return [`${exchange.method} ${exchange.path} is no operation of the contract`];
  const facts = operationTable[id];
  const response = dereferenced.paths[facts.path]?.[facts.method]?.responses[String(exchange.status)];
  if (!response) return [`${id} does not declare status ${exchange.status}`];
  const label = `${id} ${exchange.status}`;
  const problems: string[] = [];
  const schema = response.content?.['application/json']?.schema;
  if (schema) {
    if (!exchange.headers['content-type']?.startsWith('application/json')) problems.push(`${label}: content-type ${exchange.headers['content-type']}`);
    problems.push(...validate(schema, exchange.body).map((p) => `${label} body: ${p}`));
  }
  for (const [name, headerOrRef] of Object.entries(response.headers ?? {})) {
    const header = headerOrRef as { required?: boolean; schema?: JsonSchema };
    const raw = exchange.headers[name.toLowerCase()];
    if (raw === undefined) {
      if (header.required) problems.push(`${label}: required header ${name} missing`);
      continue;
    }
    if (!header.schema) continue;
    const numeric = header.schema.type === 'integer' || header.schema.type === 'number';
    const value = numeric && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    problems.push(...validate(header.schema, value).map((p) => `${label} header ${name}: ${p}`));
  }
  return problems;
}
