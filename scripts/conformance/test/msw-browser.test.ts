/**
 * One built page, three backends, in a real Chromium (the system's, or the one @sparticuz/chromium
 * ships, through @gateway-minds/browser-testing): the typed client's read scenario
 * (@gateway-minds/contract-judge/scenario: a list walk, a read, a typed 404 and a typed 401) runs against
 * - the MSW handlers in the service worker (`mockServiceWorker.js`, generated here by `msw init`,
 *   never committed), every answer from the worker and none from the network;
 * - the Prism mock (`npm run mock`), across origins;
 * - the gateway of `npm start` (its program, on free ports), across origins: the page is served by
 *   a static server of its own, as a dev server serves it, so every call is a CORS request.
 * Every answer validates against the contract, and the three results have the same shape: the page
 * moves from a mock to the real stack by its base URL alone (README, "The mock, for front-end
 * teams"). The gateway's side follows spec/DECISIONS.md, "Browsers: CORS": the page reads a 401's
 * code, challenge and request id; and the same page served from an origin the gateway does not
 * allow gets no answer at all.
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
import { launchChromium } from '@gateway-minds/browser-testing';
import { createHandlers } from '@gateway-minds/msw';
import type { Backend } from '../src/msw/page.js';
import { startNpmStart, type NpmStart } from '../src/msw/npm-start.js';
import { startPrismMock, type PrismMock } from '../src/msw/prism.js';
import { emptiedWhereEmpty, readScenario, recordingFetch, scenarioOperations, shapeOf, type Exchange } from '@gateway-minds/contract-judge/scenario';
import { specProblems } from '@gateway-minds/contract-judge/spec-check';

/** A host name Chromium resolves to this machine: a page origin the gateway's default does not allow. */
const foreignHost = 'front-end.test';

let siteDir: string;
let site: StaticServer;
let prism: PrismMock;
let stack: NpmStart;
let token: string;
let browser: Browser;

