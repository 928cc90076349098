/**
 * The built site, opened in a real Chromium (the system's, or the one
 * @sparticuz/chromium ships: @gateway-minds/browser-testing) driven by playwright-core and served
 * the way the gateway serves it, under /docs: every operation and every error
 * code is there, every `docs_url` the servers emit lands on an existing anchor,
 * `reference.html#operation/<id>` and every sidebar link open without a 404, the
 * error catalog fits a 1280 px window, and no request leaves 127.0.0.1. A browser that cannot start is a failure,
 * not a skip.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { errorCatalog, errorCodes, errorDocsUrl, operationIds, operationTable, type ErrorCode, type OperationId } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsSiteDir, externalResourceUrls, startStaticServer, type StaticServer } from '../src/index.js';
import { launchChromium } from '@gateway-minds/browser-testing';

const resultsDir = join(import.meta.dirname, '../.test-results');
/** Where the gateway mounts the site; DOCS_BASE_URL is `<gateway>/docs`. */
const mountPath = '/docs';

let server: StaticServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const requested: string[] = [];
const failedResponses: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  expect(existsSync(join(docsSiteDir, 'index.html')), `no built site at ${docsSiteDir}: run npm run build`).toBe(true);
  mkdirSync(resultsDir, { recursive: true });
  server = await startStaticServer({ root: docsSiteDir, prefix: mountPath });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.on('request', (request) => requested.push(request.url()));
  context.on('response', (response) => {
    if (response.status() >= 400) failedResponses.push(`${response.status()} ${response.url()}`);
  });
  context.on('requestfailed', (request) => failedResponses.push(`failed ${request.url()}: ${request.failure()?.errorText}`));
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Turbo's hash of the docs build, from a dry run (nothing is built), in the repository this package sits in. */
function docsBuildHash(env: Record<string, string> = {}): string {
  const turbo = join(dirname(createRequire(import.meta.url).resolve('turbo/package.json')), 'bin/turbo');
  const dry = execFileSync(process.execPath, [turbo, 'run', 'build', '--filter=@gateway-minds/docs', '--dry=json'], {
    cwd: join(import.meta.dirname, '../../..'),
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', ...env },
    encoding: 'utf8',
  });
  return (JSON.parse(dry) as { tasks: { taskId: string; hash: string }[] }).tasks.find((t) => t.taskId === '@gateway-minds/docs#build')!.hash;
}

/** Per page, the links of its site navigation, in order. */
const navLinks = Object.fromEntries(
  ['index.html', 'reference.html', 'errors.html', 'changelog.html', '404.html'].map((file) => {
    const nav = /<nav class="gm-nav"[^>]*>([\s\S]*?)<\/nav>/.exec(readFileSync(join(docsSiteDir, file), 'utf8'))?.[1] ?? '';
    return [file, [...nav.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1])];
  }),
);

