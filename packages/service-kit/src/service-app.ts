/**
 * An Express 5 app that serves a set of contract operations:
 *
 *   HEAD as GET -> request id -> operation match (404/405) -> `authenticate` hook ->
 *   body/query shape guards -> JSON body -> request validation (the operation's
 *   compiled validators; express-openapi-validator for every request they do not
 *   pass) -> UTF-8 byte limits -> handler bound by operation id, its JSON answer
 *   checked against the contract when asked -> every error as the contract's envelope.
 *
 * Both the gateway and the services use it, so a rule lives in one place.
 */
import express, { type ErrorRequestHandler, type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { dereference, envelopeLocation, gatewayLimits, httpMethods, illFormedStrings, isJsonContentType, isWellFormedText, pruneUnreachableComponents, refusalIssue, refusalRule, type ErrorCode, type JsonSchema, type OpenApiDocument, type OperationFacts, type RefusalRuleId, unescapeSegment } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { jsonBodyReader } from './body-reader.js';
import { byteLimitViolations, hasByteLimits } from './byte-limits.js';
import { compileRequestValidation } from './compiled-request-validation.js';
import { compileResponseValidation, ResponseContractViolation } from './compiled-response-validation.js';
import { answeredByListener } from './contract-server.js';
import { ServiceError, envelopeOf, errorHeaders, refused, type ValidationIssue } from './errors.js';
import type { Logger } from './logger.js';
import { middlewareChain } from './middleware-chain.js';
import { createOperationRouter, type OperationRouter } from './operation-router.js';
import { newRequestId } from './request-id.js';
import { validatorOnFirstUse } from './validator-on-first-use.js';

/** The contract's body limit for every operation (info.x-gateway-limits.maxBodyBytes; DECISIONS.md "Limits not shown"). */
export const BODY_LIMIT_BYTES = gatewayLimits.maxBodyBytes;

export interface RequestContext {
  requestId: string;
  operation: OperationFacts;
  pathParams: Record<string, string>;
}

/** Requests that arrived as HEAD and run as the GET they mirror (headAsGet). */
const headRequests = new WeakSet<Request>();

/**
 * The method the client sent: `HEAD` for a HEAD request, which the pipeline runs as a GET
 * (`req.method` says GET then). A DPoP proof names this one (RFC 9449 §4.3: "the htm claim
 * matches the HTTP method of the current request").
 */
export function requestedMethod(req: Request): string {
  return headRequests.has(req) ? 'HEAD' : req.method;
}

/** The request's id and matched operation, set before any hook or handler runs. */
export function requestContext(res: Response): RequestContext {
  return res.locals.context as RequestContext;
}

/**
 * A bound handler. Declared as a method so that its parameters are compared both ways, and a table
 * typed by the contract (handler-table.ts, narrower requests) passes where this is asked for.
 */
export type OperationHandler = { handle(req: Request, res: Response, next: NextFunction): unknown }['handle'];

export interface ServiceAppOptions {
  /** The operations this app answers; anything else is ROUTE_NOT_FOUND / METHOD_NOT_ALLOWED. */
  operations: readonly OperationFacts[];
  /** One handler per operation id; an operation without one is a startup error. */
  handlers: Record<string, OperationHandler>;
  validateResponses: boolean;
  /** The base of every error's `docs_url`; a function when it is known only once the server listens (port 0). */
  docsBaseUrl: string | (() => string);
  logger: Logger;
  /** Runs after the operation is matched and before any body is read (authentication). */
  authenticate?: RequestHandler;
  /** Per operation id: runs after `authenticate`, before the generic shape checks (an operation's own refusal rules). */
  operationGuards?: Record<string, RequestHandler>;
  /** Runs first, before matching (the gateway's path and query rules). */
  preflight?: RequestHandler;
  /** Handles requests that match no operation of this app (the gateway forwards them). */
  unmatched?: (req: Request, res: Response, next: NextFunction, router: OperationRouter) => unknown;
  /** Headers to add to every response. */
  responseHeaders?: Record<string, string>;
  /**
   * Maps an error that is not an ServiceError to the catalog before it would become INTERNAL_ERROR:
   * a service's own knowledge of its failures (a lost database is its unavailability code).
   * Returns undefined for errors it does not know.
   */
  mapError?: (err: unknown, context: RequestContext | undefined) => ServiceError | undefined;
  /**
   * Requests valid by the operation's compiled validators skip express-openapi-validator
   * (compiled-request-validation.ts); the rest still go through it. Default true; false sends
   * every request through express-openapi-validator (the comparison the tests make).
   */
  compiledRequestValidation?: boolean;
  /**
   * Services behind the gateway reuse the gateway's request id (sent as
   * X-Request-Id) so that one id names the request end to end.
   */
  trustRequestIdHeader?: boolean;
}

const requestIdPattern = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;

function documentFor(operations: readonly OperationFacts[]): OpenApiDocument {
  const wanted = new Set(operations.map((o) => `${o.method} ${o.path}`));
  const copy = structuredClone(openapiDocument);
  for (const [path, item] of Object.entries(copy.paths)) {
    for (const method of httpMethods) {
      if (item[method] && !wanted.has(`${method} ${path}`)) delete item[method];
    }
    if (!httpMethods.some((m) => item[m])) delete copy.paths[path];
  }
  // The validator prepares every schema of the document at start-up; the gateway's own six operations use a fraction.
  pruneUnreachableComponents(copy);
  return copy;
}

/**
 * `document` for express-openapi-validator. OpenAPI 3.1 applies the keywords written beside a
 * schema's `$ref` (the usage window's `maxLength` beside its DateTime), but that validator drops
 * them on a parameter's schema; written as `allOf`, the same schema in JSON Schema's terms, it
 * applies both, as the compiled validators and the mocks do. Only the parameter lists are copied.
 */
function refSiblingsAsAllOf(document: OpenApiDocument): OpenApiDocument {
  type Parameter = { schema?: Record<string, unknown> };
  const rewrite = (parameters: Parameter[]) =>
    parameters.map((parameter) => {
      const schema = parameter.schema;
      if (!schema || typeof schema.$ref !== 'string' || Object.keys(schema).length === 1) return parameter;
      const { $ref, ...siblings } = schema;
      return { ...parameter, schema: { allOf: [{ $ref }], ...siblings } };
    });
  const withParameters = <T extends { parameters?: unknown }>(node: T): T => (node.parameters ? { ...node, parameters: rewrite(node.parameters as Parameter[]) } : node);
  const paths = Object.fromEntries(
    Object.entries(document.paths).map(([path, item]) => {
      const methods = httpMethods.filter((m) => item[m]).map((m) => [m, withParameters(item[m]!)]);
      return [path, { ...withParameters(item), ...Object.fromEntries(methods) }];
    }),
  );
  const parameters = document.components?.parameters;
  const components = parameters ? { ...document.components, parameters: Object.fromEntries(Object.entries(parameters).map(([name, p]) => [name, rewrite([p as Parameter])[0]])) } : document.components;
  return { ...document, paths, components } as OpenApiDocument;
}

/**
 * The request's shape against its operation, before any body is read: a query
 * where the operation takes none, a body on an operation without one, a
 * missing or non-JSON body where one is required.
 */
export function shapeError(req: Request, operation: OperationFacts, integerQuery: ReadonlySet<string> = new Set()): ServiceError | undefined {
  const queryAt = req.originalUrl.indexOf('?');
  const hasQuery = queryAt !== -1 && queryAt < req.originalUrl.length - 1;
  if (hasQuery && !operation.parameters.some((p) => p.in === 'query')) {
    return refused('query-not-allowed');
  }
  if (hasQuery) {
    // Checked on the raw query: the parser silently drops names such as
    // __proto__ and reads 0x10, 1e1 or Infinity as numbers.
    const declared = new Set(operation.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    let params: URLSearchParams;
    try {
      params = new URLSearchParams(req.originalUrl.slice(queryAt + 1));
    } catch {
      return refused('query-malformed');
    }
    const seen = new Set<string>();
    for (const [name, value] of params) {
      const issue = (id: RefusalRuleId) => refused(id, { errors: [refusalIssue(id, `query.${name}`.slice(0, 512))] });
      if (!declared.has(name)) return issue('query-unknown-parameter');
      if (seen.has(name)) return issue('query-repeated');
      seen.add(name);
      if (!isWellFormedText(value)) return issue('query-ill-formed-text');
      if (integerQuery.has(name) && !/^-?(0|[1-9][0-9]{0,15})$/.test(value)) return issue('query-not-decimal');
    }
  }
  if (!operation.hasRequestBody) return hasBody(req) ? refused('body-not-allowed') : undefined;
  if (!hasBody(req) || !isJsonContentType(req.headers['content-type'])) return refused('json-required');
  // A declared length over the limit is refused before any byte of the body is read
  // (the body parser would read the whole body first; DECISIONS.md "Limits not shown").
  if (Number(req.headers['content-length']) > BODY_LIMIT_BYTES) {
    return refused('payload-too-large');
  }
  return undefined;
}

/** A body read that failed because the client aborted or reset its request. */
function isClientAbort(err: { type?: string; code?: string } | undefined, req: Request): boolean {
  if (err?.type === 'request.aborted') return true;
  return req.readableAborted && (err?.code === 'ECONNRESET' || err?.type === 'stream.not.readable');
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** Where express-openapi-validator's paths say a value is, and what the envelope calls it: a parameter's OpenAPI `in`. */
const LOCATION_OF: Record<string, string> = { headers: 'header', params: 'path', query: 'query', cookies: 'cookie', body: 'body' };

/**
 * A validator path (`/headers/idempotency-key`, `/params/mind_id`, `/body/event/tags/0`) as the
 * envelope writes a location (Error.yaml, `errors`: "`body.event.content`, `query.limit`,
 * `header.idempotency-key`"): the parameter's `in` and its name, or `body` and the property path,
 * an array index in brackets as the byte-limit and text checks write it (`body.event.tags[0]`).
 */
export function issueLocation(validatorPath: string): string {
  const [where = '', ...rest] = validatorPath.replace(/^\//, '').split('/').map(unescapeSegment);
  return envelopeLocation(LOCATION_OF[where] ?? where, rest);
}

/** Per operation id, the header parameters whose schema names its own refusal code (`x-invalid-code`), by lower-case name. */
type InvalidHeaderCodes = ReadonlyMap<string, ReadonlyMap<string, ErrorCode>>;

/** Turns express-openapi-validator's errors into the catalog's codes. */
function fromValidatorError(
  err: { status: number; message: string; errors?: { path: string; message: string; errorCode?: string }[]; headers?: { Allow?: string } },
  operation?: OperationFacts,
  invalidHeaderCodes: InvalidHeaderCodes = new Map(),
): ServiceError {
  const issues: ValidationIssue[] = (err.errors ?? []).map((e) => ({ location: issueLocation(e.path), message: e.message }));
  switch (err.status) {
    case 404:
      return refused('route-not-found');
    case 405:
      // The validator's own wording names the method and the path's methods.
      return new ServiceError(refusalRule('method-not-allowed').code, err.message, { headers: err.headers?.Allow ? { Allow: err.headers.Allow } : {} });
    case 413:
      return refused('payload-too-large');
    case 415:
      return refused('json-required');
    case 400: {
      const first = issues[0]?.location ?? '';
      const firstIn = (where: string) => first === where || first.startsWith(`${where}.`);
      if (firstIn('header')) {
        const missing = operation?.parameters.find(
          (p) => p.in === 'header' && p.missingCode && issues.some((i) => i.location === `header.${p.name.toLowerCase()}` && /required/i.test(i.message)),
        );
        if (missing) return refused('header-missing', { values: { name: missing.name }, ownCode: missing.missingCode, errors: issues });
        const ownCode = invalidHeaderCodes.get(operation?.operationId ?? '')?.get(first.slice('header.'.length));
        if (ownCode) return refused('header-invalid-own-code', { values: { name: first.slice('header.'.length) }, ownCode, errors: issues });
        return refused('header-invalid', { errors: issues });
      }
      if (firstIn('query')) return refused('query-invalid', { errors: issues });
      if (firstIn('path')) return refused('path-invalid', { errors: issues });
      return refused('body-invalid', { errors: issues });
    }
    default:
      // Only 4xx reach here (the caller answers anything else as INTERNAL_ERROR).
      return new ServiceError('INTERNAL_ERROR', 'An unexpected error occurred.', { reason: 'validator_error' });
  }
}

export function createServiceApp(options: ServiceAppOptions): Express {
  const { operations, handlers, logger, docsBaseUrl } = options;
  for (const operation of operations) {
    if (!handlers[operation.operationId]) throw new Error(`no handler for operation ${operation.operationId}`);
  }
  for (const operationId of Object.keys(handlers)) {
    if (!operations.some((o) => o.operationId === operationId)) throw new Error(`handler for unknown operation ${operationId}`);
  }

  const router = createOperationRouter(operations);
  const document = documentFor(operations);
  const requestSchemas = new Map<string, JsonSchema | undefined>();
  const integerQuery = new Map<string, Set<string>>();
  const invalidHeaderCodes = new Map<string, Map<string, ErrorCode>>();
  const dereferenced = dereference(structuredClone(document));
  for (const item of Object.values(dereferenced.paths)) {
    for (const method of httpMethods) {
      const op = item[method];
      if (!op) continue;
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (hasByteLimits(schema)) requestSchemas.set(op.operationId, schema);
      const integers = [...(item.parameters ?? []), ...(op.parameters ?? [])].filter((p) => p.in === 'query' && p.schema?.type === 'integer').map((p) => p.name);
      integerQuery.set(op.operationId, new Set(integers));
      const ownCodes = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .filter((p) => p.in === 'header' && typeof p.schema?.['x-invalid-code'] === 'string')
        .map((p) => [p.name.toLowerCase(), p.schema!['x-invalid-code'] as ErrorCode] as const);
      if (ownCodes.length) invalidHeaderCodes.set(op.operationId, new Map(ownCodes));
    }
  }

  const responseHeaders = Object.entries(options.responseHeaders ?? {});
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');

  // RFC 9110 §9.3.2: HEAD is answered wherever GET is, with GET's status and headers and no body.
  // The request runs as the GET it mirrors (operation match, validation, handler); Node already
  // leaves the body out of a response to a HEAD request, and Express keeps GET's Content-Length.
  const headAsGet: RequestHandler = (req, _res, next) => {
    if (req.method === 'HEAD') {
      headRequests.add(req);
      req.method = 'GET';
    }
    next();
  };
  const assignRequestId: RequestHandler = (req, res, next) => {
    const offered = req.headers['x-request-id'];
    const requestId = options.trustRequestIdHeader && typeof offered === 'string' && requestIdPattern.test(offered) ? offered : newRequestId();
    res.locals.context = { requestId } as RequestContext;
    res.setHeader('X-Request-Id', requestId);
    for (const [name, value] of responseHeaders) res.setHeader(name, value);
    next();
  };
  const matchOperation: RequestHandler = (req, res, next) => {
    const match = router.match(req.method, req.path);
    if (match.kind === 'operation') {
      Object.assign(res.locals.context as RequestContext, { operation: match.operation, pathParams: match.pathParams });
      if (match.malformed) return next(refused('path-malformed-encoding'));
      return next();
    }
    if (options.unmatched && match.kind === 'not-found') return options.unmatched(req, res, next, router);
    if (match.kind === 'method-not-allowed') {
      return next(refused('method-not-allowed', { values: { method: req.method }, headers: { Allow: match.allow.join(', ') } }));
    }
    return next(refused('route-not-found'));
  };
  const operationGuard: RequestHandler = (req, res, next) => {
    const guard = options.operationGuards?.[requestContext(res).operation.operationId];
    return guard ? guard(req, res, next) : next();
  };
  const checkShape: RequestHandler = (req, res, next) => {
    const { operation } = requestContext(res);
    next(shapeError(req, operation, integerQuery.get(operation.operationId)));
  };
  // Refused at the limit while the body streams, never after reading it whole (body-reader.ts).
  const parseJson = jsonBodyReader(BODY_LIMIT_BYTES);
  const checkBodyText: RequestHandler = (req, _res, next) => {
    const issues = req.body === undefined ? [] : illFormedStrings(req.body, 'body');
    return issues.length ? next(refused('body-ill-formed-text', { errors: issues })) : next();
  };

  const validatorOptions = {
    apiSpec: refSiblingsAsAllOf(document) as never,
    validateApiSpec: false,
    // Full format checks: a date-time must be a real date (no February 30th, no hour 25).
    validateFormats: true,
    ajvFormats: { mode: 'full' },
    validateRequests: { allErrors: true, allowUnknownQueryParameters: false },
    // Answers are checked by compiled-response-validation.ts, not by this validator.
    validateResponses: false,
    validateSecurity: false,
    // No operation takes multipart bodies: skip the per-request upload middleware.
    fileUploader: false,
    ignoreUndocumented: false,
    // The operation is already matched (matchOperation): dispatch binds its handler by operation id
    // instead of the validator's own router, which matched every request against every route again.
    operationHandlers: false,
  } as const;
  const validator = validatorOnFirstUse(validatorOptions, () => OpenApiValidator.middleware({ ...validatorOptions, validateRequests: { ...validatorOptions.validateRequests } }) as unknown as RequestHandler[]);
  app.locals.validator = validator;
  const wholeValidator = validator.whole;
  const compiled = options.compiledRequestValidation === false ? undefined : compileRequestValidation(document);
  app.locals.compiledRequestValidation = compiled?.counts;
  const responseCheck = options.validateResponses ? compileResponseValidation(document) : undefined;
  app.locals.responseCheck = responseCheck?.counts;
  // Only a valid request's answer is checked: a refusal is the pipeline's own envelope.
  const watchAnswer: RequestHandler = (_req, res, next) => {
    responseCheck?.watch(res, next, requestContext(res).operation.operationId);
    next();
  };
  const validateRequest: RequestHandler = (req, res, next) => {
    const { operation, pathParams } = requestContext(res);
    if (!compiled?.accepts(req, operation.operationId, pathParams)) return wholeValidator(req, res, (error?: unknown) => (error ? next(error) : watchAnswer(req, res, next)));
    return watchAnswer(req, res, next);
  };

  const handlerOf = new Map<string, RequestHandler>();
  for (const operation of operations) {
    const handler = handlers[operation.operationId]! as RequestHandler;
    const schema = requestSchemas.get(operation.operationId);
    handlerOf.set(
      operation.operationId,
      schema
        ? (req, res, next) => {
            const issues = byteLimitViolations(schema, req.body);
            if (issues.length) return next(refused('body-over-byte-limit', { errors: issues }));
            return handler(req, res, next);
          }
        : handler,
    );
  }
  const dispatch: RequestHandler = (req, res, next) => handlerOf.get(requestContext(res).operation.operationId)!(req, res, next);

  // The whole pipeline, in order, as one Express layer (middleware-chain.ts says why).
  app.use(
    middlewareChain(headAsGet, assignRequestId, options.preflight, matchOperation, options.authenticate, operationGuard, checkShape, parseJson, checkBodyText, validateRequest, dispatch),
  );

  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    const context = res.locals.context as RequestContext | undefined;
    if (answeredByListener.has(req.socket)) return; // the listener answered already (a read deadline passed)
    if (isClientAbort(err, req)) {
      // The client went away mid-request: nothing to answer and nothing wrong with the server.
      logger.info({ requestId: context?.requestId, operationId: context?.operation?.operationId, received: err?.received, expected: err?.expected }, 'client aborted the request');
      return;
    }
    const mapped = err instanceof ServiceError ? undefined : options.mapError?.(err, context);
    let error: ServiceError;
    if (err instanceof ServiceError) {
      error = err;
    } else if (mapped) {
      error = mapped;
      logger.warn({ err, requestId: context?.requestId, operationId: context?.operation?.operationId }, `answered ${mapped.code}`);
    } else if (err?.type === 'entity.parse.failed') {
      error = refused('body-not-json');
    } else if (err?.type === 'entity.verify.failed') {
      error = refused('body-not-utf8');
    } else if (err?.type === 'entity.too.large') {
      error = refused('payload-too-large');
    } else if (err?.type === 'encoding.unsupported' || err?.type === 'charset.unsupported') {
      error = refused('body-encoding-unsupported');
    } else if (typeof err?.status === 'number' && err.status < 500 && Array.isArray(err.errors)) {
      error = fromValidatorError(err, context?.operation, invalidHeaderCodes);
    } else {
      const contractViolation = err instanceof ResponseContractViolation;
      logger.error({ err, requestId: context?.requestId, operationId: context?.operation?.operationId }, contractViolation ? 'response broke the contract' : 'unexpected error');
      error = new ServiceError('INTERNAL_ERROR', 'An unexpected error occurred. Quote the request id when reporting it.', {
        reason: contractViolation ? 'response_contract_violation' : 'unexpected',
      });
    }
    if (res.headersSent) return res.end();
    // A body left unread (refused before reading it) is not drained: the connection closes after the answer.
    if (hasBody(req) && !req.complete) res.setHeader('Connection', 'close');
    const requestId = context?.requestId ?? newRequestId();
    res.status(error.status).set(errorHeaders(error, context?.operation)).json(envelopeOf(error, requestId, typeof docsBaseUrl === 'function' ? docsBaseUrl() : docsBaseUrl));
  };
  app.use(onError);
  return app;
}
