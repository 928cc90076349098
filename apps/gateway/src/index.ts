export { startGateway, BUILT_IN_SERVICES, type Gateway } from './gateway.js';
export { loadConfig, type GatewayConfig, type UpstreamConfig } from './config.js';
export { defaultScopes } from './admin/admin-rules.js';
