/**
 * The stack as separate processes: the Minds service on MINDS_PORT, the gateway in front of it
 * forwarding over loopback TCP — the shape the services take across several machines. If either
 * exits, the other is stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { HEALTH_PATH } from '@gateway-minds/service-kit/side-routes';
import type { RunningStack } from './all-in-one.js';
import type { StackSettings } from './settings.js';

const require = createRequire(import.meta.url);

function mainOf(workspace: string): string | undefined {
  try {
    // The package's entry is dist/index.js; its runnable main sits beside it.
    return join(dirname(require.resolve(workspace)), 'main.js');
  } catch {
    return undefined;
  }
}

export async function startProcesses(settings: StackSettings, onExit: (name: string, code: number | string | null) => void): Promise<RunningStack> {
  const children: ChildProcess[] = [];
  let stopping = false;
  const run = (name: string, main: string, env: Record<string, string>) => {
    const child = spawn(process.execPath, [main], { env: { ...process.env, DATA_DIR: settings.dataDir, DOCS_BASE_URL: settings.docsBaseUrl, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code, signal) => {
      if (!stopping) onExit(name, signal ?? code);
    });
    children.push(child);
  };

  const mindsMain = mainOf('@gateway-minds/minds');
  const mindsStarted = Boolean(mindsMain && existsSync(mindsMain));
  if (mindsStarted) {
    run('minds', mindsMain!, { PORT: settings.mindsPort, IAM_INTERNAL_URL: `http://127.0.0.1:${settings.adminPort}` });
  } else {
    console.warn('The Minds service is not built; the gateway starts alone and reports it down.');
  }
  const gatewayMain = mainOf('@gateway-minds/gateway');
  if (!gatewayMain) throw new Error('the gateway is not built: run npm run build');
  run('gateway', gatewayMain, { PORT: settings.gatewayPort, ADMIN_PORT: settings.adminPort, MINDS_URL: `http://127.0.0.1:${settings.mindsPort}` });

  // The service's /healthz first, only then the gateway's /v1/status: a status probe while Minds
  // is still creating its database would cache "down" for 30 seconds.
  if (mindsStarted && !(await answers(`http://127.0.0.1:${settings.mindsPort}${HEALTH_PATH}`))) {
    console.warn('The Minds service did not answer within a minute; /v1/status reports it down.');
  }
  return {
    url: `http://127.0.0.1:${settings.gatewayPort}`,
    async close() {
      stopping = true;
      for (const child of children) child.kill('SIGTERM');
      await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)))));
    },
  };
}

/** Whether `url` answers 2xx within a minute. */
export async function answers(url: string): Promise<boolean> {
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
