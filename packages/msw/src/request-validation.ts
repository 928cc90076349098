/**
 * Opt-in request validation (`createHandlers({ validateRequests: true })`): a request the contract
 * refuses gets the error the real stack answers, instead of the selected example: the code and
 * message of the contract's refusal rule for it (`refusalRules`, which the servers answer with too).
 * The codes are spec/DECISIONS.md's, "Which code for a validation failure": the body INVALID_ARGUMENT (malformed
 * JSON, bad UTF-8, the schema, unknown fields), a query parameter INVALID_QUERY, a path identifier
 * INVALID_IDENTIFIER, a header BAD_REQUEST (its `x-missing-code` when a required one is missing,
 * its schema's `x-invalid-code` when one names its own refusal),
 * not application/json or no body where one is required JSON_REQUIRED, a body over the limit
 * PAYLOAD_TOO_LARGE, a body or a query where the operation takes none BODY_NOT_ALLOWED and
 * QUERY_NOT_ALLOWED; and the organization usage read's own INVALID_ORG_READ. Each `errors[]`
 * location is written as the servers write it (`body.event.content`, `query.limit`,
 * `header.idempotency-key`, `path.mind_id`).
 *
 * Schemas are the contract's (generated into src/generated/request-contract.ts), compiled with Ajv
 * on an operation's first request. What only the gateway's transport sees (path and query length,
 * a malformed request line, chunked bodies) is not modelled: MSW never receives such a request.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { byteLimitKeywords, envelopeLocation, gatewayLimits, illFormedStrings, isJsonContentType, operationTable, pointerSegments, refusal, refusalIssue, type JsonSchema, type LocatedIssue, type Refusal, type RefusalRuleId } from '@gateway-minds/contract';

/** What the contract says one operation's request must be. */
export interface RequestContract {
  parameters: readonly { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema; missingCode: string | null }[];
  /** The JSON body's schema; null when the operation takes no body. */
  body: JsonSchema | null;
}

export type { Refusal };

/** The one operation whose reads have their own refusal (DECISIONS, "The gateway usage body"). */
const ORG_READ = operationTable.gateway_getUsage.operationId;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
for (const keyword of byteLimitKeywords) ajv.addKeyword({ ...keyword });
const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Ajv's problems at `prefix` (`body`, `query.limit`): the property path dotted, array indices in brackets, as the servers write a location. */
function issues(errors: ErrorObject[] | null | undefined, prefix: string): LocatedIssue[] {
  return (errors ?? []).slice(0, 50).map((error) => {
    const segments = pointerSegments(error.instancePath);
    // As the servers' validator reports them: a missing or an unknown property at its own path.
    if (error.keyword === 'required') segments.push(String((error.params as { missingProperty: string }).missingProperty));
    if (error.keyword === 'additionalProperties') segments.push(String((error.params as { additionalProperty: string }).additionalProperty));
    return { location: envelopeLocation(prefix, segments), message: error.message ?? error.keyword };
  });
}

/**
 * A parameter's text as its schema's type reads it (a query or header carries text only). Not Ajv's
 * `coerceTypes`: it turns an empty string into 0, which the servers refuse.
 */
