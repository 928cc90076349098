/** A stand-in Minds service that answers getMind with the spec's example and nothing else: isolates the gateway's forwarding cost. */
import { createServer } from 'node:http';
import { openapiDocument } from '@gateway-minds/contract/document';

const mind = JSON.stringify((openapiDocument.components as { examples: Record<string, { value: unknown }> }).examples.MindReady!.value);
createServer((req, res) => {
  const body = req.url === '/healthz' ? '{"status":"ok"}' : mind;
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));

// Exit cleanly on a signal so that --cpu-prof can write its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
