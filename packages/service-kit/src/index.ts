export { ApiError, envelopeOf, errorHeaders, type ApiErrorDetails, type ValidationIssue } from './errors.js';
export { newRequestId, newPrefixedId } from './request-id.js';
export { createLogger, type Logger } from './logger.js';
export { createOperationRouter, type OperationRouter, type RouteMatch } from './operation-router.js';
export { byteLimitViolations } from './byte-limits.js';
export { createServiceApp, requestContext, shapeError, BODY_LIMIT_BYTES, type OperationHandler, type RequestContext, type ServiceAppOptions } from './service-app.js';
export * from './assertion.js';
export { HEALTH_PATH, withSideRoutes } from './side-routes.js';
export { createContractServer, clientErrorOf, MAX_HEADER_BLOCK_BYTES, REQUEST_READ_TIMEOUT_MS, type ContractServerOptions } from './contract-server.js';