describe('the built folder', () => {
  it('has the pages and the bundled contract', () => {
    const files = readdirSync(docsSiteDir);
    for (const file of ['index.html', 'reference.html', 'errors.html', 'changelog.html', '404.html', 'openapi.json', 'openapi.yaml', 'style.css']) {
      expect(files, file).toContain(file);
    }
    // The API changelog: linked from every page, the reference included; its entries need the git history CI provides.
    for (const [file, links] of Object.entries(navLinks)) {
      expect(links, file).toEqual(['index.html', 'reference.html', 'errors.html', 'changelog.html', 'openapi.json']);
    }
    expect(readFileSync(join(docsSiteDir, 'changelog.html'), 'utf8')).toContain('<h1>Changelog</h1>');
    const published = JSON.parse(readFileSync(join(docsSiteDir, 'openapi.json'), 'utf8')) as unknown;
    expect(published).toEqual(openapiDocument);
  });

  // README, "Settings", SPEC_CHANGELOG_JSON: the published Changelog page shows the history CI writes before `npm run docs`.
  // Turbo replays a cached build unless the changelog changes the task's hash (a build just before, as CI's npm test runs, would win).
  it("a changelog written after a build, or SPEC_CHANGELOG_JSON, changes the docs build's turbo hash, so the site is built again with it", () => {
    const changelogFile = join(import.meta.dirname, '..', 'changelog.json');
    const kept = existsSync(changelogFile) ? readFileSync(changelogFile) : undefined;
    try {
      rmSync(changelogFile, { force: true });
      const without = docsBuildHash();
      writeFileSync(changelogFile, '[]\n');
      const written = docsBuildHash();
      rmSync(changelogFile);
      expect(written).not.toBe(without);
      expect(docsBuildHash({ SPEC_CHANGELOG_JSON: join(tmpdir(), 'changelog.json') })).not.toBe(without);
    } finally {
      if (kept) writeFileSync(changelogFile, kept);
      else rmSync(changelogFile, { force: true });
    }
  });

  it('references no script, stylesheet, image or font outside itself', () => {
    // The scanner itself finds what it must.
    for (const sample of [
      '<script src="https://cdn.example/x.js"></script>',
      '<link rel="stylesheet" href="//fonts.example/css">',
      '<img alt="" src="https://cdn.example/logo.svg">',
      '<style>@import "https://x.test/a.css";</style>',
      '<style>b { background: url(https://x.test/i.png) }</style>',
      'const icons = `https://cdn.redocly.com/icons/fa/7.0.0`;',
    ]) {
      expect(externalResourceUrls(sample), sample).toHaveLength(1);
    }
    expect(externalResourceUrls('<a href="https://redocly.com/redoc/">link</a>')).toEqual([]);
    for (const file of readdirSync(docsSiteDir).filter((f) => /\.(html|css|svg)$/.test(f))) {
      expect(externalResourceUrls(readFileSync(join(docsSiteDir, file), 'utf8')), file).toEqual([]);
    }
    const reference = readFileSync(join(docsSiteDir, 'reference.html'), 'utf8');
    expect(reference).toContain('"disableTelemetry":true');
    expect(reference).toContain('Content-Security-Policy');
  });
});

/**
 * One request as written: fetch resolves "%2e%2e" in a path and, for a conditional request, adds
 * Cache-Control: no-cache (the Fetch standard's cache mode), which asks to skip revalidation.
 */
