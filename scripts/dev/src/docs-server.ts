/**
 * The docs site as `npm run docs:serve` serves it (the docs package's own site handler), plus live
 * reload: every HTML page gets a small script that listens on a server-sent event stream and
 * reloads the page when the loop has rebuilt the site. The site's CSP already allows an inline
 * script and a same-origin connection, so the page is served unchanged otherwise.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { docsSiteDir, setSiteHeaders, siteHandler } from '@gateway-minds/docs';
import { repoRoot } from './paths.js';

/** Where a page listens for "rebuilt": outside anything the site itself has. */
export const liveReloadPath = '/__dev/live-reload';
const liveReloadScript = `<script>(function () { var source = new EventSource(${JSON.stringify(liveReloadPath)}); source.addEventListener('rebuilt', function () { location.reload(); }); })();</script>`;

/** The site page a request names, if it names one: `/` and folders are their index.html. */
function htmlPageOf(url: string): string | undefined {
  const pathname = decodeURIComponent(url.split('?', 1)[0]!);
  const page = pathname.endsWith('/') ? `${pathname}index.html` : pathname;
  if (!page.endsWith('.html')) return undefined;
  const file = normalize(join(docsSiteDir, page));
  return file.startsWith(docsSiteDir) && existsSync(file) ? file : undefined;
}

export interface DocsServer {
  url: string;
  /** Tells every open page to reload. */
  reload(): void;
  close(): Promise<void>;
}

export async function startDocsServer(port: number, host = '127.0.0.1'): Promise<DocsServer> {
  const serveSite = siteHandler(docsSiteDir);
  const listeners = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (url === liveReloadPath) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
      res.write(': connected\n\n');
      listeners.add(res);
      req.on('close', () => listeners.delete(res));
      return;
    }
    const page = req.method === 'GET' ? htmlPageOf(url) : undefined;
    if (page) {
      void readFile(page, 'utf8').then(
        (html) => {
          const body = html.includes('</body>') ? html.replace('</body>', `${liveReloadScript}</body>`) : html + liveReloadScript;
          setSiteHeaders(res, page);
          res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(body);
        },
        () => serveSite(req, res),
      );
      return;
    }
    if (!serveSite(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: listening } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${listening}`,
    reload() {
      for (const res of listeners) res.write('event: rebuilt\ndata: {}\n\n');
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of listeners) res.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Rebuilds the site from the contract just built: the docs package's site build
 * (apps/docs/scripts/build-site.ts), the second half of its turbo `build` (the first compiles the
 * package's own server code, which a spec change does not touch).
 */
export function buildDocsSite(): Promise<{ ok: true } | { ok: false; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'apps/docs/scripts/build-site.ts')], {
      cwd: join(repoRoot, 'apps/docs'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve(code === 0 ? { ok: true } : { ok: false, output }));
  });
}
