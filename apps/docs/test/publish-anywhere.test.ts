/**
 * The site published anywhere, as GitHub Pages publishes a project's site under a sub-path: the
 * 404 page at any depth under any base path, in Chromium; the servers the reference lists and the
 * pages' CSP from the build's settings (PUBLIC_BASE_URL, NODE_ENV), on sites built here; and the
 * search over every page (operations, error codes, getting started, changelog entries), in
 * Chromium, on the built site served under a sub-path. The interface says nothing of the docs site:
 * these follow the README's "Docs" section and its settings table.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCodes, operationIds, operationTable } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSearchIndex, pageEntries, type SearchIndexFile } from '../scripts/search-index.js';
import { buildSite, contentSecurityPolicy, listedServers, siteSettingsOf, type Server } from '../scripts/site.js';
import { docsSiteDir, startStaticServer, type StaticServer } from '../src/index.js';
import { launchChromium } from '@gateway-minds/browser-testing';

const specServers = openapiDocument.servers as Server[];
const scratch = mkdtempSync(join(tmpdir(), 'gateway-minds-docs-test-'));
const production = 'https://gateway.example.test';

let browser: Browser;
/** The built site under two base paths: a project site's, and a deeper one. */
const mounts: Record<string, StaticServer> = {};

beforeAll(async () => {
  browser = await launchChromium();
  for (const prefix of ['/gateway-minds', '/a/b/docs']) mounts[prefix] = await startStaticServer({ root: docsSiteDir, prefix });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(Object.values(mounts).map((m) => m.close()));
  rmSync(scratch, { recursive: true, force: true });
});

/** What a visit saw: responses that failed, page errors, console errors other than a failed load's. */
interface Watched {
  context: BrowserContext;
  page: Page;
  failed: string[];
  errors: string[];
}

async function watch(): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const watched: Watched = { context, page, failed: [], errors: [] };
  context.on('response', (response) => {
    if (response.status() >= 400) watched.failed.push(new URL(response.url()).pathname);
  });
  context.on('requestfailed', (request) => watched.failed.push(`failed ${request.url()}`));
  page.on('pageerror', (error) => watched.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/the server responded with a status of 404/.test(message.text())) watched.errors.push(message.text());
  });
  return watched;
}

/** The servers of the document Redoc renders: the first `servers` of its embedded state (the document's own; examples come later). */
const referenceServers = (html: string) => (JSON.parse(/"servers":(\[[^\]]*\])/.exec(html)![1]!) as Server[]).map((s) => s.url);