function rawRequest(path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ hostname, port, path, method: options.method ?? 'GET', headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('served', () => {
  it('a missing page answers 404 with the site\'s own 404 page, its navigation included, as GitHub Pages does', async () => {
    const response = await fetch(`${server.url}/no-such-page.html`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<h1>Page not found</h1>');
    expect(html).toContain('<a href="reference.html">API reference</a>');
  });

  it('a page carries an ETag and Last-Modified, and a revisit with them is answered 304 with no body (RFC 9110 §13.1.1, §13.1.2, §15.4.5)', async () => {
    const page = `${mountPath}/reference.html`;
    const first = await rawRequest(page);
    expect(first.status).toBe(200);
    const etag = first.headers.etag!;
    const lastModified = first.headers['last-modified']!;
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    expect(Date.parse(lastModified)).not.toBeNaN();
    // The site is rebuilt in place, so every visit revalidates (no-cache), cheaply.
    expect(first.headers['cache-control']).toBe('no-cache');
    expect(first.headers['x-content-type-options']).toBe('nosniff');
    const byEtag = await rawRequest(page, { headers: { 'if-none-match': etag } });
    expect(byEtag.status).toBe(304);
    expect(byEtag.body).toHaveLength(0);
    expect(byEtag.headers.etag).toBe(etag);
    expect((await rawRequest(page, { headers: { 'if-modified-since': lastModified } })).status).toBe(304);
    const stale = await rawRequest(page, { headers: { 'if-none-match': '"not-this-one"' } });
    expect(stale.status).toBe(200);
    expect(stale.body.equals(first.body)).toBe(true);
    // HEAD: GET's headers, Content-Length included, and no body (RFC 9110 §9.3.2).
    const head = await rawRequest(page, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(first.body.length);
    expect(head.body).toHaveLength(0);
    expect((await rawRequest(`${mountPath}/openapi.yaml`)).headers['content-type']).toBe('application/yaml; charset=utf-8'); // RFC 9512
  });

  it('any other method is 405 with Allow (RFC 9110 §15.5.6); the mount without its slash redirects; a path leaving the site is a missing page', async () => {
    const post = await rawRequest(`${mountPath}/reference.html`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    const bare = await rawRequest(mountPath);
    expect(bare.status).toBe(301);
    expect(bare.headers.location).toBe(`${mountPath}/`);
    for (const escape of ['/../package.json', '/%2e%2e/package.json', '/..%2f..%2fpackage.json', '/%00.html', '/%E0%A4%A.html']) {
      const response = await rawRequest(`${mountPath}${escape}`);
      expect(response.status, escape).toBe(404);
      expect(response.body.toString(), escape).toContain('<h1>Page not found</h1>');
    }
  });
});

describe('in Chromium', () => {
  it('the getting-started page covers credentials, the quick start, the mock and the client, and links every operation', async () => {
    await page.goto(`${server.url}/`, { waitUntil: 'load' });
    const text = await page.locator('main').innerText();
    expect(text).toContain('npm install && npm start');
    expect(text).toContain('npm run admin -- issue --kind bridge_session');
    expect(text).toContain('npm run mock');
    expect(text).toContain('@gateway-minds/client');
    expect(text).toContain('createClient({ baseUrl');
    const hrefs = await page.locator('main a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    for (const id of operationIds) expect(hrefs, id).toContain(`reference.html#operation/${id}`);
    await page.screenshot({ path: join(resultsDir, 'getting-started.png'), fullPage: false });
  });

  it('the reference renders every operation of the contract', async () => {
    await page.goto(`${server.url}/reference.html`, { waitUntil: 'load' });
    await page.locator('[data-section-id]').first().waitFor();
    await page.screenshot({ path: join(resultsDir, 'reference.png') });
    const missing: string[] = [];
    for (const id of operationIds) {
      const facts = operationTable[id];
      // The anchor the getting-started page and the error catalog link to; Redoc routes it to the operation.
      await page.goto(`${server.url}/reference.html#operation/${id}`);
      const section = page.locator(`[data-section-id$="/${id.toLowerCase()}"]`).first();
      try {
        await section.waitFor({ timeout: 10_000 });
      } catch {
        missing.push(id);
        continue;
      }
      const text = await section.innerText();
      if (!text.includes(facts.summary) || !text.includes(facts.path)) missing.push(`${id} (summary or path not shown)`);
    }
    expect(missing).toEqual([]);
    await page.goto(`${server.url}/reference.html#operation/${operationIds[operationIds.length - 1]}`);
    await page.screenshot({ path: join(resultsDir, 'reference-operation.png') });
  });

  it('the error catalog has every code with its status, type, meaning, reasons, Retry-After, fields and outcome', async () => {
    await page.goto(`${server.url}/errors.html`, { waitUntil: 'load' });
    const rows = await page.locator('tr[id]').evaluateAll((trs) =>
      trs.map((tr) => ({
        id: tr.id,
        // A cell's own text; a code's reasons are read from their list under its meaning.
        cells: [...tr.querySelectorAll(':scope > th, :scope > td')].map((c) =>
          [...c.childNodes].filter((n) => !(n instanceof HTMLUListElement)).map((n) => (n instanceof HTMLElement ? n.innerText : n.textContent ?? '')).join('').trim(),
        ),
        reasons: [...tr.querySelectorAll('ul.reasons li')].map((li) => (li as HTMLElement).innerText.trim()),
      })),
    );
    expect(rows.map((r) => r.id)).toEqual(errorCodes);
    for (const row of rows) {
      const facts = errorCatalog[row.id as ErrorCode];
      const [code, status, type, meaning, retryAfter, fields, outcomeUnknown] = row.cells;
      expect({ code, status, type, meaning, retryAfter, fields, outcomeUnknown }, row.id).toEqual({
        code: row.id,
        status: String(facts.status),
        type: facts.type,
        meaning: facts.description.replace(/`/g, ''),
        retryAfter: facts.retryAfter ? 'yes' : 'no',
        fields: facts.fields.length ? facts.fields.join(', ') : '—',
        outcomeUnknown: facts.outcomeUnknown ? 'yes' : 'no',
      });
      // ErrorCode.yaml, x-reasons: "every `reason` the code is sent with, each with its meaning".
      expect(row.reasons, row.id).toEqual(Object.entries(facts.reasons).map(([reason, meaning]) => `${reason}: ${meaning.replace(/`/g, '')}`));
    }
    expect(rows.find((r) => r.id === 'NOT_FOUND')!.reasons.some((r) => r.startsWith('not_admitted: '))).toBe(true);
  });

  it('every docs_url the servers emit resolves to its code on errors.html', async () => {
    const docsBaseUrl = server.url; // what DOCS_BASE_URL is for a gateway serving the site at /docs
    const unresolved: string[] = [];
    for (const code of errorCodes) {
      const url = errorDocsUrl(docsBaseUrl, code);
      await page.goto(url, { waitUntil: 'load' });
      const found = await page.evaluate(
        (expected) => {
          const target = document.getElementById(expected);
          return { hash: location.hash, exists: target !== null, targeted: target?.matches(':target') ?? false, text: target?.textContent ?? '' };
        },
        code,
      );
      if (found.hash !== `#${code}` || !found.exists || !found.targeted || !found.text.includes(code)) unresolved.push(code);
    }
    expect(unresolved).toEqual([]);
    await page.goto(errorDocsUrl(docsBaseUrl, 'SCOPE_MISSING'));
    await page.screenshot({ path: join(resultsDir, 'errors.png') });

    // The docs_url in every error example of the spec has the same shape, on the default base.
    const exampleUrls = new Set<string>();
    JSON.stringify(openapiDocument, (key, value: unknown) => {
      if (key === 'docs_url' && typeof value === 'string') exampleUrls.add(value);
      return value;
    });
    expect(exampleUrls.size).toBeGreaterThan(20);
    for (const url of exampleUrls) {
      const code = new URL(url).hash.slice(1) as ErrorCode;
      expect(errorCodes, url).toContain(code);
      expect(url).toBe(errorDocsUrl(url.slice(0, url.indexOf('/errors.html')), code));
    }
  });

  // README, "Docs": "Link an operation as `reference.html#operation/<operationId>`". Redoc's
  // "not found" page must never show on the way to the operation, from the first paint on.
  const notFoundText = 'No page at this address';
  /** Records, from before the page's first byte, whether Redoc's not-found page was ever in its content. */
  const watchForNotFound = `
    window.__notFoundSeen = false;
    const look = () => {
      const redoc = document.getElementById('redoc');
      if (document.querySelector('.not-found-page') || (redoc && redoc.textContent.includes(${JSON.stringify(notFoundText)}))) window.__notFoundSeen = true;
    };
    new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true });
  `;
  async function openWatched(url: string): Promise<{ page: Page; status: number | undefined }> {
    const watched = await context.newPage();
    watched.on('pageerror', (error) => pageErrors.push(error.message));
    await watched.addInitScript({ content: watchForNotFound });
    const response = await watched.goto(url, { waitUntil: 'load' });
    return { page: watched, status: response?.status() };
  }
  const sectionOf = (p: Page, id: string) => p.locator(`[data-section-id$="/${id.toLowerCase()}"]`).first();

  it.each<OperationId>([operationIds[0]!, 'minds_getMind', operationIds[operationIds.length - 1]!])(
    'reference.html#operation/%s renders the operation and never shows "No page at this address"',
    async (id) => {
      const { page: watched } = await openWatched(`${server.url}/reference.html#operation/${id}`);
      try {
        await sectionOf(watched, id).waitFor({ timeout: 45_000 });
        expect(await sectionOf(watched, id).innerText()).toContain(operationTable[id].summary);
        expect(await watched.evaluate(() => (window as unknown as { __notFoundSeen: boolean }).__notFoundSeen)).toBe(false);
        expect(await watched.locator('#redoc').innerText()).not.toContain(notFoundText);
      } finally {
        await watched.close();
      }
    },
    90_000,
  );

  it('every sidebar link, as first served and once hydrated, opens in a new tab without a 404', async () => {
    const referenceUrl = `${server.url}/reference.html`;
    // As first served: the pre-rendered sidebar, before any script ran.
    const served = readFileSync(join(docsSiteDir, 'reference.html'), 'utf8');
    const prerendered = served.slice(served.indexOf('<div id="redoc"'), served.indexOf('<script type="module">', served.indexOf('<div id="redoc"')));
    const servedHrefs = [...prerendered.matchAll(/<a [^>]*href="([^"]+)"/g)].map((m) => m[1]!).filter((href) => !/^https?:/.test(href));
    expect(servedHrefs.length).toBeGreaterThan(3);
    // Once hydrated, with the first group open: its operations' links too.
    await page.goto(`${referenceUrl}#operation/${operationIds[0]}`, { waitUntil: 'load' });
    await page.locator(`.menu-content a[href$="/${operationIds[0]!.toLowerCase()}"]`).first().waitFor({ state: 'attached', timeout: 45_000 });
    const hydratedHrefs = await page.locator('.menu-content a').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
    const local = [...new Set([...servedHrefs, ...hydratedHrefs])].filter((href) => href && !/^https?:/.test(href));
    expect(local.length).toBeGreaterThan(servedHrefs.length);
    const notOk: string[] = [];
    for (const href of local) {
      const url = new URL(href, referenceUrl);
      const response = await fetch(url);
      if (!response.ok || url.pathname !== new URL(referenceUrl).pathname) notOk.push(`${href}: ${response.status} ${url.pathname}`);
    }
    expect(notOk).toEqual([]);
    // And one opened for real: a tag's and an operation's link render their section, never the not-found page.
    for (const href of [servedHrefs.find((h) => h.length > 2)!, hydratedHrefs.find((h) => h.endsWith(`/${operationIds[0]!.toLowerCase()}`))!]) {
      const { page: opened, status } = await openWatched(new URL(href, referenceUrl).href);
      try {
        expect(status, href).toBe(200);
        await opened.locator(`[data-section-id="${href.replace(/^#/, '')}"]`).first().waitFor({ timeout: 45_000 });
        expect(await opened.evaluate(() => (window as unknown as { __notFoundSeen: boolean }).__notFoundSeen), href).toBe(false);
      } finally {
        await opened.close();
      }
    }
  }, 180_000);

  it('the error catalog fits a 1280 px window, its last column included', async () => {
    expect(page.viewportSize()?.width).toBe(1280);
    await page.goto(`${server.url}/errors.html`, { waitUntil: 'load' });
    const fit = await page.evaluate(() => {
      const root = document.documentElement;
      const table = document.querySelector('table.catalog')!;
      const lastHeader = table.querySelector('thead th:last-child')!;
      return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, tableRight: table.getBoundingClientRect().right, lastColumnRight: lastHeader.getBoundingClientRect().right };
    });
    await page.screenshot({ path: join(resultsDir, 'errors-1280.png') });
    expect(fit.scrollWidth).toBeLessThanOrEqual(fit.clientWidth);
    expect(fit.tableRight).toBeLessThanOrEqual(fit.clientWidth);
    expect(fit.lastColumnRight).toBeLessThanOrEqual(fit.clientWidth);
  });

  it('no request left 127.0.0.1, none failed, and no page logged an error', () => {
    // The listener saw every page and the stylesheet (how many repeat loads a
    // browser makes for hash navigations differs between Chromium builds).
    const paths = new Set(requested.map((url) => new URL(url).pathname));
    for (const file of ['', 'style.css', 'reference.html', 'errors.html']) expect(paths, file).toContain(`${mountPath}/${file}`);
    const outside = requested.filter((url) => {
      const { protocol, hostname } = new URL(url);
      if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return false;
      return hostname !== '127.0.0.1';
    });
    expect(outside).toEqual([]);
    expect(failedResponses).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
