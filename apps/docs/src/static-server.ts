/**
 * The static server of the built site: `npm run docs:serve` and the browser test use it, at the
 * root or under a prefix (`/docs`, as the gateway mounts the site). Files go out through
 * serve-static, the library behind express.static, which the gateway uses for the same folder, so
 * both answer alike: an ETag and Last-Modified on every file, a conditional request answered 304
 * (RFC 9110 §13.1), byte ranges, a folder without its slash redirected, 405 with Allow for any
 * method but GET and HEAD. What the site does not have gets its own 404.html, as GitHub Pages does.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import serveStaticFiles from 'serve-static';

/**
 * The headers of every file of the site, for serve-static's and express.static's `setHeaders`
 * (the gateway serves the site with them too). Every answer is revalidated, cheaply with its
 * ETag, so a rebuilt site is seen at once; YAML is application/yaml (RFC 9512), where the mime
 * table still says text/yaml.
 */
export function setSiteHeaders(res: ServerResponse, path: string): void {
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (path.endsWith('.yaml')) res.setHeader('Content-Type', 'application/yaml; charset=utf-8');
}

/**
 * The handler of requests for the site in `root` (`/` and folders answer their index.html),
 * mounted at `prefix` (`/docs`) or at the root. It returns false, having written nothing, for a
 * request that is not for the site, so a caller can fall through to its own routes.
 */
export function siteHandler(root: string, prefix = ''): (req: IncomingMessage, res: ServerResponse) => boolean {
  const files = serveStaticFiles(root, { index: ['index.html'], fallthrough: false, cacheControl: false, setHeaders: setSiteHeaders });
  return (req, res) => {
    const url = req.url ?? '/';
    const pathname = url.split('?', 1)[0]!;
    if (prefix) {
      if (pathname === prefix) {
        res.writeHead(301, { Location: `${prefix}/` }).end();
        return true;
      }
      if (!pathname.startsWith(`${prefix}/`)) return false;
    }
    // serve-static reads the path below the mount from req.url, and redirects a folder to originalUrl plus its slash.
    const mounted = Object.assign(req, { originalUrl: url, url: url.slice(prefix.length) });
    files(mounted, res, (error?: { status?: number; statusCode?: number }) => {
      const status = error?.status ?? error?.statusCode ?? 500;
      // A missing file, a path that would leave the site (403) and a malformed one (400) are all "no such page".
      if (status === 404 || status === 403 || status === 400) void notFound(res, root);
      else if (!res.headersSent) res.writeHead(status).end();
      else res.destroy();
    });
    return true;
  };
}

/** 404, with the site's own 404.html when it has one (as GitHub Pages answers), else a line of text. */
async function notFound(res: ServerResponse, root: string): Promise<void> {
  const page = await readFile(join(root, '404.html')).catch(() => undefined);
  if (page) res.writeHead(404, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': page.length, 'Cache-Control': 'no-cache' }).end(page);
  else res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
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
  const serveSite = siteHandler(options.root, prefix);
  const server = createServer((req, res) => {
    if (!serveSite(req, res)) res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
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
