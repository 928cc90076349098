/**
 * A small static file server for the built site (node:http only): used by
 * `npm run docs:serve` and the browser test, and usable by the gateway to
 * serve the site under a prefix (`/docs`).
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.yaml': 'application/yaml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Answers a GET or HEAD for a file under `root` (`/` and folders answer their
 * index.html). `prefix` is the path the site is mounted at (`/docs`). Returns
 * false, having written nothing, when the request is not for the site, so a
 * caller can fall through to its own routes; a missing file under the prefix is 404.
 */
export async function serveStatic(root: string, req: IncomingMessage, res: ServerResponse, prefix = ''): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return notFound(res, root);
  }
  if (prefix) {
    if (pathname === prefix) {
      res.writeHead(301, { Location: `${prefix}/` }).end();
      return true;
    }
    if (!pathname.startsWith(`${prefix}/`)) return false;
    pathname = pathname.slice(prefix.length);
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return true;
  }
  const relative = normalize(pathname).replace(/^([/\\])+/, '');
  if (relative.split(sep).includes('..') || pathname.includes('\0')) return notFound(res, root);
  let file = join(root, relative);
  let info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    file = join(file, 'index.html');
    info = await stat(file).catch(() => null);
  }
  if (!info?.isFile()) return notFound(res, root);
  res.writeHead(200, {
    'Content-Type': contentTypes[extname(file)] ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
  if (req.method === 'HEAD') res.end();
  else createReadStream(file).pipe(res);
  return true;
}

/** 404, with the site's own 404.html when it has one (as GitHub Pages answers), else a line of text. */
async function notFound(res: ServerResponse, root: string): Promise<true> {
  const page = await readFile(join(root, '404.html')).catch(() => undefined);
  if (page) res.writeHead(404, { 'Content-Type': contentTypes['.html']!, 'Content-Length': page.length, 'Cache-Control': 'no-cache' }).end(page);
  else res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
  return true;
}

export interface StaticServer {
  /** Base URL of the site, prefix included, without a trailing slash: `http://127.0.0.1:8082`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `root` on host:port (port 0 picks a free one), at `prefix` (`/docs`,
 * as the gateway mounts it) or at the root.
 */
export async function startStaticServer(options: { root: string; host?: string; port?: number; prefix?: string }): Promise<StaticServer> {
  const host = options.host ?? '127.0.0.1';
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const server = createServer((req, res) => {
    serveStatic(options.root, req, res, prefix)
      .then((served) => {
        if (!served) res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${prefix}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
