/**
 * The page of the browser test, bundled by esbuild, as a front-end builds it: the typed client and
 * its read scenario, pointed at one of three backends. `msw` starts the handlers in MSW's service
 * worker (msw/browser) and calls the page's own origin, which only the worker answers; a base URL
 * calls that server (the Prism mock, the gateway of `npm start`) across origins, as the same page
 * calls a staging gateway.
 */
import { createClient } from '@gateway-minds/client';
import { setupWorker } from 'msw/browser';
import { createHandlers } from '@gateway-minds/msw';
import { readScenario, recordingFetch, type Exchange } from '@gateway-minds/contract-judge/scenario';

export type Backend = { kind: 'msw' } | { kind: 'server'; baseUrl: string; token: string; notFoundHeaders: Record<string, string> };

declare global {
  interface Window {
    runScenario(backend: Backend): Promise<{ result: Record<string, unknown>; log: Exchange[]; controlled: boolean }>;
  }
}

window.runScenario = async (backend) => {
  if (backend.kind === 'msw') {
    const worker = setupWorker(...createHandlers({ baseUrl: location.origin }));
    await worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, onUnhandledRequest: 'error', quiet: true });
  }
  const { baseUrl, token, notFoundHeaders } = backend.kind === 'msw' ? { baseUrl: location.origin, token: 'bs_any', notFoundHeaders: { Prefer: 'code=404' } } : backend;
  const log: Exchange[] = [];
  const client = createClient({ baseUrl, token, fetch: recordingFetch(log) });
  const result = await readScenario(client, { notFoundHeaders });
  return { result, log, controlled: navigator.serviceWorker?.controller != null };
};
