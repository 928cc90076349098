/**
 * The framework's ceiling: a bare Express 5 app answering the same fixed JSON.
 * PROTOTYPES_SET_ONCE=true serves it as the services do: on a server whose requests and responses
 * are born with the app's prototypes (service-kit's serverClassesFor), so that Express's
 * per-request setPrototypeOf changes nothing. The stricter yardstick: Express without that cost.
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
const server = process.env.PROTOTYPES_SET_ONCE === 'true' ? createServer(serverClassesFor(app), app) : createServer(app);
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));

// Exit cleanly on a signal so that --cpu-prof can write its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
