/**
 * Request validation compiled per operation, in front of express-openapi-validator.
 *
 * express-openapi-validator 5.6 spends most of its time per request around its Ajv call, not in
 * it: four promise hops, a walk over every route to find the operation again, a parameter mutator
 * built per request, the query property redefined twice. Measured with the validator taken out of
 * the pipeline (an interleaved A/B, bench/README): about 100 µs of CPU per request on `whoami` and
 * on a forwarded `getMind`'s Minds side, a third of each. None of its public options skips that.
 *
 * Here each operation's parameters and body are compiled once, on the operation's first request,
 * into validators of this module's own Ajv, set up as the validator documents its request checks:
 * JSON Schema 2020-12 for an OpenAPI 3.1 document, ajv-formats in `full` mode (the `ajvFormats`
 * the service app gives it), parameters coerced from their text, defaults applied, and the same
 * request shapes (`{ query, headers, params }`, then `{ body }`). A request they pass goes straight
 * on, its query, headers and body left as the validator would leave them; anything else, and every
 * request shape this module does not model (a reserved character in a query value, an empty value,
 * a repeated or bracketed name, an array or object parameter, a `content` parameter, a cookie
 * parameter, a format this Ajv does not know), goes through express-openapi-validator unchanged,
 * which refuses it with the same error as before. So this may only ever say yes where the
 * validator says yes: `scripts/conformance/test/compiled-validation.test.ts` holds it to that on the
 * generated hostile requests, answer for answer.
 */
import type { Request } from 'express';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { httpMethods, lookupRef, operationParameters, type HttpMethod, type JsonSchema, type OpenApiDocument, type OpenApiParameter } from '@gateway-minds/contract';

type AjvValidate = ValidateFunction;

/**
 * An Ajv set up as express-openapi-validator's request Ajv (its documented defaults: `strict`
 * off, `useDefaults`, formats checked, `allowUnionTypes` off), stopping at the first error: a
 * refusal is the validator's to word, so only the verdict is needed here.
 */
function requestAjv(coerceTypes: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, strictNumbers: true, strictTuples: true, allowUnionTypes: false, validateSchema: false, useDefaults: true, coerceTypes, allErrors: false });
  addFormats.default(ajv, { mode: 'full' });
  // The validator refuses a readOnly property in a request (it never removes one: removeAdditional
  // is off); refusing it here too hands such a request to the validator.
  ajv.removeKeyword('readOnly');
  ajv.addKeyword({ keyword: 'readOnly', schemaType: 'boolean', validate: (readOnly: boolean) => !readOnly });
  return ajv;
}

/** Every format a schema names, so that an operation naming one this Ajv lacks is left to the validator. */
function formatsIn(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) formatsIn(item, into);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'format' && typeof value === 'string') into.add(value);
      else formatsIn(value, into);
    }
  }
  return into;
}

