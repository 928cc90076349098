/**
 * `npm run spec:review` on temporary git repositories: real git, the real lint
 * (@redocly/openapi-core, judged against the `redocly lint` CLI), real bundling. The review runs in
 * this process (runReview, with the arguments, directory and environment CI gives the CLI), and
 * once from the command line, which must say the same.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { toyApi, type Doc } from '@gateway-minds/spec-review/toy-api';
import { runReview } from '../src/review-command.js';
import { lintSpec } from '../src/sources.js';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
/** The `redocly lint` command line, which judges the review's in-process lint. */
const redoclyCli = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

interface RedoclyLintJson {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { source: { ref: string }; start: { line: number }; pointer: string }[] }[];
}
const tsxLoader = import.meta.resolve('tsx');
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const made: string[] = [];

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=Spec Review Test', '-c', 'user.email=spec-review@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

function tempRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spec-review-test-'));
  made.push(dir);
  git(dir, 'init', '-q', '-b', 'main');
  return dir;
}

function writeToy(dir: string, doc: Doc): void {
  cpSync(join(import.meta.dirname, 'fixtures/redocly.yaml'), join(dir, 'redocly.yaml'));
  // JSON is YAML: the spec's root file name stays openapi.yaml.
  writeFileSync(join(dir, 'spec/openapi.yaml'), `${JSON.stringify(doc, null, 2)}\n`);
}

