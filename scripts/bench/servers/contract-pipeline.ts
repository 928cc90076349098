/**
 * One rung of the layer ladder: minds_getMind served by service-kit's contract
 * pipeline with a handler that answers the spec's own example, so that only the
 * pipeline's cost is measured. VALIDATE_RESPONSES=true|false picks the rung;
 * ASSERTION_PUBLIC_KEY_FILE adds the gateway assertion check the services run
 * (requireGatewayAssertion, as the Minds service installs it).
 */
import { readFileSync } from 'node:fs';
import type { JWK } from 'jose';
import { operationTable } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { createContractServer, createLogger, createServiceApp, importAssertionKey, requireGatewayAssertion } from '@gateway-minds/service-kit';
import { SERVICE_AUDIENCE } from '@gateway-minds/minds/internals';

const example = (openapiDocument.components as { examples: Record<string, { value: unknown }> }).examples.MindReady!.value;
const keyFile = process.env.ASSERTION_PUBLIC_KEY_FILE;
const authenticate = keyFile ? requireGatewayAssertion(await importAssertionKey(JSON.parse(readFileSync(keyFile, 'utf8')) as JWK), SERVICE_AUDIENCE) : undefined;
const app = createServiceApp({
  operations: [operationTable.minds_getMind],
  handlers: { minds_getMind: (_req, res) => void res.json(example) },
  validateResponses: process.env.VALIDATE_RESPONSES === 'true',
  docsBaseUrl: 'http://127.0.0.1/docs',
  logger: createLogger('bench'),
  authenticate,
});
// On the listener the services run (createContractServer, with the app's request and response prototypes).
createContractServer(app, { logger: createLogger('bench'), docsBaseUrl: 'http://127.0.0.1/docs', app }).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));

// Exit cleanly on a signal so that --cpu-prof can write its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
