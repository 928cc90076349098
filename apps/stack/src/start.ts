/**
 * `npm start`: the whole stack on the embedded default. One data directory (DATA_DIR) holds each
 * service's PGlite database, the assertion key pair and the admin token. By default the gateway and
 * the Minds service run in this one process (all-in-one.ts); STACK_TOPOLOGY=processes runs each in
 * its own (processes.ts). Settings: settings.ts. Ctrl-C stops the stack.
 */
import { resolve } from 'node:path';
// Only the key files: the whole kit (Express, the validator) loads with the topology that needs it,
// and the assertion module (jose) only when keys must be created.
import { assertionKeyFiles, ensureAssertionKeys } from '@gateway-minds/service-kit/assertion-keys';
import { operationPath } from '@gateway-minds/contract';
import type { RunningStack } from './all-in-one.js';
import { answers } from './processes.js';
import { stackSettings } from './settings.js';

const settings = stackSettings();
await ensureAssertionKeys(assertionKeyFiles(settings.dataDir));

let stack: RunningStack | undefined;
let stopping = false;
function stop(code = 0): void {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(code), 5000).unref();
  void (stack?.close() ?? Promise.resolve()).then(
    () => process.exit(code),
    (error: unknown) => {
      console.error('The stack did not stop cleanly:', error);
      process.exit(1);
    },
  );
}
// `on`, not `once`: a library's signal-exit handler re-raises the signal when it finds no other listener left.
process.on('SIGINT', () => stop());
process.on('SIGTERM', () => stop());
// Started by `npm run dev` (an IPC channel): when the loop is gone, so is the stack.
process.once('disconnect', () => stop());

const base = `http://127.0.0.1:${settings.gatewayPort}`;
let ready: boolean;
if (settings.topology === 'all-in-one') {
  const { startAllInOne } = await import('./all-in-one.js');
  try {
    stack = await startAllInOne(settings);
  } catch (error) {
    console.error(`${(error as Error).message}; stopping the stack.`);
    process.exit(1);
  }
  ready = true;
} else {
  const { startProcesses } = await import('./processes.js');
  stack = await startProcesses(settings, (name, code) => {
    console.error(`${name} exited (${code}); stopping the stack.`);
    stop(1);
  });
  ready = await answers(`${base}${operationPath('gateway_getStatus')}`);
  if (!ready) console.warn('The gateway did not answer within a minute.');
}
// `npm run dev` starts the stack with an IPC channel and restarts it on every contract change: tell it when it answers.
process.send?.({ stack: ready ? 'ready' : 'unready' });

// The admin command finds the admin listener through the data directory: a moved one must be named.
const shellWord = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);
const dataDirSetting = settings.dataDir === resolve(settings.repoRoot, 'data') ? '' : `DATA_DIR=${shellWord(settings.dataDir)} `;
// STACK_BANNER=off: `npm run dev` prints its own, once, and restarts the stack often.
if (process.env.STACK_BANNER !== 'off') console.log(`
  The stack is up: ${base}  (data in ${settings.dataDir}; ${settings.topology === 'all-in-one' ? 'one process' : 'separate processes'})

  Get a credential (a signed-in session with a Sandbox selection):
    ${dataDirSetting}npm run admin -- issue --kind bridge_session
  then:
    curl ${base}${operationPath('gateway_getPrincipal')} -H "Authorization: Bearer <token>"
    curl ${base}${operationPath('minds_listMinds')} -H "Authorization: Bearer <token>"
`);
