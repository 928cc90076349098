/**
 * The build pipeline keeps derived artifacts honest:
 * - a change in spec/ reaches the built outputs (turbo does not replay a stale
 *   cache entry), and a rerun with no change replays from the cache;
 * - no generated file is committed (they are always rebuilt, never edited).
 * The turbo check runs on a scratch copy of the repository, so the real
 * working tree and its cache are never touched.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './support/spec.js';

const skipped = new Set(['node_modules', 'dist', 'generated', '.turbo', '.git']);

function scratchCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'contract-pipeline-'));
  cpSync(repoRoot, dir, {
    recursive: true,
    filter: (source) => !relative(repoRoot, source).split('/').some((part) => skipped.has(part)),
  });
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=pipeline-test', '-c', 'user.email=pipeline@test.invalid', 'commit', '-qm', 'scratch');
  return dir;
}

function buildContract(dir: string): string {
  return execFileSync('npx', ['turbo', 'run', 'build', '--filter=@gateway-minds/contract', '--output-logs=new-only'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1', FORCE_COLOR: '0' },
  });
}

describe('turbo pipeline', () => {
  const dir = scratchCopy();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rebuilds on a spec change and replays from cache when nothing changed', { timeout: 120_000 }, () => {
    const bundledPath = join(dir, 'packages/contract/dist/openapi.json');
    expect(buildContract(dir)).toMatch(/Cached:\s+0 cached/);

    const summaryFile = join(dir, 'spec/components/schemas/ServiceState.yaml');
    const marker = `pipeline-probe-${Date.now()}`;
    writeFileSync(summaryFile, readFileSync(summaryFile, 'utf8').replace('title: ServiceState', `title: ServiceState\n$comment: ${marker}`));
    const afterChange = buildContract(dir);
    expect(afterChange).toMatch(/Cached:\s+0 cached/);
    expect(readFileSync(bundledPath, 'utf8')).toContain(marker);
    expect(readFileSync(join(dir, 'packages/contract/src/generated/document.ts'), 'utf8')).toContain(marker);

    const replay = buildContract(dir);
    expect(replay).toMatch(/Cached:\s+1 cached, 1 total/);
    expect(readFileSync(bundledPath, 'utf8')).toContain(marker);
  });
});

describe('generated files', () => {
  it.runIf(existsSync(join(repoRoot, '.git')))('are never committed', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' }).split('\n');
    const generated = tracked.filter((file) => file.split('/').some((part) => part === 'dist' || part === 'generated'));
    expect(generated).toEqual([]);
  });
});
