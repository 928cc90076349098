/**
 * `npm start`'s program (apps/stack's dist/start.js) on free ports and a data directory of its own,
 * as a front-end developer runs it beside a dev server; a credential from its admin listener, found
 * through the data directory as `npm run admin` finds it. The caller stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { withFreePorts } from '@gateway-minds/testkit';

export interface NpmStart {
  /** The gateway's base URL. */
  url: string;
  /** A new signed-in session's token. */
  issueSession(): Promise<string>;
  close(): Promise<void>;
}

export function startNpmStart(env: Record<string, string> = {}): Promise<NpmStart> {
  const startJs = join(dirname(createRequire(import.meta.url).resolve('@gateway-minds/stack/package.json')), 'dist/start.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-minds-npm-start-'));
  return withFreePorts(3, async ([port, adminPort, mindsPort]) => {
    const child: ChildProcess = spawn(process.execPath, [startJs], {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env, DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort), MINDS_PORT: String(mindsPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start was not up within 120 s:\n${output}`)), 120_000);
      const collect = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('The stack is up')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', collect);
      child.stderr!.on('data', collect);
      child.once('exit', (code) => reject(new Error(`npm start exited (${code}) before it was up:\n${output}`)));
    });
    return {
      url: `http://127.0.0.1:${port}`,
      async issueSession() {
        const adminUrl = readFileSync(join(dataDir, 'admin-url'), 'utf8').trim();
        const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
        const response = await fetch(`${adminUrl}/admin/credentials`, {
          method: 'POST',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ kind: 'bridge_session' }),
        });
        if (!response.ok) throw new Error(`issuing a session: ${response.status} ${await response.text()}`);
        return ((await response.json()) as { token: string }).token;
      },
      async close() {
        if (child.exitCode === null) {
          const exited = once(child, 'exit');
          child.kill('SIGTERM');
          await exited;
        }
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  });
}
