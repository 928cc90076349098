/**
 * Starts Prism on the bundled contract: every operation answers with the
 * spec's named examples (the first one by default). `Prefer: code=404` or
 * `Prefer: example=<name>` selects another. MOCK_PORT (default 4010) and
 * MOCK_HOST (default 127.0.0.1) override where it listens; MOCK_DOCUMENT what it serves.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
// MOCK_DOCUMENT: another bundled document to serve; `npm run dev` points it at a copy it rewrites
// on every good save, which Prism's own watcher reloads (it watches only the file it was given).
const specPath = process.env.MOCK_DOCUMENT || fileURLToPath(import.meta.resolve('@gateway-minds/contract/openapi.json'));
const prismPackage = require.resolve('@stoplight/prism-cli/package.json');
const prismBin = join(dirname(prismPackage), 'dist/index.js');

const port = process.env.MOCK_PORT ?? '4010';
const host = process.env.MOCK_HOST ?? '127.0.0.1';

const prism = spawn(process.execPath, [prismBin, 'mock', specPath, '--port', port, '--host', host, '--errors'], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => prism.kill(signal));
prism.on('exit', (code) => process.exit(code ?? 0));
