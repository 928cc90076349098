/**
 * `npm run mock`: Prism on the bundled contract, behind a small front on MOCK_HOST:MOCK_PORT
 * (default 127.0.0.1:4010). Every operation answers with the spec's named examples (the first one
 * by default); `Prefer: code=404` or `Prefer: example=<name>` selects another.
 *
 * Prism itself listens on a free port of 127.0.0.1 and the front passes every request to it and
 * its answer back, changed only where the two mocks must agree and Prism alone would not
 * (spec/DECISIONS.md, "Mocks for front-end teams"):
 * - where Prism answers a selection that names no example with its bare `application/problem+json`
 *   (404 or 500), which names none, the MSW handlers' very answer (their misusedSelectionResponse): the
 *   error envelope listing every example;
 * - with DOCS_BASE_URL set, every `docs_url` (errors, the error catalog) points into that docs
 *   site, as the MSW handlers' `docsBaseUrl` makes theirs.
 * Prism's own lines are passed on with its port written as the front's. MOCK_DOCUMENT serves another
 * bundled document (`npm run dev`'s copy, which Prism reloads when it changes).
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
// MOCK_DOCUMENT: another bundled document to serve; `npm run dev` points it at a copy it rewrites
// on every good save, which Prism's own watcher reloads (it watches only the file it was given).
const specPath = process.env.MOCK_DOCUMENT || fileURLToPath(import.meta.resolve('@gateway-minds/contract/openapi.json'));
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

/** One of Prism's own answers (`application/problem+json`: a 404 for an unknown name or status, a 500 for a name the status lacks) to a request with a selection. */
function isPrismSelectionMiss(req: IncomingMessage, answer: IncomingMessage): boolean {
  return req.headers.prefer !== undefined && String(answer.headers['content-type'] ?? '').startsWith('application/problem+json');
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? `${host}:${port}`}`);
  const upstream = forward({ host: '127.0.0.1', port: prismPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    // Prism decides what it can serve (so an example a newer document adds is served as soon as Prism
    // has it); where it names no example, the MSW handlers' answer replaces its problem+json.
    const operation = isPrismSelectionMiss(req, answer) ? matchOperation(req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET'), url.pathname) : undefined;
    const misused = operation && misusedSelectionResponse(operation.operationId, new Request(url, { headers: headersOf(req) }), docsBaseUrl ? { docsBaseUrl } : {});
    if (misused) {
      answer.resume();
      // Prism's CORS headers stay, so that a page on another origin reads this answer as it reads Prism's.
      const cors = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name.startsWith('access-control-') || name === 'vary'));
      void misused.arrayBuffer().then((body) => res.writeHead(misused.status, { ...cors, ...Object.fromEntries(misused.headers), 'content-length': String(body.byteLength) }).end(Buffer.from(body)));
      return;
    }
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

const front = createServer(answer);
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
