/**
 * The stack in one process: the Minds service and the gateway, as Loki or Mimir run every component
 * in one binary on one machine. The gateway still forwards through its one path — the signed
 * assertion, the relay error mapping, the checks on the answer — to the service's own HTTP
 * listener, over connections in memory instead of loopback TCP (service-kit's in-process-transport.ts).
 * Each reads its settings as its own process would (apps/gateway config.ts, apps/minds config.ts).
 */
import { loadConfig, startGateway } from '@gateway-minds/gateway';
import { configFromEnv, createMindsService, type MindsService } from '@gateway-minds/minds';
import { createLogger, type Connector } from '@gateway-minds/service-kit';
import type { StackSettings } from './settings.js';

export interface RunningStack {
  url: string;
  close(): Promise<void>;
}

export async function startAllInOne(settings: StackSettings, env: NodeJS.ProcessEnv = process.env): Promise<RunningStack> {
  const shared = { ...env, DATA_DIR: settings.dataDir, DOCS_BASE_URL: settings.docsBaseUrl };
  const { service: mindsConfig } = configFromEnv({ ...shared, IAM_INTERNAL_URL: `http://127.0.0.1:${settings.adminPort}` });
  // Both open their databases at once; a request forwarded before the service is ready waits for it.
  const minds = createMindsService({ ...mindsConfig, logger: createLogger('minds') });
  const connect: Connector = (options, callback) => {
    minds.then(
      (service) => service.serveInProcess().connect(options, callback),
      (error: Error) => callback(error, null),
    );
  };
  const gatewayConfig = loadConfig({ ...shared, PORT: settings.gatewayPort, ADMIN_PORT: settings.adminPort });
  // The URL only names the service now (the Host header it receives): nothing dials it.
  gatewayConfig.upstreams = gatewayConfig.upstreams.map((upstream) => (upstream.name === 'minds' ? { ...upstream, urls: ['http://minds.in-process'], connect } : upstream));
  const [mindsStarted, gatewayStarted] = await Promise.allSettled([minds, startGateway(gatewayConfig, createLogger('gateway'))]);
  if (mindsStarted.status === 'rejected' || gatewayStarted.status === 'rejected') {
    if (gatewayStarted.status === 'fulfilled') await gatewayStarted.value.close();
    if (mindsStarted.status === 'fulfilled') await mindsStarted.value.close();
    const [name, reason] = mindsStarted.status === 'rejected' ? ['Minds service', mindsStarted.reason] : ['gateway', (gatewayStarted as PromiseRejectedResult).reason];
    throw new Error(`the ${name} did not start: ${(reason as Error).message}`, { cause: reason });
  }
  const service: MindsService = mindsStarted.value;
  const gateway = gatewayStarted.value;
  return {
    url: gateway.url,
    async close() {
      await gateway.close();
      await service.close();
    },
  };
}
