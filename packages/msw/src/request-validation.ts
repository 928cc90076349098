/**
 * Opt-in request validation (`createHandlers({ validateRequests: true })`): a request the contract
 * refuses gets the error the real stack answers, instead of the selected example. The codes are
 * spec/DECISIONS.md's, "Which code for a validation failure": the body INVALID_ARGUMENT (malformed
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
import { byteLimitKeywords, envelopeLocation, gatewayLimits, illFormedStrings, operationTable, type ErrorCode, type JsonSchema, type LocatedIssue } from '@gateway-minds/contract';

/** What the contract says one operation's request must be. */
export interface RequestContract {
  parameters: readonly { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema; missingCode: string | null }[];
  /** The JSON body's schema; null when the operation takes no body. */
  body: JsonSchema | null;
}

/** A refused request: the catalog code, a message, and every violated constraint. */
export interface Refusal {
  code: ErrorCode;
  message: string;
  errors?: LocatedIssue[];
}

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
    const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
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
function orgReadRefusal(contract: RequestContract, why: string): Refusal {
  const takes = contract.parameters
    .filter((p) => p.in === 'query')
    .map((p) => (Array.isArray(p.schema.enum) ? p.schema.enum.map((value) => `${p.name}=${String(value)}`).join(' or ') : `an optional ${p.name}`));
  return { code: 'INVALID_ORG_READ', message: `The usage read ${why}; it accepts only ${takes.join(' and ')}.` };
}

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
    return { code: 'QUERY_NOT_ALLOWED', message: 'This operation takes no query string.' };
  }
  for (const name of names) {
    const parameter = queryParameters.find((p) => p.name === name);
    if (!parameter || url.searchParams.getAll(name).length > 1) {
      const why = parameter ? `repeats ${name}` : `has no query parameter ${name}`;
      return orgRead
        ? orgReadRefusal(contract, why)
        : { code: 'INVALID_QUERY', message: 'The query parameters failed validation.', errors: [{ location: `query.${name}`, message: parameter ? 'must not be repeated' : 'is not a parameter of this operation' }] };
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
        ? orgReadRefusal(contract, `asked for ${parameter.name}=${raw}`)
        : { code: 'INVALID_QUERY', message: 'The query parameters failed validation.', errors: problems };
    }
  }

  for (const parameter of contract.parameters.filter((p) => p.in === 'path')) {
    const value = pathParams[parameter.name];
    const text = typeof value === 'string' ? value : '';
    const validate = validatorOf(parameter.schema);
    if (!validate(coerce(text, parameter.schema))) {
      return { code: 'INVALID_IDENTIFIER', message: 'The identifier in the path is not valid.', errors: issues(validate.errors, `path.${parameter.name}`) };
    }
  }

  for (const parameter of contract.parameters.filter((p) => p.in === 'header')) {
    const value = request.headers.get(parameter.name);
    const location = `header.${parameter.name.toLowerCase()}`;
    if (value === null) {
      if (parameter.required) return { code: (parameter.missingCode ?? 'BAD_REQUEST') as ErrorCode, message: `The ${parameter.name} header is required.`, errors: [{ location, message: 'is required' }] };
      continue;
    }
    const validate = validatorOf(parameter.schema);
    if (!validate(coerce(value, parameter.schema))) {
      // A header whose schema names its own refusal (`x-invalid-code`: DPOP_INVALID on `dpop`), as the servers answer it.
      const ownCode = parameter.schema['x-invalid-code'] as ErrorCode | undefined;
      return { code: ownCode ?? 'BAD_REQUEST', message: 'A header failed validation.', errors: issues(validate.errors, location) };
    }
  }

  const bytes = new Uint8Array(await request.clone().arrayBuffer());
  if (!contract.body) {
    if (bytes.length === 0) return null;
    return orgRead
      ? orgReadRefusal(contract, 'carried a body')
      : { code: 'BODY_NOT_ALLOWED', message: 'This operation takes no body.' };
  }
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type.trim())) return { code: 'JSON_REQUIRED', message: 'The body must be UTF-8 application/json.' };
  if (bytes.length > gatewayLimits.maxBodyBytes) return { code: 'PAYLOAD_TOO_LARGE', message: `The body exceeds this operation's limit of ${gatewayLimits.maxBodyBytes} bytes.` };
  if (bytes.length === 0) return { code: 'JSON_REQUIRED', message: 'This operation needs a JSON body.' };
  let body: unknown;
  try {
    body = JSON.parse(strictUtf8.decode(bytes));
  } catch {
    return { code: 'INVALID_ARGUMENT', message: 'The body is not valid UTF-8 JSON.' };
  }
  const illFormed = illFormedStrings(body, 'body');
  if (illFormed.length) return { code: 'INVALID_ARGUMENT', message: 'The body contains text that cannot be stored.', errors: illFormed };
  const validate = validatorOf(contract.body);
  if (!validate(body)) return { code: 'INVALID_ARGUMENT', message: 'The JSON body is not exactly the published shape.', errors: issues(validate.errors, 'body') };
  return null;
}
