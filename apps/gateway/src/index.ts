export { startGateway, BUILT_IN_SERVICES, type Gateway } from './gateway.js';
export { loadConfig, type GatewayConfig, type UpstreamConfig } from './config.js';
export { defaultScopes } from './admin/admin-rules.js';
/** The gateway's own request rules, for suites that compare its refusals with the MSW handlers'. */
export { gatewayPreflight } from './routing/preflight.js';
export { usageReadGuard } from './routes/gateway-routes.js';
