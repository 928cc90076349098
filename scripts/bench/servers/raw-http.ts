/** The physical limit: Node's http answering a fixed JSON body. */
import { createServer } from 'node:http';

const body = JSON.stringify({ object: 'principal', kind: 'api_key', org: 'org_bench', principal: 'key_bench', scopes: ['minds:read'] });
createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));

// Exit cleanly on a signal so that --cpu-prof can write its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
