/**
 * The build pipeline: a cold `turbo run build` (no cache, no outputs), a rerun
 * with no change (cache replay), and a one-line spec change that must rebuild
 * every artifact, timed on a scratch copy of the repository.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { repoRoot } from './processes.js';

const skipped = new Set(['node_modules', 'dist', 'generated', '.turbo', '.git', '.test-results', 'bench']);

function timeBuild(dir: string): { seconds: number; cached: string } {
  const started = performance.now();
  const output = execFileSync('npx', ['turbo', 'run', 'build', '--output-logs=none'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' },
  });
  return { seconds: (performance.now() - started) / 1000, cached: /Cached:\s+(\d+ cached, \d+ total)/.exec(output)?.[1] ?? '?' };
}

export function runPipeline(): { step: string; seconds: number; cached: string }[] {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pipeline-'));
  try {
    cpSync(repoRoot, dir, { recursive: true, filter: (source) => !relative(repoRoot, source).split('/').some((part) => skipped.has(part)) });
    symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=bench', '-c', 'user.email=bench@bench.invalid', 'commit', '-qm', 'scratch');
    const steps = [{ step: 'cold build', ...timeBuild(dir) }, { step: 'no-change rerun (cache replay)', ...timeBuild(dir) }];
    const file = join(dir, 'spec/components/schemas/ServiceState.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('title: ServiceState', 'title: ServiceState\n$comment: bench'));
    steps.push({ step: 'one-line spec change', ...timeBuild(dir) });
    return steps;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
