/**
 * The handlers in a real Chromium, as an app uses them: MSW's service worker
 * (`mockServiceWorker.js`, generated here by `msw init`, never committed)
 * served from the page's origin with a bundle (esbuild) of the handlers, the
 * client and the read scenario. Every answer comes from the worker, none from
 * the network, and each validates against the contract; the results are the
 * ones msw/node gives. Chromium comes from the docs-site browser test's
 * launcher (the system's, or the one @sparticuz/chromium ships).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createClient } from '@gateway-minds/client';
import { startStaticServer, type StaticServer } from '@gateway-minds/docs';
import { build } from 'esbuild';
import { setupServer } from 'msw/node';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../apps/docs/test/browser.js';
import { createHandlers } from '../src/index.js';
import { absentMindId, readScenario, recordingFetch, type Exchange } from './scenario.js';
import { specProblems } from './spec-check.js';

let siteDir: string;
let server: StaticServer;
let browser: Browser;
let page: Page;
/** Every request the page made: its URL, and whether the service worker answered it. */
const requests: { url: string; fromServiceWorker: boolean }[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  siteDir = mkdtempSync(join(tmpdir(), 'gateway-minds-msw-'));
  const mswCli = join(dirname(createRequire(import.meta.url).resolve('msw/package.json')), 'cli/index.js');
  const init = spawnSync(process.execPath, [mswCli, 'init', siteDir, '--no-save'], { encoding: 'utf8' });
  expect(init.status, `msw init: ${init.stderr}${init.stdout}`).toBe(0);
  await build({
    entryPoints: [join(import.meta.dirname, 'browser/page.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: join(siteDir, 'page.js'),
    logLevel: 'warning',
  });
  writeFileSync(join(siteDir, 'index.html'), '<!doctype html><html><head><meta charset="utf-8"><title>MSW handlers</title><link rel="icon" href="data:,"><script type="module" src="/page.js"></script></head><body></body></html>\n');
  server = await startStaticServer({ root: siteDir });
  browser = await launchChromium();
  const context = await browser.newContext();
  context.on('response', (response) => requests.push({ url: response.url(), fromServiceWorker: response.fromServiceWorker() }));
  context.on('requestfailed', (request) => requests.push({ url: request.url(), fromServiceWorker: false }));
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    // Chromium reports every 4xx a fetch gets; the scenario's not-found Mind is one it asks for.
    if (message.type() === 'error' && !message.location().url.endsWith(`/v1/minds/services/${absentMindId}`)) pageErrors.push(`${message.text()} (${message.location().url})`);
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (siteDir) rmSync(siteDir, { recursive: true, force: true });
});

describe('the MSW handlers in Chromium (service worker)', () => {
  it('the client runs the read scenario against the worker; every answer validates and matches msw/node', async () => {
    await page.goto(`${server.url}/`, { waitUntil: 'load' });
    await page.waitForFunction(() => typeof window.runScenario === 'function');
    const inBrowser = await page.evaluate(() => window.runScenario());
    expect(inBrowser.controlled, 'the page is controlled by the service worker').toBe(true);
    expect(inBrowser.log.map((e) => e.operationId)).toEqual(['gateway_getStatus', 'gateway_getPrincipal', 'minds_listMinds', 'minds_getMind', 'minds_getMind']);
    expect(inBrowser.log.flatMap(specProblems)).toEqual([]);

    // The same scenario under msw/node gives the same results.
    const node = setupServer(...createHandlers({ baseUrl: 'http://msw.test' }));
    node.listen({ onUnhandledRequest: 'error' });
    try {
      const log: Exchange[] = [];
      const result = await readScenario(createClient({ baseUrl: 'http://msw.test', token: 'bs_any', fetch: recordingFetch(log) }), { notFoundHeaders: { Prefer: 'code=404' } });
      expect(inBrowser.result).toEqual(result);
    } finally {
      node.close();
    }
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('no request left the page origin, and every API request was answered by the worker', () => {
    const api = requests.filter((r) => new URL(r.url).pathname.startsWith('/v1/'));
    expect(api.length).toBeGreaterThanOrEqual(5);
    expect(api.filter((r) => !r.fromServiceWorker)).toEqual([]);
    const origin = new URL(server.url).origin;
    expect(requests.filter((r) => new URL(r.url).origin !== origin)).toEqual([]);
  });
});
