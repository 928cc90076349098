/**
 * The build pipeline, in this working tree: every task rebuilt without the
 * cache (`turbo run build --force`), a rerun with no change (cache replay), and
 * a one-line spec change that must rebuild every artifact. The spec file is
 * restored afterwards (and rebuilt, so the tree is left as it was found).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './processes.js';

function timeBuild(...extra: string[]): { seconds: number; cached: string } {
  const started = performance.now();
  const output = execFileSync('npx', ['turbo', 'run', 'build', '--output-logs=none', ...extra], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' },
  });
  return { seconds: (performance.now() - started) / 1000, cached: /Cached:\s+(\d+ cached, \d+ total)/.exec(output)?.[1] ?? '?' };
}

export function runPipeline(): { step: string; seconds: number; cached: string }[] {
  const steps = [
    { step: 'every task rebuilt (--force, no cache)', ...timeBuild('--force') },
    { step: 'no-change rerun (cache replay)', ...timeBuild() },
  ];
  const file = join(repoRoot, 'spec/components/schemas/ServiceState.yaml');
  const original = readFileSync(file, 'utf8');
  try {
    // A line no earlier run wrote, so that turbo's cache cannot hold its outputs.
    writeFileSync(file, original.replace('title: ServiceState', `title: ServiceState\n$comment: bench one-line change ${Date.now()}`));
    steps.push({ step: 'one-line spec change', ...timeBuild() });
  } finally {
    writeFileSync(file, original);
    timeBuild();
  }
  return steps;
}