/** express-openapi-validator's RESERVED_CHARS (req.parameter.mutator): such a value in a query parameter without allowReserved is refused. */
const RESERVED_CHARS = /[:/?#[\]@!$&'()*+,;=]/;

interface CompiledOperation {
  general: AjvValidate;
  body: AjvValidate | undefined;
  /** Query parameter names; empty when the operation takes none. */
  queryNames: ReadonlySet<string>;
  /** Query parameters whose raw value may hold reserved characters (allowReserved). */
  reservedAllowed: ReadonlySet<string>;
}

export interface CompiledRequestValidation {
  /**
   * True when the request is valid exactly as express-openapi-validator would find it; its query,
   * headers and body are then as the validator leaves them (coerced, defaults applied). False: the
   * request is left as it was, for express-openapi-validator to judge and answer.
   */
  accepts(req: Request, operationId: string, pathParams: Record<string, string>): boolean;
  /** Requests accepted here and requests handed on, since start (tests read these). */
  readonly counts: { accepted: number; handedOn: number };
}

/** `document` is the app's own document (its operations only). */
export function compileRequestValidation(document: OpenApiDocument): CompiledRequestValidation {
  const doc = structuredClone(document);
  // As the validator's RequestValidator: parameters always coerced, the body not (no `coerceTypes` given).
  let ajv: { general: Ajv2020; body: Ajv2020 } | undefined;
  const ajvs = () => (ajv ??= { general: requestAjv(true), body: requestAjv(false) });
  /** Formats the components' schemas name, any of which an operation's schema may reach through a $ref. */
  let componentFormats: Set<string> | undefined;
  const knowsFormats = (...schemas: unknown[]) => {
    componentFormats ??= formatsIn(doc.components?.schemas);
    const known = ajvs().general.formats;
    return [...componentFormats, ...formatsIn(schemas)].every((format) => known[format] !== undefined);
  };

  const byOperationId = new Map<string, { path: string; method: HttpMethod }>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of httpMethods) {
      const operationId = item[method]?.operationId;
      if (operationId) byOperationId.set(operationId, { path, method });
    }
  }
  /** Compiled on an operation's first request, as the validator does; null: not modelled here. */
  const compiled = new Map<string, CompiledOperation | null>();

  function compile(operationId: string): CompiledOperation | null {
    const where = byOperationId.get(operationId);
    if (!where) return null;
    const item = doc.paths[where.path]!;
    const operation = item[where.method]!;
    const deref = <T>(node: T): T => ((node as { $ref?: string })?.$ref ? (lookupRef(doc, (node as { $ref: string }).$ref) as T) : node);
    const parameters = operationParameters(item, operation, deref);

    const parts: Record<'query' | 'headers' | 'params', JsonSchema> = { query: {}, headers: {}, params: {} };
    const queryNames = new Set<string>();
    const reservedAllowed = new Set<string>();
    for (const parameter of parameters) {
      const p = parameter as OpenApiParameter & { content?: unknown; style?: string; explode?: boolean; allowReserved?: boolean; allowEmptyValue?: boolean };
      // A schema that is a $ref is the referenced schema with the keywords beside the $ref applied
      // too (OpenAPI 3.1; the validator is given them as allOf, service-app.ts refSiblingsAsAllOf).
      // Merged into one object only where no keyword is on both sides: there allOf would apply
      // both, and a merge would keep one, so such a parameter is the validator's.
      const { $ref, ...besideRef } = (p.schema ?? {}) as JsonSchema & { $ref?: string };
      const referenced = $ref ? (lookupRef(doc, $ref) as JsonSchema) : undefined;
      if (referenced && Object.keys(besideRef).some((keyword) => keyword in referenced)) return null;
      const schema = (referenced ? { ...referenced, ...besideRef } : p.schema) as JsonSchema | undefined;
      // Only scalar parameters in their default style are modelled; the rest is the validator's.
      const defaultStyle = p.in === 'query' ? 'form' : 'simple';
      if (!schema || p.content || p.in === 'cookie' || p.allowEmptyValue) return null;
      if ((p.style ?? defaultStyle) !== defaultStyle || (p.explode ?? p.in === 'query') !== (p.in === 'query')) return null;
      if (schema.type === 'array' || schema.type === 'object' || schema.allOf || schema.oneOf || schema.anyOf) return null;
      const field = p.in === 'query' ? 'query' : p.in === 'header' ? 'headers' : 'params';
      const name = p.in === 'header' ? p.name.toLowerCase() : p.name;
      const part = (parts[field] = { type: 'object', properties: {}, ...parts[field] }) as { properties: Record<string, unknown>; required?: string[] };
      part.properties[name] = schema;
      if (p.required) part.required = [...(part.required ?? []), name];
      if (p.in === 'query') {
        queryNames.add(name);
        if (p.allowReserved) reservedAllowed.add(name);
      }
    }
    const requestBody = deref(operation.requestBody) as { required?: boolean; content?: Record<string, { schema?: JsonSchema }> } | undefined;
    const bodySchema = requestBody?.content?.['application/json']?.schema;
    if (requestBody && (!bodySchema || Object.keys(requestBody.content!).length !== 1)) return null;
    if (!knowsFormats(parts, bodySchema)) return null;
    const { general, body } = ajvs();
    // The shapes of the validator's Validator._schemaGeneral and _schemaBody, with the components
    // beside them so that every $ref resolves as it does there.
    const generalValidate = general.compile({ components: doc.components, required: ['query', 'headers', 'params'], properties: { ...parts, body: {} } });
    let bodyValidate: AjvValidate | undefined;
    if (requestBody) {
      bodyValidate = body.compile({
        components: doc.components,
        properties: { query: {}, headers: {}, params: {}, cookies: {}, body: bodySchema },
        ...(requestBody.required ? { required: ['body'] } : {}),
      });
    }
    return { general: generalValidate, body: bodyValidate, queryNames, reservedAllowed };
  }

  const counts = { accepted: 0, handedOn: 0 };
  function accepts(req: Request, operationId: string, pathParams: Record<string, string>): boolean {
    let operation = compiled.get(operationId);
    if (operation === undefined) compiled.set(operationId, (operation = compile(operationId)));
    const query = operation ? queryOf(req, operation) : undefined;
    if (!operation || !query || !operation.general({ query, headers: req.headers, params: { ...pathParams } }) || (operation.body && !operation.body({ body: req.body }))) {
      counts.handedOn++;
      return false;
    }
    // Where the validator leaves the query it validated (coerced, with defaults): an own property.
    if (operation.queryNames.size) Object.defineProperty(req, 'query', { value: query, writable: true, enumerable: true, configurable: true });
    counts.accepted++;
    return true;
  }
  return { accepts, counts };
}

/**
 * A copy of the parsed query when every value is a plain non-empty string of a declared parameter
 * with no reserved character the validator would refuse; undefined when the request is not one
 * this module models.
 */
function queryOf(req: Request, operation: CompiledOperation): Record<string, unknown> | undefined {
  const at = req.originalUrl.indexOf('?');
  if (at === -1 || at === req.originalUrl.length - 1) return {};
  if (!operation.queryNames.size) return undefined;
  // The validator checks the raw, undecoded value (its parseQueryStringUndecoded: split on & and =).
  for (const pair of req.originalUrl.slice(at + 1).split('&')) {
    const [name = '', value] = pair.split('=');
    if (!operation.queryNames.has(name) || value === undefined || value === '') return undefined;
    if (!operation.reservedAllowed.has(name) && RESERVED_CHARS.test(value)) return undefined;
  }
  const parsed = req.query as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(parsed)) {
    const value = parsed[name];
    if (typeof value !== 'string' || value === '' || !operation.queryNames.has(name)) return undefined;
    copy[name] = value;
  }
  return copy;
}
