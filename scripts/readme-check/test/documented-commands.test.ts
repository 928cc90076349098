/**
 * What the README and the docs site's getting-started page tell a newcomer to
 * run, run: every shell block executes with bash against a stack started here
 * on free ports (the real `npm start` program, apps/stack/dist/start.js, and
 * the real mock), and every TypeScript block type-checks against the built
 * packages. A documented command that fails fails this test. A block or line
 * the test cannot run carries a visible `not run by the docs test: why`
 * marker (src/blocks.ts); the skipped ones are listed in the test names.
 *
 * The blocks run in a scratch copy of the repository (scripts/dev's scratchRepository), built from
 * the repository's turbo cache: `npm run build`, `npm run docs` and `npm run release:pack` replay
 * and write the copy's outputs, not the dist/ trees that other workspaces' tests, running beside
 * this one, are serving (a replay writes its outputs again, and a test serving them meanwhile can
 * find a file missing).
 */
import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { operationPath } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { scratchRepository, type ScratchRepository } from '@gateway-minds/dev/scratch';
import { docsSiteDir } from '@gateway-minds/docs';
import { freePort, withFreePorts } from '@gateway-minds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlBlocks, markdownBlocks, type CodeBlock } from '../src/blocks.js';
import { runShellBlock, type DocumentedEnvironment } from '../src/shell.js';
import { typeCheckBlocks } from '../src/typecheck.js';

const workspaceDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(workspaceDir, '../..');

const documents: { name: string; blocks: CodeBlock[] }[] = [
  { name: 'README.md', blocks: markdownBlocks(readFileSync(join(repoRoot, 'README.md'), 'utf8'), 'README.md') },
  {
    name: 'getting started (apps/docs, built index.html)',
    blocks: htmlBlocks(readFileSync(join(docsSiteDir, 'index.html'), 'utf8'), 'docs index.html'),
  },
];

/** The documented defaults: the spec's servers (stack, then mock) and the admin listener's default. */
const servers = (openapiDocument as unknown as { servers: { url: string }[] }).servers;
const documentedStack = servers[0]!.url;
const documentedMock = servers[1]!.url;
const documentedAdmin = 'http://127.0.0.1:8081';

const children: ChildProcess[] = [];
let dataDir: string;
let scratch: ScratchRepository | undefined;
let scratchRoot: string;
let environment: DocumentedEnvironment;

