/**
 * Bare Express 5 as the services run it: the same app as bare-express.ts, on a server whose
 * requests and responses are born with the app's prototypes (service-kit's serverClassesFor), so
 * that Express's per-request setPrototypeOf changes nothing. The stricter yardstick: what Express
 * itself costs once that is out of the way.
 */
import { createServer } from 'node:http';
import express from 'express';
import { operationTable } from '@gateway-minds/contract';
import { serverClassesFor } from '@gateway-minds/service-kit';

const body = { object: 'principal', kind: 'api_key', org: 'org_bench', principal: 'key_bench', scopes: ['minds:read'] };
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get(operationTable.gateway_getPrincipal.path, (_req, res) => {
  res.json(body);
});
createServer(serverClassesFor(app), app).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));

// Exit cleanly on a signal so that --cpu-prof can write its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