/** The CSP a built page carries in its <meta>. */
const cspOf = (html: string) => (/<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '').replace(/&#39;/g, "'");

describe('the servers the reference lists, and the CSP that follows them', () => {
  it('PUBLIC_BASE_URL first; the spec\'s local stack and mock only in a development build', () => {
    expect(siteSettingsOf({})).toEqual({ publicBaseUrl: undefined, development: true });
    expect(siteSettingsOf({ NODE_ENV: 'production', PUBLIC_BASE_URL: `${production}/` })).toEqual({ publicBaseUrl: production, development: false });
    expect(() => siteSettingsOf({ PUBLIC_BASE_URL: 'gateway.example.test' })).toThrow(/PUBLIC_BASE_URL/);
    expect(listedServers(specServers, { publicBaseUrl: undefined, development: true })).toEqual(specServers);
    expect(listedServers(specServers, { publicBaseUrl: production, development: true }).map((s) => s.url)).toEqual([production, ...specServers.map((s) => s.url)]);
    expect(listedServers(specServers, { publicBaseUrl: production, development: false }).map((s) => s.url)).toEqual([production]);
    expect(listedServers(specServers, { publicBaseUrl: undefined, development: false })).toEqual([]);
    expect(contentSecurityPolicy([{ url: `${production}/api`, description: '' }])).toContain(`connect-src 'self' ${production};`);
    expect(contentSecurityPolicy([])).toContain("connect-src 'self';");
  });

  it('a production build (NODE_ENV=production, PUBLIC_BASE_URL) lists the gateway alone, and every page may call it and nothing else', async () => {
    const siteDir = join(scratch, 'production');
    const built = await buildSite({ siteDir, settings: siteSettingsOf({ NODE_ENV: 'production', PUBLIC_BASE_URL: production }) });
    expect(built.servers.map((s) => s.url)).toEqual([production]);
    const reference = readFileSync(join(siteDir, 'reference.html'), 'utf8');
    // Redoc's state embeds the document it renders: its servers are the listed ones.
    expect(referenceServers(reference)).toEqual([production]);
    for (const file of ['index.html', 'reference.html', 'errors.html', 'changelog.html', '404.html']) {
      const connect = /connect-src ([^;]+)/.exec(cspOf(readFileSync(join(siteDir, file), 'utf8')))?.[1];
      expect(connect, file).toBe(`'self' ${production}`);
    }
    // The contract itself is published unchanged beside the pages.
    expect(JSON.parse(readFileSync(join(siteDir, 'openapi.json'), 'utf8'))).toEqual(openapiDocument);
  }, 120_000);

  it('a development build lists the local stack and mock after PUBLIC_BASE_URL, in the reference and its CSP', async () => {
    const siteDir = join(scratch, 'development');
    await buildSite({ siteDir, settings: siteSettingsOf({ PUBLIC_BASE_URL: production }) });
    const reference = readFileSync(join(siteDir, 'reference.html'), 'utf8');
    expect(referenceServers(reference)).toEqual([production, ...specServers.map((s) => s.url)]);
    expect(/connect-src ([^;]+)/.exec(cspOf(reference))?.[1]).toBe(["'self'", production, ...specServers.map((s) => new URL(s.url).origin)].join(' '));
  }, 120_000);
});

describe('the 404 page, at any depth under any base path (in Chromium)', () => {
  it.each([
    ['/gateway-minds', '/reference/minds_getMind', ['/gateway-minds/reference/search-index.json']],
    ['/gateway-minds', '/no-such-page.html', []],
    ['/a/b/docs', '/x/y/z/minds_getMind', ['/a/b/docs/x/y/z/search-index.json', '/a/b/docs/x/y/search-index.json', '/a/b/docs/x/search-index.json']],
  ])('under %s, at %s: styled, its navigation leads to the site, and it suggests pages', async (prefix, missing, probes) => {
    const server = mounts[prefix]!;
    const visit = await watch();
    try {
      const response = await visit.page.goto(`${server.url}${missing}`, { waitUntil: 'load' });
      expect(response?.status()).toBe(404);
      expect(await visit.page.locator('h1').innerText()).toBe('Page not found');
      // Styled from the first paint: its styles are inline.
      expect(await visit.page.locator('.gm-nav').evaluate((nav) => getComputedStyle(nav).backgroundColor)).toBe('rgb(31, 41, 51)');
      // It finds the site's root and makes its links lead there.
      await visit.page.waitForFunction(() => document.querySelector('base') !== null);
      expect(await visit.page.evaluate(() => document.baseURI)).toBe(`${server.url}/`);
      const links = await visit.page.locator('.gm-nav a').evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
      expect(links).toEqual(['index.html', 'reference.html', 'errors.html', 'changelog.html', 'openapi.json'].map((file) => `${server.url}/${file}`));
      for (const link of links) expect((await fetch(link)).status, link).toBe(200);
      // The search works there too, and suggests pages for the address's last segment.
      const segment = missing.split('/').pop()!.replace(/\.html$/, '');
      if (segment === 'minds_getMind') {
        const suggestion = visit.page.locator('#gm-suggestions a').first();
        await suggestion.waitFor();
        expect(await suggestion.getAttribute('href')).toBe(`${server.url}/reference.html#operation/minds_getMind`);
      }
      await visit.page.locator('.gm-search input').fill('MIND_NOT_READY');
      await visit.page.locator('.gm-search-results a').first().waitFor();
      expect(await visit.page.locator('.gm-search-results a').first().getAttribute('href')).toBe(`${server.url}/errors.html#MIND_NOT_READY`);
      // Clicking a navigation link opens the page.
      await Promise.all([visit.page.waitForURL(`${server.url}/errors.html`), visit.page.locator('.gm-nav a[href="errors.html"]').click()]);
      expect(await visit.page.locator('h1').innerText()).toBe('Error catalog');
      // Nothing failed but the missing address itself and the folders below the root the page looked in.
      expect(visit.failed).toEqual([`${new URL(server.url).pathname}${missing}`, ...probes]);
      expect(visit.errors).toEqual([]);
    } finally {
      await visit.context.close();
    }
  }, 60_000);
});

describe('the search, on every page', () => {
  const index = JSON.parse(readFileSync(join(docsSiteDir, 'search-index.json'), 'utf8')) as SearchIndexFile;

  it('indexes every operation, every error code, every page and every titled part of a page', () => {
    const urls = new Set(index.entries.map((e) => e.url));
    for (const id of operationIds) expect(urls, id).toContain(`reference.html#operation/${id}`);
    for (const code of errorCodes) expect(urls, code).toContain(`errors.html#${code}`);
    for (const file of ['index.html', 'errors.html', 'changelog.html']) {
      expect(urls, file).toContain(file);
      const html = readFileSync(join(docsSiteDir, file), 'utf8');
      const main = html.slice(html.indexOf('<main>'));
      for (const [, id] of main.matchAll(/<h[1-4] id="([^"]+)"/g)) expect(urls, `${file}#${id}`).toContain(`${file}#${id}`);
    }
  });

  it('a changelog entry (a heading with an id and what is under it) is an entry of its own', () => {
    const html = `<main><h1>Changelog</h1><p>Every change.</p>
      <h2 id="v-1a2b3c4d5e6f">2026-11-20: Memory search gets a limit</h2><ul><li>Added <code>minds_searchMemory</code></li></ul>
      <h2 id="v-0f9e8d7c6b5a">2026-11-19: First version</h2><ul><li>The first version of the spec.</li></ul></main>`;
    const entries = pageEntries('changelog.html', html);
    expect(entries.map((e) => e.url)).toEqual(['changelog.html', 'changelog.html#v-1a2b3c4d5e6f', 'changelog.html#v-0f9e8d7c6b5a']);
    expect(entries[1]).toMatchObject({ section: 'Changelog', title: '2026-11-20: Memory search gets a limit', text: 'Added minds_searchMemory' });
    expect(buildSearchIndex([{ file: 'changelog.html', html }]).entries.filter((e) => e.url.startsWith('changelog.html#'))).toHaveLength(2);
  });

  it.each(['index.html', 'reference.html', 'errors.html', 'changelog.html'])('%s: the box finds an error code, an operation and a part of getting started', async (file) => {
    const server = mounts['/gateway-minds']!;
    const visit = await watch();
    try {
      await visit.page.goto(`${server.url}/${file}`, { waitUntil: 'load' });
      const input = visit.page.locator('.gm-nav .gm-search input');
      const first = visit.page.locator('.gm-nav .gm-search-results a').first();
      for (const [query, expected] of [
        ['MIND_NOT_READY', 'errors.html#MIND_NOT_READY'],
        ['minds_getMind', 'reference.html#operation/minds_getMind'],
        [operationTable.minds_createMind.summary, 'reference.html#operation/minds_createMind'],
        ['credentials', 'index.html#credentials'],
      ] as const) {
        await input.fill(query);
        await expect.poll(() => first.getAttribute('href'), { timeout: 10_000 }).toBe(`${server.url}/${expected}`);
      }
      await input.fill('zzzz-nothing-matches');
      await visit.page.locator('.gm-search-none').waitFor();
      // Enter opens the first result.
      await input.fill('SCOPE_MISSING');
      await expect.poll(() => first.getAttribute('href'), { timeout: 10_000 }).toBe(`${server.url}/errors.html#SCOPE_MISSING`);
      await Promise.all([visit.page.waitForURL(`${server.url}/errors.html#SCOPE_MISSING`), input.press('Enter')]);
      expect(visit.failed).toEqual([]);
      expect(visit.errors).toEqual([]);
    } finally {
      await visit.context.close();
    }
  }, 90_000);
});
