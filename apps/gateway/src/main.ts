/** Starts the gateway from the environment (see config.ts for the settings). */
import { assertionKeyFiles, createLogger, ensureAssertionKeys } from '@gateway-minds/service-kit';
import { loadConfig } from './config.js';
import { startGateway } from './gateway.js';

const config = loadConfig();
const logger = createLogger('gateway');
if (!process.env.ASSERTION_PRIVATE_KEY_FILE) await ensureAssertionKeys(assertionKeyFiles(config.dataDir));
const gateway = await startGateway(config, logger);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'gateway stopping');
    void gateway.close().then(() => process.exit(0));
  });
}
