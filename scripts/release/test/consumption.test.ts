/**
 * Consumption from outside the repository: packs the published packages with the command the README
 * gives for it (`npm run release:pack`, src/pack.ts), runs the `npm install` line it prints in a
 * scratch project in the OS temp dir (their registry dependencies come from npm; their dependencies
 * on each other from the tarballs), type-checks a consumer there with `moduleResolution` nodenext and
 * bundler, runs it against a started stack, and starts the installed CLI and MCP server.
 *
 * The two type checks use the two compilers a consumer may have: nodenext, the strictest
 * resolution, on TypeScript 5.9 (the root's `typescript`, a consumer who has not moved on), and
 * bundler on TypeScript 7 (`tsgo`). Both check the packages' declarations (`skipLibCheck: false`).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { errorCatalog, operationIds, operationPath, operationTable } from '@gateway-minds/contract';
import { startStack, type IssuedCredential, type Stack } from '@gateway-minds/testkit';
import { dereferenced } from '@gateway-minds/contract-judge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedPackages, readManifest, repoRoot } from '../src/published.js';

const run = promisify(execFile);
const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
const tsgo = join(repoRoot, 'node_modules/.bin/tsgo');

/** The environment without npm's own npm_* variables: the scratch install must not see the workspace. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  return { ...env, ...extra };
}

/** The fenced blocks of one language in the README's section "## Use it from npm". */
function readmeBlocks(language: 'ts' | 'json'): string[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Use it from npm\n'));
  if (!section) throw new Error('README.md has no section "## Use it from npm"');
  return [...section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

let scratch: string;
let project: string;
let tarballs: { name: string; file: string; files: string[] }[];
let packOutput: string;
let stack: Stack;
let credential: IssuedCredential;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'gateway-minds-consumer-'));
  const packs = join(scratch, 'packs');
  project = join(scratch, 'project');
  mkdirSync(packs);
  mkdirSync(project);
  // The packages are built (turbo runs this suite after their build): the README's command, without its build step.
  packOutput = (await run('npm', ['run', '-s', 'release:pack', '--', '--no-build', '--out', packs], { cwd: repoRoot, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 })).stdout;
  const installLine = packOutput.split('\n').find((line) => line.startsWith('npm install '));
  if (!installLine) throw new Error(`npm run release:pack printed no npm install line:\n${packOutput}`);
  tarballs = await Promise.all(
    installLine.slice('npm install '.length).split(' ').map(async (file) => {
      const manifest = JSON.parse((await run('tar', ['-xzOf', file, 'package/package.json'])).stdout) as { name: string };
      const files = (await run('tar', ['-tzf', file])).stdout.split('\n').filter(Boolean).map((path) => path.replace(/^package\//, ''));
      return { name: manifest.name, file, files };
    }),
  );
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2));
  // The printed line as a developer pastes it into a shell, in the other project (quiet flags added for the log).
  await run('sh', ['-c', `${installLine} --no-audit --no-fund --prefer-offline`], { cwd: project, env: cleanEnv() });
  copyFileSync(join(import.meta.dirname, '../fixture/consumer.ts'), join(project, 'consumer.ts'));
  copyFileSync(join(import.meta.dirname, '../fixture/mock-consumer.ts'), join(project, 'mock-consumer.ts'));
  // The README's snippet as a module of its own; `process` declared, as a browser bundle would not have it.
  writeFileSync(join(project, 'readme.ts'), `declare const process: { env: Record<string, string | undefined> };\n${readmeBlocks('ts')[0]}\nexport {};\n`);
  stack = await startStack();
  credential = await stack.issue('bridge_session');
}, 240_000);

