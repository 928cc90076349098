/**
 * `npm run mock`: Prism on the bundled contract, behind a small front on MOCK_HOST:MOCK_PORT
 * (default 127.0.0.1:4010). Every operation answers with the spec's named examples (the first one
 * by default); `Prefer: code=404` or `Prefer: example=<name>` selects another.
 *
 * Prism itself listens on a free port of 127.0.0.1 and the front passes every request to it,
 * except where the two mocks must agree and Prism alone would not (spec/DECISIONS.md, "Mocks for
 * front-end teams"):
 * - a selection that names no example gets the MSW handlers' very answer (their
 *   misusedSelectionResponse): the error envelope listing every example, where Prism answers a
 *   bare `application/problem+json` 404 that names none;
 * - with DOCS_BASE_URL set, every `docs_url` (errors, the error catalog) points into that docs
 *   site, as the MSW handlers' `docsBaseUrl` makes theirs.
 * Prism's own lines are passed on with its port written as the front's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { matchOperation } from '@gateway-minds/client';
import { misusedSelectionResponse } from '@gateway-minds/msw';

const require = createRequire(import.meta.url);
const specPath = fileURLToPath(import.meta.resolve('@gateway-minds/contract/openapi.json'));
const prismBin = join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist/index.js');

const port = Number(process.env.MOCK_PORT ?? '4010');
const host = process.env.MOCK_HOST ?? '127.0.0.1';
const docsBaseUrl = process.env.DOCS_BASE_URL?.replace(/\/+$/, '') || undefined;

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  return headers;
}

/** A JSON body with every docs_url (an error's, the error catalog's) moved into DOCS_BASE_URL's site; the body as it was when it is not JSON. */
function withDocsBase(body: Buffer): Buffer {
  try {
    const moved = JSON.stringify(JSON.parse(body.toString('utf8')), (key, value: unknown) =>
      key === 'docs_url' && typeof value === 'string' ? value.replace(/^.*(?=\/errors\.html#)/, docsBaseUrl!) : value,
    );
    return Buffer.from(moved);
  } catch {
    return body;
  }
}

let prismPort = 0;

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? `${host}:${port}`}`);
  const operation = req.method === 'OPTIONS' ? undefined : matchOperation(req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET'), url.pathname);
  if (operation) {
    const misused = misusedSelectionResponse(operation.operationId, new Request(url, { headers: headersOf(req) }), docsBaseUrl ? { docsBaseUrl } : {});
    if (misused) {
      req.resume();
      // Prism's CORS headers, so that a page on another origin reads this answer as it reads Prism's.
      const origin = req.headers.origin;
      const cors = origin ? { 'access-control-allow-origin': origin, 'access-control-allow-headers': '*', 'access-control-expose-headers': '*', vary: 'Origin' } : {};
      res.writeHead(misused.status, { ...Object.fromEntries(misused.headers), ...cors }).end(Buffer.from(await misused.arrayBuffer()));
      return;
    }
  }
  const upstream = forward({ host: '127.0.0.1', port: prismPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    const json = String(answer.headers['content-type'] ?? '').includes('json');
    if (!docsBaseUrl || !json || req.method === 'HEAD') {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      return;
    }
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.on('end', () => {
      const body = withDocsBase(Buffer.concat(chunks));
      res.writeHead(answer.statusCode!, { ...answer.headers, 'content-length': String(body.length) }).end(body);
    });
  });
  upstream.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`the mock's Prism did not answer: ${error.message}\n`);
  });
  req.pipe(upstream);
}

const front = createServer((req, res) => {
  answer(req, res).catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(`mock: ${(error as Error).message}\n`);
  });
});
await new Promise<void>((resolve) => {
  front.once('error', (error) => {
    console.error(`mock: cannot listen on ${host}:${port}: ${(error as NodeJS.ErrnoException).code ?? error.message}`);
    process.exit(1);
  });
  front.listen(port, host, resolve);
});
const publicOrigin = `http://${host}:${(front.address() as AddressInfo).port}`;

// Prism's own port: free now; if it is taken before Prism binds it, Prism exits saying EADDRINUSE, and so does this.
prismPort = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address() as AddressInfo;
    probe.close(() => resolve(free));
  });
});
const prismOrigin = `http://127.0.0.1:${prismPort}`;
const prism: ChildProcess = spawn(process.execPath, [prismBin, 'mock', specPath, '--port', String(prismPort), '--host', '127.0.0.1', '--errors'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
const rewrite = () =>
  new Transform({
    transform(chunk: Buffer, _encoding, done) {
      done(null, chunk.toString('utf8').replaceAll(prismOrigin, publicOrigin));
    },
  });
prism.stdout!.pipe(rewrite()).pipe(process.stdout);
prism.stderr!.pipe(rewrite()).pipe(process.stderr);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => prism.kill(signal));
prism.on('exit', (code) => {
  front.close();
  process.exit(code ?? 0);
});