/** Starts a program in its own process group and waits until `url` answers 200. */
async function startServer(args: string[], env: Record<string, string>, url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  children.push(child);
  // Passed on as it comes, and kept: an exit's error quotes it (withFreePorts looks for EADDRINUSE there).
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    process.stderr.write(chunk);
  });
  for (const started = Date.now(); Date.now() - started < 90_000; ) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}:\n${stderr}`);
    try {
      if ((await fetch(url)).ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${args.join(' ')} did not answer ${url}`);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'readme-check-data-'));
  scratch = scratchRepository('readme-check-');
  // Built as a reader's clone is after `npm start`, for the blocks that run a built program before
  // the README's `npm run build` (every task a replay from the repository's cache).
  execFileSync(join(scratch.root, 'node_modules/.bin/turbo'), ['run', 'build', '--output-logs=errors-only'], { cwd: scratch.root, env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' }, stdio: 'pipe' });
  // Inside the copy, so that `npm run` and `npx` find it as they do for a reader at its root.
  mkdirSync(join(scratch.root, '.readme-check'), { recursive: true });
  scratchRoot = mkdtempSync(join(scratch.root, '.readme-check', 'run-'));
  const status = operationPath('gateway_getStatus');
  const [[gatewayPort, adminPort, mindsPort], mockPort, docsPort] = await Promise.all([
    withFreePorts(3, async (ports) => {
      const [gateway, admin, minds] = ports.map(String);
      await startServer([join(repoRoot, 'apps/stack/dist/start.js')], { PORT: gateway!, ADMIN_PORT: admin!, MINDS_PORT: minds!, DATA_DIR: dataDir }, `http://127.0.0.1:${gateway}${status}`);
      return ports;
    }),
    withFreePorts(1, async ([port]) => {
      await startServer(['--import', 'tsx', join(repoRoot, 'apps/mock/src/start-mock.ts')], { MOCK_PORT: String(port) }, `http://127.0.0.1:${port}${status}`);
      return port!;
    }),
    // DOCS_PORT, for the blocks that read it (none serves the docs: that one stays in the foreground).
    freePort(),
  ]);
  const stackUrl = `http://127.0.0.1:${gatewayPort}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const mockUrl = `http://127.0.0.1:${mockPort}`;
  // The README's own way to get a token, for the blocks that use one without issuing it.
  const issued = execFileSync(process.execPath, [join(repoRoot, 'apps/gateway/dist/admin/cli.js'), 'issue', '--kind', 'bridge_session'], {
    env: { ...process.env, ADMIN_URL: adminUrl, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  const token = (JSON.parse(issued) as { token: string }).token;
  environment = {
    scratchRoot,
    addresses: [
      { documented: documentedStack, actual: stackUrl },
      { documented: documentedAdmin, actual: adminUrl },
      { documented: documentedMock, actual: mockUrl },
    ],
    env: {
      PORT: String(gatewayPort),
      ADMIN_PORT: String(adminPort),
      ADMIN_URL: adminUrl,
      MINDS_PORT: String(mindsPort),
      MOCK_PORT: String(mockPort),
      DOCS_PORT: String(docsPort),
      DATA_DIR: dataDir,
      GATEWAY_MINDS_URL: stackUrl,
      GATEWAY_MINDS_TOKEN: token,
      NO_COLOR: '1',
      TURBO_TELEMETRY_DISABLED: '1',
      NO_UPDATE_NOTIFIER: '1',
    },
  };
});

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid!, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  }
  scratch?.remove();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe.each(documents)('$name', ({ blocks }) => {
  it('has documented blocks to run', () => {
    expect(blocks.filter((b) => b.language === 'sh' && !b.skipped).length).toBeGreaterThan(0);
  });

  const shell = blocks.filter((b) => b.language === 'sh');
  for (const block of shell) {
    const firstLine = block.code.split('\n')[0]!.slice(0, 60);
    if (block.skipped) {
      it.skip(`${block.where} \`${firstLine}\` (not run: ${block.skipped})`, () => {});
      continue;
    }
    it(`${block.where} runs: \`${firstLine}\``, async () => {
      const result = await runShellBlock(block.code, environment, 150_000);
      expect(result.exitCode, `${block.where} failed\n--- script\n${result.script}\n--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-4000)}`).toBe(0);
    });
  }

  const typescript = blocks.filter((b) => b.language === 'ts' && !b.skipped);
  if (typescript.length > 0) {
    it(`type-checks its ${typescript.length} TypeScript block(s) against the built packages`, () => {
      const names = typescript.map((b, i) => ({ name: `documented-block-${i + 1}`, code: b.code, where: b.where }));
      const results = typeCheckBlocks(names, workspaceDir);
      const failures = names.flatMap((b) => (results.get(b.name) ?? []).map((d) => `${b.where} ${d}`));
      expect(failures).toEqual([]);
    });
  }
});

describe('the extraction', () => {
  it('finds fenced and HTML blocks, their languages and their skip markers', () => {
    const md = ['# t', '', '```sh', 'echo one', '```', '', '<!-- not run by the docs test: it stays in the foreground -->', '```bash', 'serve', '```', '', '```', 'tree', '```', '', '```ts', 'const a = 1;', '```'].join('\n');
    expect(markdownBlocks(md, 'x.md')).toEqual([
      { where: 'x.md:3', language: 'sh', code: 'echo one' },
      { where: 'x.md:8', language: 'sh', code: 'serve', skipped: 'it stays in the foreground' },
      { where: 'x.md:16', language: 'ts', code: 'const a = 1;' },
    ]);
    const html = '<p>a</p><pre><code>curl a &amp;&amp; b</code></pre>\n<!-- not run by the docs test: why -->\n<pre><code>npm start</code></pre><pre><code class="language-ts">let x = 1;</code></pre>';
    expect(htmlBlocks(html, 'p.html')).toEqual([
      { where: 'p.html block 1', language: 'sh', code: 'curl a && b' },
      { where: 'p.html block 2', language: 'sh', code: 'npm start', skipped: 'why' },
      { where: 'p.html block 3', language: 'ts', code: 'let x = 1;' },
    ]);
  });

  it('a failing documented command fails its block, and a type error is reported', async () => {
    const failing = await runShellBlock('true\nfalse\necho never', environment, 10_000);
    expect(failing.exitCode).not.toBe(0);
    expect(failing.stdout).not.toContain('never');
    const skipped = await runShellBlock('exit 3   # not run by the docs test: a demonstration', environment, 10_000);
    expect(skipped.exitCode).toBe(0);
    const results = typeCheckBlocks([{ name: 'bad-block', code: "import { createClient } from '@gateway-minds/client';\ncreateClient({ baseUrl: 1 });" }], workspaceDir);
    expect(results.get('bad-block')!.join('\n')).toMatch(/baseUrl|number/);
  });
});

describe('every command-line program a workspace names', () => {
  // npm links a workspace's bin at install, before any build: a bin inside dist/ would not be linked, so each must be a committed file.
  it('points at a file in git, so that the first npm install links it', () => {
    const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' }).split('\n'));
    const manifests = execFileSync('git', ['ls-files', '*/package.json', 'package.json'], { cwd: repoRoot, encoding: 'utf8' }).split('\n').filter(Boolean);
    const bins: string[] = [];
    for (const manifest of manifests) {
      const { bin } = JSON.parse(readFileSync(join(repoRoot, manifest), 'utf8')) as { bin?: string | Record<string, string> };
      for (const target of typeof bin === 'string' ? [bin] : Object.values(bin ?? {})) {
        const path = join(dirname(manifest), target).replace(/^\.\//, '');
        bins.push(path);
        expect(tracked, `${manifest}: bin ${target}`).toContain(path);
      }
    }
    expect(bins.length).toBeGreaterThanOrEqual(3);
    // And npx resolves each from the repository root.
    for (const name of ['gateway-minds', 'gateway-minds-mcp', 'gateway-admin']) {
      const run = spawnSync('npx', ['--no-install', name, '--help'], { cwd: repoRoot, encoding: 'utf8' });
      expect(run.status, `${name}: ${run.stderr}`).toBe(0);
    }
  });
});
