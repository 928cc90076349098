/**
 * The page of the browser test, bundled by esbuild: the handlers in MSW's
 * service worker (msw/browser), and the client's read scenario against the
 * page's own origin, which only the worker answers.
 */
import { createClient } from '@gateway-minds/client';
import { setupWorker } from 'msw/browser';
import { createHandlers } from '../../src/index.js';
import { readScenario, recordingFetch, type Exchange } from '../scenario.js';

declare global {
  interface Window {
    runScenario(): Promise<{ result: Record<string, unknown>; log: Exchange[]; controlled: boolean }>;
  }
}

window.runScenario = async () => {
  const worker = setupWorker(...createHandlers({ baseUrl: location.origin }));
  await worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, onUnhandledRequest: 'error', quiet: true });
  const log: Exchange[] = [];
  const client = createClient({ baseUrl: location.origin, token: 'bs_any', fetch: recordingFetch(log) });
  const result = await readScenario(client, { notFoundHeaders: { Prefer: 'code=404' } });
  return { result, log, controlled: navigator.serviceWorker.controller !== null };
};
