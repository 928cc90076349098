/**
 * `npm run docs:serve`: serves the built site on http://127.0.0.1:8082
 * (DOCS_PORT and DOCS_HOST override).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { docsSiteDir } from './index.js';
import { startStaticServer } from './static-server.js';

if (!existsSync(join(docsSiteDir, 'index.html'))) {
  console.error(`docs: no site at ${docsSiteDir}; run \`npm run docs\` first`);
  process.exit(1);
}
const server = await startStaticServer({
  root: docsSiteDir,
  host: process.env.DOCS_HOST ?? '127.0.0.1',
  port: Number(process.env.DOCS_PORT ?? 8082),
});
console.log(`docs: ${server.url}/  (reference ${server.url}/reference.html, errors ${server.url}/errors.html)`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