beforeAll(async () => {
  siteDir = mkdtempSync(join(tmpdir(), 'gateway-minds-page-'));
  const mswCli = join(dirname(createRequire(import.meta.url).resolve('msw/package.json')), 'cli/index.js');
  const init = spawnSync(process.execPath, [mswCli, 'init', siteDir, '--no-save'], { encoding: 'utf8' });
  expect(init.status, `msw init: ${init.stderr}${init.stdout}`).toBe(0);
  await build({
    entryPoints: [join(import.meta.dirname, '../src/msw/page.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: join(siteDir, 'page.js'),
    logLevel: 'warning',
  });
  writeFileSync(join(siteDir, 'index.html'), '<!doctype html><html><head><meta charset="utf-8"><title>Front-end</title><link rel="icon" href="data:,"><script type="module" src="/page.js"></script></head><body></body></html>\n');
  [site, prism, stack, browser] = await Promise.all([
    startStaticServer({ root: siteDir }),
    startPrismMock(),
    startNpmStart({ MINDS_HOST_PROVISION_MS: '100' }),
    launchChromium([`--host-resolver-rules=MAP ${foreignHost} 127.0.0.1`]),
  ]);
  // A Mind, so that the list walk has one to read.
  token = await stack.issueSession();
  const client = createClient({ baseUrl: stack.url, token });
  const { context_sha256 } = await client.minds_listMinds();
  const mind = await client.minds_createMind({ params: { header: { 'x-platform-minds-creation-context': context_sha256 } }, body: { name: 'Sandbox in the browser' } });
  await client.waitForMind(mind.mind_id, 'ready', { intervalMs: 100, timeoutMs: 45_000 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([site?.close(), prism?.close(), stack?.close()]);
  if (siteDir) rmSync(siteDir, { recursive: true, force: true });
});

interface Visit {
  page: Page;
  /** Every response the page got: its URL, and whether the service worker answered it. */
  responses: { url: string; fromServiceWorker: boolean }[];
  /** Page errors, and console errors other than the failed loads the scenario asks for (its 404 and 401). */
  errors: string[];
}

async function visit(origin: string): Promise<Visit> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const visit: Visit = { page, responses: [], errors: [] };
  context.on('response', (response) => visit.responses.push({ url: response.url(), fromServiceWorker: response.fromServiceWorker() }));
  page.on('pageerror', (error) => visit.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/the server responded with a status of (401|404)/.test(message.text())) visit.errors.push(`${message.text()} (${message.location().url})`);
  });
  await page.goto(`${origin}/`, { waitUntil: 'load' });
  await page.waitForFunction(() => typeof window.runScenario === 'function');
  return visit;
}

const results: Record<string, Record<string, unknown>> = {};

async function runIn(name: string, backend: Backend): Promise<Visit & { log: Exchange[]; controlled: boolean }> {
  const page = await visit(site.url);
  const { result, log, controlled } = await page.page.evaluate((b) => window.runScenario(b), backend);
  results[name] = result;
  expect(log.map((e) => e.operationId)).toEqual(scenarioOperations);
  expect(log.flatMap(specProblems)).toEqual([]);
  // The typed 401 read whole from the page: its code, its challenge and its request id.
  expect(result.unauthorized).toMatchObject({ status: 401, authenticationError: true, requestIdRead: true, challengeRead: true });
  expect(page.errors).toEqual([]);
  await page.page.context().close();
  return { ...page, log, controlled };
}

/** The shape each backend must share: everything but the identifiers the walk collected. Each answer is still judged against the spec (specProblems). */
const comparable = ({ mindIds: _ids, ...rest }: Record<string, unknown>) => shapeOf(rest);

describe('one built page in Chromium, against three backends', () => {
  it('the MSW handlers in the service worker: every answer from the worker, none left the page origin, the same as msw/node', async () => {
    const run = await runIn('msw', { kind: 'msw' });
    expect(run.controlled, 'the page is controlled by the service worker').toBe(true);
    const api = run.responses.filter((r) => new URL(r.url).pathname.startsWith('/v1/'));
    expect(api.length).toBeGreaterThanOrEqual(scenarioOperations.length);
    expect(api.filter((r) => !r.fromServiceWorker)).toEqual([]);
    expect(run.responses.filter((r) => new URL(r.url).origin !== new URL(site.url).origin)).toEqual([]);

    const node = setupServer(...createHandlers({ baseUrl: 'http://msw.test' }));
    node.listen({ onUnhandledRequest: 'error' });
    try {
      const log: Exchange[] = [];
      expect(results.msw).toEqual(await readScenario(createClient({ baseUrl: 'http://msw.test', token: 'bs_any', fetch: recordingFetch(log) }), { notFoundHeaders: { Prefer: 'code=404' } }));
    } finally {
      node.close();
    }
  }, 60_000);

  it('the Prism mock, from the page origin to the mock', async () => {
    expect(new URL(prism.url).origin).not.toBe(new URL(site.url).origin);
    await runIn('prism', { kind: 'server', baseUrl: prism.url, token: 'bs_any', notFoundHeaders: { Prefer: 'code=404' } });
  }, 60_000);

  it("the gateway of npm start, from the page origin to the gateway's (CORS)", async () => {
    expect(new URL(stack.url).origin).not.toBe(new URL(site.url).origin);
    const run = await runIn('real', { kind: 'server', baseUrl: stack.url, token, notFoundHeaders: {} });
    expect(run.responses.filter((r) => r.url.startsWith(`${stack.url}/v1/`)).length).toBeGreaterThanOrEqual(scenarioOperations.length);
    expect((results.real!.notFound as { code: string }).code).toBe('NOT_FOUND');
    expect((results.real!.unauthorized as { code: string }).code).toBe('BEARER_REQUIRED');
  }, 60_000);

  it('the three give the same shapes (and the two mocks the same answers)', () => {
    expect(Object.keys(results).sort()).toEqual(['msw', 'prism', 'real']);
    expect(results.msw).toEqual(results.prism);
    const real = comparable(results.real!);
    expect(real).toEqual(emptiedWhereEmpty(comparable(results.msw!), real));
  });

  it('the same page from an origin the gateway does not allow gets no answer it can read (a connection error, CORS in the console)', async () => {
    const page = await visit(site.url.replace('127.0.0.1', foreignHost));
    const failure = await page.page.evaluate((b) => window.runScenario(b).then(() => 'answered', (error: Error) => `${error.name}: ${error.message}`), { kind: 'server', baseUrl: stack.url, token, notFoundHeaders: {} } satisfies Backend);
    expect(failure).toMatch(/^APIConnectionError: /);
    expect(page.errors.join('\n')).toMatch(/blocked by CORS policy/);
    await page.page.context().close();
  }, 60_000);
});
