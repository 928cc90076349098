/** Runs the Minds service from the environment (see config.ts). */
import { createLogger } from '@gateway-minds/service-kit';
import { configFromEnv } from './config.js';
import { createMindsService } from './service.js';

const logger = createLogger('minds');
const { listen, service: config } = configFromEnv();
const service = await createMindsService({ ...config, logger });
const { url } = await service.listen(listen.port, listen.host);
logger.info({ url, database: config.databaseUrl ? 'postgres' : 'pglite' }, 'Minds service listening');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
