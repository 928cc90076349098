/**
 * `npm start`: the whole stack on the embedded default. One data directory
 * (DATA_DIR, default ./data at the repository root) holds each service's PGlite
 * database, the assertion key pair and the admin token; the Minds service
 * starts first, then the gateway in front of it. Ctrl-C stops both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// Only the key files: the whole kit (Express, the validator) would add ~0.4 s before anything
// starts, and the assertion module ~50 ms more (jose, loaded only when keys must be created).
import { assertionKeyFiles, ensureAssertionKeys } from '@gateway-minds/service-kit/assertion-keys';
import { docsBaseUrlOf } from '@gateway-minds/service-kit/public-urls';
import { HEALTH_PATH } from '@gateway-minds/service-kit/side-routes';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const require = createRequire(import.meta.url);
const dataDir = resolve(process.env.DATA_DIR ?? join(repoRoot, 'data'));
const gatewayPort = process.env.PORT ?? '8080';
const mindsPort = process.env.MINDS_PORT ?? '8090';
const adminPort = process.env.ADMIN_PORT ?? '8081';
// The gateway serves the docs site; both services link their errors to it, on whatever PORT it has.
const docsBaseUrl = docsBaseUrlOf({ ...process.env, PORT: gatewayPort });

await ensureAssertionKeys(assertionKeyFiles(dataDir));

function mainOf(workspace: string): string | undefined {
  try {
    // The package's entry is dist/index.js; its runnable main sits beside it.
    return join(dirname(require.resolve(workspace)), 'main.js');
  } catch {
    return undefined;
  }
}

const children: ChildProcess[] = [];
function run(name: string, main: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [main], { env: { ...process.env, DATA_DIR: dataDir, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    console.error(`${name} exited (${signal ?? code}); stopping the stack.`);
    stop(1);
  });
  children.push(child);
  return child;
}

let stopping = false;
function stop(code = 0): void {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 2000).unref();
  Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r))))).then(() => process.exit(code));
}
process.once('SIGINT', () => stop());
process.once('SIGTERM', () => stop());
// Started by `npm run dev` (an IPC channel): when the loop is gone, so is the stack.
process.once('disconnect', () => stop());

const mindsMain = mainOf('@gateway-minds/minds');
const mindsStarted = Boolean(mindsMain && existsSync(mindsMain));
if (mindsStarted) {
  run('minds', mindsMain!, { PORT: mindsPort, IAM_INTERNAL_URL: `http://127.0.0.1:${adminPort}`, DOCS_BASE_URL: docsBaseUrl });
} else {
  console.warn('The Minds service is not built; the gateway starts alone and reports it down.');
}
const gatewayMain = mainOf('@gateway-minds/gateway');
if (!gatewayMain) throw new Error('the gateway is not built: run npm run build');
run('gateway', gatewayMain, { PORT: gatewayPort, ADMIN_PORT: adminPort, MINDS_URL: `http://127.0.0.1:${mindsPort}`, DOCS_BASE_URL: docsBaseUrl });

// Tell a newcomer how to get in once both answer: first the service's /healthz,
// only then the gateway's /v1/status, because a status probe while Minds is still
// creating its database would cache "down" for 30 seconds. (Polling the error
// catalog alongside instead delayed the gateway's first answer by ~0.6 s.)
const base = `http://127.0.0.1:${gatewayPort}`;
async function answers(url: string): Promise<boolean> {
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
const mindsUp = mindsStarted ? await answers(`http://127.0.0.1:${mindsPort}${HEALTH_PATH}`) : false;
const gatewayUp = await answers(`${base}/v1/status`);
if (!gatewayUp) console.warn('The gateway did not answer within a minute.');
if (mindsStarted && !mindsUp) console.warn('The Minds service did not answer within a minute; /v1/status reports it down.');
// `npm run dev` starts the stack with an IPC channel and restarts it on every contract change: tell it when both answer.
process.send?.({ stack: gatewayUp && (!mindsStarted || mindsUp) ? 'ready' : 'unready' });
// The admin command finds the admin listener through the data directory: a moved one must be named.
const shellWord = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);
const dataDirSetting = dataDir === resolve(repoRoot, 'data') ? '' : `DATA_DIR=${shellWord(dataDir)} `;
// STACK_BANNER=off: `npm run dev` prints its own, once, and restarts the stack often.
if (process.env.STACK_BANNER !== 'off') console.log(`
  The stack is up: ${base}  (data in ${dataDir})

  Get a credential (a signed-in session with a Sandbox selection):
    ${dataDirSetting}npm run admin -- issue --kind bridge_session
  then:
    curl ${base}/v1/whoami -H "Authorization: Bearer <token>"
    curl ${base}/v1/minds/services -H "Authorization: Bearer <token>"
`);
