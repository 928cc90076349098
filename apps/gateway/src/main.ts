/** Starts the gateway from the environment (see config.ts for the settings). */
import { assertionKeyFiles, createLogger, ensureAssertionKeys } from '@gateway-minds/service-kit';
import { loadConfig } from './config.js';
import { startGateway } from './gateway.js';

const config = loadConfig();
const logger = createLogger('gateway');
// A key the deployer gives is used as given; only the development default is made here.
if (!process.env.ASSERTION_PRIVATE_KEY_FILE && !config.assertionPrivateKey) await ensureAssertionKeys(assertionKeyFiles(config.dataDir));
const gateway = await startGateway(config, logger);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'gateway stopping');
    void gateway.close().then(() => process.exit(0));
  });
}
