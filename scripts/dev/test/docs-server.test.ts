/**
 * The loop's docs server: the built site as `npm run docs:serve` serves it, with every page
 * reloading itself when the loop has rebuilt the site (the issue: "a docs page open in a browser
 * reloads by itself"). A page's script listens on a server-sent event stream; here a client reads
 * that stream as the page's EventSource would.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveReloadPath, startDocsServer, type DocsServer } from '../src/docs-server.js';

let docs: DocsServer;
beforeAll(async () => {
  docs = await startDocsServer(0);
});
afterAll(() => docs.close());

describe('the docs site under npm run dev', () => {
  it('serves every page with the live-reload script, inside its body', async () => {
    for (const page of ['/', '/reference.html', '/errors.html']) {
      const response = await fetch(`${docs.url}${page}`);
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toContain(`new EventSource("${liveReloadPath}")`);
      expect(html.indexOf(liveReloadPath)).toBeLessThan(html.lastIndexOf('</body>'));
    }
  });

  it('serves everything else as the site does (the bundled contract, a 404 page)', async () => {
    const contract = await fetch(`${docs.url}/openapi.json`);
    expect(contract.status).toBe(200);
    expect(((await contract.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
    expect((await fetch(`${docs.url}/no-such-page.html`)).status).toBe(404);
  });

  it('tells every open page that the site was rebuilt', async () => {
    const event = await new Promise<string>((resolve, reject) => {
      const req = request(`${docs.url}${liveReloadPath}`, (res) => {
        expect(res.headers['content-type']).toBe('text/event-stream');
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes(': connected')) docs.reload();
          const found = /event: (\w+)/.exec(text);
          if (found) {
            resolve(found[1]!);
            req.destroy();
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(event).toBe('rebuilt');
  });
});
