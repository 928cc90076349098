/**
 * The published reference site, built by `npm run docs` (turbo `build`) into
 * one self-contained folder: no page loads anything from outside it.
 *
 *   index.html       getting started: credentials, quick start, the mock, the client
 *   reference.html   the API reference (Redoc, inlined); `#operation/<operationId>` links work
 *   errors.html      the error catalog; every code has the anchor `#<CODE>`, the target of
 *                    every `docs_url` the servers emit (`${DOCS_BASE_URL}/errors.html#<CODE>`)
 *   openapi.json, openapi.yaml   the bundled contract
 *
 * The gateway serves this folder at /docs with `express.static(docsSiteDir, { setHeaders:
 * setSiteHeaders })`; `npm run docs:serve` with `startStaticServer`, the same serve-static.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the built site folder, apps/docs/dist/site (exists after `npm run build`). */
export const docsSiteDir = join(dirname(fileURLToPath(import.meta.url)), '../dist/site');

/** The site's pages, relative to `docsSiteDir`. */
export const docsPages = {
  gettingStarted: 'index.html',
  reference: 'reference.html',
  errors: 'errors.html',
} as const;

export { setSiteHeaders, siteHandler, startStaticServer, type StaticServer } from './static-server.js';
export { externalResourceUrls } from './offline-check.js';
