/** Starts the Prism mock the way `npm run mock` does (apps/mock's start-mock.ts) on a free port, with `env` added; the caller stops it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { withFreePorts } from '@gateway-minds/testkit';

export interface PrismMock {
  url: string;
  close(): Promise<void>;
}

/** The mock on a free port: on another if that one was taken before Prism bound it (Prism then exits, saying EADDRINUSE). */
export function startPrismMock(env: Record<string, string> = {}): Promise<PrismMock> {
  return withFreePorts(1, ([port]) => startPrismMockOn(port!, env));
}

async function startPrismMockOn(port: number, extraEnv: Record<string, string>): Promise<PrismMock> {
  const mockDir = dirname(createRequire(import.meta.url).resolve('@gateway-minds/mock/package.json'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/start-mock.ts'], {
    cwd: mockDir,
    env: { ...process.env, ...extraEnv, MOCK_PORT: String(port), MOCK_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start within 120 s:\n${output}`)), 120_000);
    child.once('exit', (code) => reject(new Error(`Prism exited (${code}):\n${output}`)));
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