/** The review as `npm run spec:review` runs it, in this process: its exit code and what it wrote. */
async function review(cwd: string, args: string[], env: Record<string, string> = {}) {
  const started = performance.now();
  const output = { stdout: '', stderr: '' };
  const code = await runReview(args, {
    cwd,
    env: { ...process.env, SPEC_REVIEW_ACCEPT_BREAKING: '', GITHUB_STEP_SUMMARY: '', ...env },
    stdout: (text) => (output.stdout += text),
    stderr: (text) => (output.stderr += text),
  });
  return { code, ...output, ms: performance.now() - started };
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('spec:review on a git repository', () => {
  const repo = tempRepo();
  mkdirSync(join(repo, 'spec'));
  writeToy(repo, toyApi());
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'v1');

  it('fails on a breaking change in the working tree, reporting it in Markdown, each change with its file and line', async () => {
    const head = toyApi();
    delete head.paths['/pets/{pet_id}'].delete;
    head.components.schemas.NewPet.properties.name.maxLength = 40;
    writeToy(repo, head);
    const run = await review(repo, ['--base', 'HEAD']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('## Spec review');
    expect(run.stdout).toContain('❌ **2 breaking changes, not acknowledged.**');
    expect(run.stdout).toContain('`breaking-change-accepted`');
    expect(run.stdout).toContain('| Operations added / removed / changed | 0 / 1 / 1 |');
    expect(run.stdout).toMatch(/- 🔴 \*\*breaking\*\* `pets_delete` `DELETE \/pets\/\{pet_id\}`: operation removed without being deprecated first <sub>`api-removed`<\/sub> <sub>spec\/openapi\.yaml:\d+<\/sub>/);
    expect(run.stdout).toMatch(/schema `NewPet` \(request\) \.name: `maxLength` lowered 80 → 40 <sub>`request-max-length-decreased`<\/sub> <sub>spec\/openapi\.yaml:\d+<\/sub>/);
    expect(run.stdout).toContain('| Lint (`redocly lint`) | 0 errors');
    expect(run.stderr).toContain('-> FAIL');
  });

  it('runs the same review from the command line (src/cli.ts, as `npm run spec:review` starts it): the same exit code, report and summary', async () => {
    const inProcess = await review(repo, ['--base', 'HEAD', '--format', 'github']);
    const spawned = spawnSync(process.execPath, ['--import', tsxLoader, '--conditions=@gateway-minds/source', cli, '--base', 'HEAD', '--format', 'github'], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, SPEC_REVIEW_ACCEPT_BREAKING: '', GITHUB_STEP_SUMMARY: '' },
    });
    expect(spawned.status, spawned.stderr).toBe(1);
    expect([spawned.status, spawned.stdout, spawned.stderr]).toEqual([inProcess.code, inProcess.stdout, inProcess.stderr]);
  });

  it('--output writes the format --format names; --markdown writes the Markdown report beside it', async () => {
    const run = await review(repo, ['--base', 'HEAD', '--format', 'json', '--output', join(repo, 'report.json'), '--markdown', join(repo, 'report.md')]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(readFileSync(join(repo, 'report.json'), 'utf8')).summary.breaking).toBe(2);
    expect(readFileSync(join(repo, 'report.md'), 'utf8')).toMatch(/^## Spec review\n/);
  });

  it('reports the same changes as JSON (id, level, operations, file, line, pointer, message; lint with locations) and as GitHub annotations on the changed lines', async () => {
    const json = await review(repo, ['--base', 'HEAD', '--format', 'json']);
    expect(json.code, json.stderr).toBe(1);
    type Reported = { id: string; level: string; operations: string[]; file: string; line: number; pointer: string; message: string };
    const report = JSON.parse(json.stdout) as { breaking: Reported[]; changes: Reported[]; lint: { errors: number; problems: unknown[] } };
    expect(report.breaking.map((c) => c.id)).toEqual(['api-removed', 'request-max-length-decreased']);
    const written = readFileSync(join(repo, 'spec/openapi.yaml'), 'utf8').split('\n');
    const maxLengthLine = written.findIndex((l, i) => l.includes('"maxLength": 40') && written.slice(0, i).some((p) => p.includes('"NewPet"'))) + 1;
    expect(maxLengthLine).toBeGreaterThan(1);
    expect(report.changes.find((c) => c.id === 'request-max-length-decreased')).toMatchObject({ level: 'breaking', operations: ['pets_create'], file: 'spec/openapi.yaml', line: maxLengthLine, pointer: '/components/schemas/NewPet/properties/name/maxLength', message: '`maxLength` lowered 80 → 40' });
    expect(report.lint).toMatchObject({ errors: 0 });

    const github = await review(repo, ['--base', 'HEAD', '--format', 'github']);
    expect(github.code, github.stderr).toBe(1);
    expect(github.stdout).toContain(`::error file=spec/openapi.yaml,line=${maxLengthLine},title=request-max-length-decreased (breaking)::`);
    // The removed operation: on the line now where `delete` was (the path item's next method, or the path's key), not line 1.
    expect(github.stdout).toMatch(/^::error file=spec\/openapi\.yaml,line=([2-9]|\d\d+),title=api-removed \(breaking\)::pets_delete: DELETE \/pets\/\{pet_id\}: operation removed without being deprecated first$/m);
  });

  it('annotates acknowledged breaking changes as warnings', async () => {
    const github = await review(repo, ['--base', 'HEAD', '--format', 'github', '--accept-breaking']);
    expect(github.code, github.stderr).toBe(0);
    expect(github.stdout).not.toContain('::error');
    expect(github.stdout).toMatch(/^::warning file=spec\/openapi\.yaml,line=\d+,title=request-max-length-decreased \(breaking%2C acknowledged\)::/m);
  });

  it('re-levels a check by id (--level), and refuses a malformed one', async () => {
    const relevelled = await review(repo, ['--base', 'HEAD', '--level', 'request-max-length-decreased=warning', '--level', 'api-removed=info']);
    expect(relevelled.code, relevelled.stderr).toBe(0);
    expect(relevelled.stdout).toContain('✅ **No breaking changes.**');
    expect((await review(repo, ['--base', 'HEAD', '--level', 'api-removed=fatal'])).code).toBe(2);
  });

  it('passes when the breaking change is acknowledged, by flag or by the variable CI sets from the label', async () => {
    const byFlag = await review(repo, ['--base', 'HEAD', '--accept-breaking']);
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(byFlag.stdout).toContain('⚠️ **2 breaking changes, acknowledged.**');
    const byEnv = await review(repo, ['--base', 'HEAD'], { SPEC_REVIEW_ACCEPT_BREAKING: '1' });
    expect(byEnv.code, byEnv.stderr).toBe(0);
  });

  it('says what a new operation needs: a handler (the scaffold command, where it is bound), the rest being generated; and shows appended sections', async () => {
    const head = toyApi();
    head.paths['/pets/{pet_id}'].put = { operationId: 'pets_replace', summary: 'Replace a pet', responses: { '200': { description: 'ok' } } };
    writeToy(repo, head);
    writeFileSync(join(repo, 'preview.md'), '### Next release\n\n0.2.0 (minor)\n');
    const run = await review(repo, ['--base', 'HEAD', '--append', join(repo, 'preview.md')]);
    expect(run.stdout).toContain('### Next release\n\n0.2.0 (minor)');
    expect(run.stdout).toContain('- `pets_replace` `PUT /pets/{pet_id}`: Replace a pet');
    expect(run.stdout).toContain('↳ needs a server handler: `npm run scaffold:handler -- pets_replace` writes a stub, bound in `apps/gateway/src/routes/gateway-routes.ts`.');
    expect(run.stdout).toContain('The typed client, the CLI, the MCP server, the MSW handlers, the Prism mock and the docs pick new operations up by themselves');
  });

  it('passes a compatible change between two commits', async () => {
    const head = toyApi();
    head.components.schemas.NewPet.properties.color = { type: 'string', maxLength: 20 };
    head.components.schemas.PetStatus.enum.push('adopted');
    writeToy(repo, head);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'v2: optional color, a new status');
    const run = await review(repo, ['--base', 'HEAD~1', '--head', 'HEAD']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('✅ **No breaking changes.**');
    expect(run.stdout).toContain('new optional property `color`');
    expect(run.stdout).toContain('may now return enum value `adopted`');
  });

  it('fails on lint errors even when breaking changes are acknowledged', async () => {
    const head = toyApi();
    delete head.paths['/status'].get.summary; // the fixture config makes operation-summary an error
    writeToy(repo, head);
    const run = await review(repo, ['--base', 'HEAD', '--accept-breaking']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('❌ **The head spec does not lint: 1 error.**');
    expect(run.stdout).toMatch(/- error `operation-summary`: .* \(spec\/openapi\.yaml:\d+/);
  });

  it('lints in-process as `redocly lint` does: the same totals, and each problem with its rule, level, message, file, line and pointer, errors first', async () => {
    const head = toyApi();
    delete head.paths['/status'].get.summary; // an error under the fixture's config
    head.components.schemas.NewPet.properties.name.enum = [1]; // no-enum-type-mismatch: a warning under `minimal`
    head.paths['/status'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/NoSuchSchema' };
    writeToy(repo, head);
    // The review's own lint, called in this process (the JSON report carries it as it is).
    const reviewed = { lint: await lintSpec(repo, 'spec/openapi.yaml') };
    const cli = spawnSync(process.execPath, [redoclyCli, 'lint', 'spec/openapi.yaml', '--format=json'], { cwd: repo, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
    const judged = JSON.parse(cli.stdout.slice(cli.stdout.indexOf('{'))) as RedoclyLintJson;
    expect([reviewed.lint.errors, reviewed.lint.warnings]).toEqual([judged.totals.errors, judged.totals.warnings]);
    expect(reviewed.lint.warnings).toBeGreaterThan(0);
    expect(reviewed.lint.problems.map((p) => [p.ruleId, p.severity, p.message, p.file, p.line, p.pointer])).toEqual(
      judged.problems.map((p) => [p.ruleId, p.severity, p.message, p.location[0]!.source.ref, p.location[0]!.start.line, p.location[0]!.pointer]),
    );
  });

  it('reports a head spec that does not bundle, with the reason and the lint problems, in every format (exit 1)', async () => {
    const head = toyApi();
    head.paths['/status'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/NoSuchSchema' };
    writeToy(repo, head);
    const run = await review(repo, ['--base', 'HEAD', '--markdown', join(repo, 'broken.md')]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('❌ **The head spec does not bundle, so it was not compared.**');
    expect(run.stdout).toContain("- Can't resolve $ref (spec/openapi.yaml#/paths/~1status/get/responses/200/content/application~1json/schema)");
    expect(run.stdout).toMatch(/- error `no-unresolved-refs`: /);
    expect(readFileSync(join(repo, 'broken.md'), 'utf8')).toBe(run.stdout);
    expect(run.stderr).toContain('does not bundle');

    const github = await review(repo, ['--base', 'HEAD', '--format', 'github']);
    expect(github.code).toBe(1);
    expect(github.stdout).toMatch(/^::error file=spec\/openapi\.yaml,line=1,title=spec does not bundle::spec\/openapi\.yaml does not bundle:%0A- Can't resolve \$ref/m);
    const json = await review(repo, ['--base', 'HEAD', '--format', 'json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).bundleError).toContain("Can't resolve $ref");
  });

  it('exits 2 on an unknown base ref or a missing --base', async () => {
    const unknown = await review(repo, ['--base', 'no-such-ref']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown git ref no-such-ref');
    const missing = await review(repo, []);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--base is required');
  });
});

describe('spec:review on a copy of this repository spec', () => {
  it('bundles and lints the real spec at a commit and in the working tree: no change, exit 0', async () => {
    const repo = tempRepo();
    cpSync(join(repoRoot, 'spec'), join(repo, 'spec'), { recursive: true });
    for (const file of ['redocly.yaml', '.redocly.lint-ignore.yaml']) cpSync(join(repoRoot, file), join(repo, file));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'the spec');
    const run = await review(repo, ['--base', 'HEAD']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('| Lint (`redocly lint`) | 0 errors, 0 warnings |');
    expect(run.stdout).toContain('✅ **No breaking changes.**');
    expect(run.stdout).toContain('No change to operations, schemas or the document.');
    console.log(`spec review of the real spec: ${(run.ms / 1000).toFixed(1)} s`);

    // A changed const in a component file of the real, multi-file spec: annotated on that file's line.
    const file = join(repo, 'spec/components/schemas/GatewayStatus.yaml');
    const text = readFileSync(file, 'utf8');
    const constLine = text.split('\n').findIndex((l) => l.trim() === 'const: 30') + 1;
    expect(constLine).toBeGreaterThan(0);
    writeFileSync(file, text.replace('const: 30', 'const: 60'));
    const github = await review(repo, ['--base', 'HEAD', '--format', 'github']);
    expect(github.code, github.stderr).toBe(1);
    expect(github.stdout).toContain(`::error file=spec/components/schemas/GatewayStatus.yaml,line=${constLine},title=response-const-changed (breaking)::`);
  });
});