function coerce(value: string, schema: JsonSchema): unknown {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The usage read's refusal, naming what it takes as its parameters' schemas say (`days` by its enum). */
function orgReadRefusal(contract: RequestContract, id: RefusalRuleId, values: Record<string, string> = {}): Refusal {
  const takes = contract.parameters
    .filter((p) => p.in === 'query')
    .map((p) => (Array.isArray(p.schema.enum) ? p.schema.enum.map((value) => `${p.name}=${String(value)}`).join(' or ') : `an optional ${p.name}`));
  return refusal(id, { ...values, accepts: takes.join(' and ') });
}

/** A refusal with its `errors[]`. */
function located(id: RefusalRuleId, errors: LocatedIssue[], values: Record<string, string> = {}, ownCode?: string | null): Refusal {
  return { ...refusal(id, values, ownCode), errors };
}

const byteLimitKeywordNames = new Set<string>(byteLimitKeywords.map((k) => k.keyword));

/**
 * Why the contract refuses this request, or null when it accepts it. `pathParams` are MSW's
 * (already decoded). The body is read from a clone, so the handler can still read it.
 */
export async function refusalOf(operationId: string, contract: RequestContract, request: Request, pathParams: Record<string, string | readonly string[] | undefined>): Promise<Refusal | null> {
  const orgRead = operationId === ORG_READ;
  const url = new URL(request.url);
  const queryParameters = contract.parameters.filter((p) => p.in === 'query');

  // The query: none where the operation takes none; then each parameter once, known, and valid.
  const names = new Set<string>();
  url.searchParams.forEach((_value, name) => names.add(name));
  if (queryParameters.length === 0 && url.search.length > 1) {
    return refusal('query-not-allowed');
  }
  for (const name of names) {
    const parameter = queryParameters.find((p) => p.name === name);
    if (!parameter || url.searchParams.getAll(name).length > 1) {
      if (orgRead) return orgReadRefusal(contract, parameter ? 'usage-read-repeated' : 'usage-read-unknown-parameter', { name });
      const id = parameter ? 'query-repeated' : 'query-unknown-parameter';
      return located(id, [refusalIssue(id, `query.${name}`)]);
    }
  }
  for (const parameter of queryParameters) {
    const raw = url.searchParams.get(parameter.name);
    const problems =
      raw === null
        ? parameter.required ? [{ location: `query.${parameter.name}`, message: 'is required' }] : []
        : validatorOf(parameter.schema)(coerce(raw, parameter.schema)) ? [] : issues(validatorOf(parameter.schema).errors, `query.${parameter.name}`);
    if (problems.length) {
      // DECISIONS, "The gateway usage body": the read "takes only `days` (7 or 30)"; another value of `days` is
      // INVALID_ORG_READ, while a `service` that breaks its pattern is a query that failed validation.
      return orgRead && Array.isArray(parameter.schema.enum)
        ? orgReadRefusal(contract, 'usage-read-value', { name: parameter.name, value: String(raw) })
        : located('query-invalid', problems);
    }
  }

  for (const parameter of contract.parameters.filter((p) => p.in === 'path')) {
    const value = pathParams[parameter.name];
    const text = typeof value === 'string' ? value : '';
    const validate = validatorOf(parameter.schema);
    if (!validate(coerce(text, parameter.schema))) {
      return located('path-invalid', issues(validate.errors, `path.${parameter.name}`));
    }
  }

  for (const parameter of contract.parameters.filter((p) => p.in === 'header')) {
    const value = request.headers.get(parameter.name);
    const location = `header.${parameter.name.toLowerCase()}`;
    if (value === null) {
      if (!parameter.required) continue;
      const missing = [{ location, message: 'is required' }];
      return parameter.missingCode ? located('header-missing', missing, { name: parameter.name }, parameter.missingCode) : located('header-invalid', missing);
    }
    const validate = validatorOf(parameter.schema);
    if (!validate(coerce(value, parameter.schema))) {
      // A header whose schema names its own refusal (`x-invalid-code`: DPOP_INVALID on `dpop`), as the servers answer it.
      const ownCode = parameter.schema['x-invalid-code'] as string | undefined;
      const problems = issues(validate.errors, location);
      return ownCode ? located('header-invalid-own-code', problems, { name: parameter.name.toLowerCase() }, ownCode) : located('header-invalid', problems);
    }
  }

  const bytes = new Uint8Array(await request.clone().arrayBuffer());
  if (!contract.body) {
    if (bytes.length === 0) return null;
    return orgRead ? orgReadRefusal(contract, 'usage-read-body') : refusal('body-not-allowed');
  }
  if (!isJsonContentType(request.headers.get('content-type'))) return refusal('json-required');
  if (bytes.length > gatewayLimits.maxBodyBytes) return refusal('payload-too-large');
  if (bytes.length === 0) return refusal('json-required');
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return refusal('body-not-utf8');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refusal('body-not-json');
  }
  // As the servers read a body: an object or an array at the top (body-parser's `strict`).
  if (!body || typeof body !== 'object') return refusal('body-not-json');
  const illFormed = illFormedStrings(body, 'body');
  if (illFormed.length) return located('body-ill-formed-text', illFormed);
  const validate = validatorOf(contract.body);
  if (validate(body)) return null;
  // The servers check the schema first and the UTF-8 byte limits (x-max-bytes) after it passes.
  const shape = (validate.errors ?? []).filter((error) => !byteLimitKeywordNames.has(error.keyword));
  return shape.length ? located('body-invalid', issues(shape, 'body')) : located('body-over-byte-limit', issues(validate.errors, 'body'));
}