afterAll(async () => {
  await stack?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('npm pack of the published packages', () => {
  it('npm run release:pack writes every published package into one folder and prints one npm install line for them all', () => {
    expect(tarballs.map((t) => t.name)).toEqual(publishedPackages.map((p) => p.name));
    expect(new Set(tarballs.map((t) => dirname(t.file)))).toEqual(new Set([join(scratch, 'packs')]));
    expect(packOutput.split('\n').filter((line) => line.startsWith('npm install '))).toHaveLength(1);
  });

  it('packs each published package: its dist, its bin shims, package.json, README and CHANGELOG, no sources or tests', () => {
    expect(tarballs.map((t) => t.name)).toEqual(publishedPackages.map((p) => p.name));
    for (const tarball of tarballs) {
      const paths = tarball.files;
      expect(paths, tarball.name).toContain('package.json');
      expect(paths, tarball.name).toContain('CHANGELOG.md');
      expect(paths, tarball.name).toContain('README.md');
      // bin/ holds the committed shims that load dist/ (linked before any build in the repository).
      expect(paths.filter((p) => !/^(dist\/|bin\/[\w.-]+\.js$|package\.json$|README\.md$|CHANGELOG\.md$|LICENSE$)/.test(p)), tarball.name).toEqual([]);
    }
  });

  it('installs in an empty project outside the workspace: one copy of each, from the tarballs, at its version', () => {
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; resolved?: string }> };
    const ours = Object.entries(lock.packages).filter(([path]) => /(^|\/)node_modules\/@gateway-minds\//.test(path));
    // The client, CLI, MCP server and MSW handlers share the contract (and the client) installed beside them: no nested or registry copy.
    expect(ours.map(([path]) => path).sort()).toEqual(publishedPackages.map((p) => `node_modules/${p.name}`).sort());
    for (const [path, entry] of ours) {
      const name = path.replace(/^node_modules\//, '');
      expect(entry.version, name).toBe(readManifest(publishedPackages.find((p) => p.name === name)!.dir).version);
      expect(entry.resolved, name).toMatch(/^file:/);
    }
  });
});

describe('a consumer of the installed tarballs', () => {
  const base = { target: 'ES2022', lib: ['ES2023', 'DOM', 'DOM.Iterable'], types: [], strict: true, skipLibCheck: false };

  it('type-checks and compiles with module and moduleResolution nodenext (ESM)', async () => {
    writeFileSync(join(project, 'tsconfig.nodenext.json'), JSON.stringify({ compilerOptions: { ...base, module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'out' }, files: ['consumer.ts', 'mock-consumer.ts', 'readme.ts'] }));
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.nodenext.json'], { cwd: project }).catch((e) => e);
    expect(`${result.stdout}${result.stderr ?? ''}`).toBe('');
  });

  it('type-checks with moduleResolution bundler, on TypeScript 7', async () => {
    writeFileSync(join(project, 'tsconfig.bundler.json'), JSON.stringify({ compilerOptions: { ...base, module: 'ESNext', moduleResolution: 'Bundler', noEmit: true }, files: ['consumer.ts', 'mock-consumer.ts', 'readme.ts'] }));
    const result = await run(tsgo, ['-p', 'tsconfig.bundler.json'], { cwd: project }).catch((e) => e);
    expect(`${result.stdout}${result.stderr ?? ''}`).toBe('');
  });

  it('runs the compiled consumer against the started stack', async () => {
    const script = 'const { run } = await import("./out/consumer.js"); console.log(JSON.stringify(await run(process.argv[1], process.argv[2])));';
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, stack.url, credential.token], { cwd: project });
    const report = JSON.parse(stdout);
    expect(report.principalKind).toBe('bridge_session');
    expect(report.mindCount).toBeTypeOf('number');
    // spec/paths/v1_minds_services_{mind_id}.yaml: an unknown mind is `NOT_FOUND`, a NotFoundError in the client.
    expect(report.errorCode).toBe('NOT_FOUND');
    expect(report.errorCode in errorCatalog).toBe(true);
    expect(report.notFound).toBe(true);
    expect(report.whoamiPath).toBe(operationPath('gateway_getPrincipal'));
    expect(report.operationCount).toBe(operationIds.length);
  });

  it('runs a front-end test against the installed MSW handlers, the installed client calling them', async () => {
    const script = 'const { runAgainstMocks } = await import("./out/mock-consumer.js"); console.log(JSON.stringify(await runAgainstMocks(process.argv[1])));';
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, 'https://gateway.example.test'], { cwd: project });
    const report = JSON.parse(stdout);
    // The mocks answer the first named example of the success status (spec/DECISIONS.md, "Which example an MSW handler answers").
    const whoami = operationTable.gateway_getPrincipal;
    const examples = dereferenced.paths[whoami.path]?.[whoami.method]?.responses[String(whoami.successStatus)]?.content?.['application/json']?.examples ?? {};
    expect(report.principalKind).toBe((Object.values(examples)[0]?.value as { kind: string }).kind);
    // The list walk meets each example Mind once (spec/DECISIONS.md, "MSW handlers: a cursor leads to the last page").
    expect(report.mindNames.length).toBeGreaterThan(0);
    expect(new Set(report.mindNames).size).toBe(report.mindNames.length);
    // spec/DECISIONS.md, "Which code for a validation failure": a path parameter -> INVALID_IDENTIFIER at path.<name>.
    expect(report.refusedCode).toBe('INVALID_IDENTIFIER');
    // Every constraint the id breaks is listed, each located as the servers locate it.
    expect(report.refusedAt.length).toBeGreaterThan(0);
    expect(new Set(report.refusedAt)).toEqual(new Set(['path.mind_id']));
  });

  it('runs the installed CLI (node_modules/.bin/gateway-minds) from the scratch project', async () => {
    const { stdout } = await run(join(project, 'node_modules/.bin/gateway-minds'), ['gateway_getPrincipal'], {
      cwd: project,
      env: cleanEnv({ GATEWAY_MINDS_URL: stack.url, GATEWAY_MINDS_TOKEN: credential.token }),
    });
    expect(JSON.parse(stdout)).toMatchObject({ kind: 'bridge_session', org: credential.organization_id });
  });

  it('starts the installed MCP server (node_modules/.bin/gateway-minds-mcp) over stdio and calls a tool', async () => {
    const transport = new StdioClientTransport({
      command: join(project, 'node_modules/.bin/gateway-minds-mcp'),
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? '', GATEWAY_MINDS_URL: stack.url, GATEWAY_MINDS_TOKEN: credential.token },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'consumer-check', version: '0.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...operationIds].sort());
      const result = await client.callTool({ name: 'gateway_getPrincipal', arguments: {} });
      const [first] = result.content as { type: string; text: string }[];
      expect(JSON.parse(first!.text)).toMatchObject({ kind: 'bridge_session' });
    } finally {
      await client.close();
    }
  });

  it("starts the MCP server with the README's published configuration (Use it from npm), the package installed beside it", async () => {
    // From a directory without the package, `npx -y @gateway-minds/mcp` fetches it from npm: possible only after the
    // first release. Here npx finds the installed tarball in the project, so the configuration's command and arguments run.
    const [block] = readmeBlocks('json');
    const config = Object.values((JSON.parse(block!) as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> }).mcpServers)[0]!;
    expect(config.command).toBe('npx');
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...config.env, GATEWAY_MINDS_URL: stack.url, GATEWAY_MINDS_TOKEN: credential.token },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'consumer-check-readme', version: '0.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(config.args).toContain('--read-only');
      expect(tools.map((t) => t.name)).toContain('gateway_getPrincipal');
      expect(tools.map((t) => t.name)).not.toContain('minds_createMind');
    } finally {
      await client.close();
    }
  });
});
